# Multi-stage build: compile with the full toolchain, run on a slim image as an unprivileged user.
# libpq (with OpenSSL, for TLS to PostgreSQL) and SQLite are compiled in from source, so the runtime
# image needs no database or TLS libraries.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p payments-api

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app payments \
    && mkdir -p /app/data \
    && chown payments /app/data
WORKDIR /app
COPY --from=build /src/target/release/payments /usr/local/bin/payments
COPY config /app/config
USER payments
ENV PAYMENTS_ENVIRONMENT=production
EXPOSE 8080
CMD ["payments", "serve"]
