# syntax=docker/dockerfile:1
# Multi-stage build: compile with the full toolchain, run on a slim image as an unprivileged user.
# libpq (with OpenSSL, for TLS to PostgreSQL) and SQLite are compiled in from source, so the runtime
# image needs no database or TLS libraries. Base images are pinned to a release (the Rust toolchain
# to its patch version); pin them by digest too where builds must be reproducible.
FROM rust:1.95.0-bookworm AS build
WORKDIR /src
COPY . .
# The crates and the build directory are cache mounts: a rebuild compiles only what changed. The
# binary keeps its symbols (readable backtraces) but not its debug information.
ENV CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_STRIP=debuginfo
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p payments-api \
    && cp target/release/payments /usr/local/bin/payments

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app payments \
    && mkdir -p /app/data \
    && chown payments /app/data
WORKDIR /app
COPY --from=build /usr/local/bin/payments /usr/local/bin/payments
COPY config /app/config
USER payments
ENV PAYMENTS_ENVIRONMENT=production
# The only place the service writes (an embedded SQLite database, when no PostgreSQL is given): the
# rest of the file system can be mounted read-only.
VOLUME /app/data
EXPOSE 8080
# Ready: the database answers and the instance is not stopping.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["payments", "--api-base", "http://127.0.0.1:8080", "ready"]
CMD ["payments", "serve"]
