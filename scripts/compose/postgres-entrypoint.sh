#!/bin/sh
# The official postgres image's first start, as far as the compose file needs it: a cluster made
# with POSTGRES_USER as its superuser and POSTGRES_PASSWORD as its password, and POSTGRES_DB.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    password_file=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > "$password_file"
    initdb -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --pwfile="$password_file" \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$password_file"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    database=${POSTGRES_DB:-${POSTGRES_USER:-postgres}}
    if [ "$database" != "postgres" ]; then
        pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start >/dev/null
        createdb -U "${POSTGRES_USER:-postgres}" "$database"
        pg_ctl -D "$PGDATA" -w -m fast stop >/dev/null
    fi
fi
if [ "${1:-}" = "postgres" ]; then
    shift
    exec postgres -D "$PGDATA" "$@"
fi
exec "$@"
