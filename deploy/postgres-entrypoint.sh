#!/bin/sh
# Entrypoint of the PostgreSQL image (deploy/postgres.Dockerfile) of the Sous stack
# (deploy/docker-compose.postgres.yml). Runs as the `postgres` user, never root.
#
# First start (no cluster in $PGDATA yet): initdb (UTF-8, C collation, so text sorts byte by byte
# as in SQLite), then, on a server that listens only on its Unix socket, role `sous` (LOGIN, not a
# superuser) with the password in SOUS_POSTGRES_PASSWORD and database `sous` owned by it. The
# cluster is made in $PGDATA.init and renamed to $PGDATA only once all of that succeeded, so an
# interrupted first start begins again from scratch. Later starts use the cluster as it is: the
# password is only read on the first start.
#
# Then PostgreSQL runs in the foreground (stopped fast on SIGINT, the image's STOPSIGNAL),
# listening on SOUS_POSTGRES_LISTEN (default `*`, every address) at PGPORT (default 5432).
# Arguments are passed on to `postgres`, e.g. `-c max_connections=200`.
#
# Authentication (pg_hba.conf): `sous` may connect to database `sous` over TCP from anywhere with
# its password (scram-sha-256); the superuser `postgres` only over the Unix socket inside the
# container (peer), e.g. `docker compose exec postgres psql -d sous`.
set -eu

if [ "$(id -u)" = 0 ]; then
    echo "postgres-entrypoint: refusing to run as root; the image runs as the postgres user" >&2
    exit 1
fi
: "${PGDATA:?PGDATA is not set}"
listen="${SOUS_POSTGRES_LISTEN:-*}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${SOUS_POSTGRES_PASSWORD:-}" ]; then
        echo "postgres-entrypoint: no cluster in $PGDATA yet and SOUS_POSTGRES_PASSWORD is empty: set it to the password of role sous" >&2
        exit 1
    fi
    parent="$(dirname "$PGDATA")"
    if [ ! -w "$parent" ]; then
        echo "postgres-entrypoint: $parent is not writable by $(id -un) (uid $(id -u)); the volume must belong to it" >&2
        exit 1
    fi
    staging="$PGDATA.init"
    rm -rf "$staging"
    echo "postgres-entrypoint: first start, creating the cluster and role sous with database sous"
    initdb -D "$staging" --username=postgres --encoding=UTF8 --locale=C --auth-local=peer --auth-host=scram-sha-256 >/dev/null
    cat >"$staging/pg_hba.conf" <<'EOF'
# TYPE  DATABASE  USER      ADDRESS  METHOD
local   all       postgres           peer
local   sous      sous               scram-sha-256
host    sous      sous      all      scram-sha-256
EOF
    pg_ctl -D "$staging" -w -t 60 -o "-c listen_addresses=''" start >/dev/null
    # \getenv keeps the password out of every command line; :'password' quotes it as a literal.
    psql -X -q -v ON_ERROR_STOP=1 -U postgres -d postgres <<'EOF'
\getenv password SOUS_POSTGRES_PASSWORD
CREATE ROLE sous LOGIN PASSWORD :'password';
CREATE DATABASE sous OWNER sous;
EOF
    pg_ctl -D "$staging" -w -m fast stop >/dev/null
    mv "$staging" "$PGDATA"
    echo "postgres-entrypoint: cluster ready in $PGDATA"
fi

unset SOUS_POSTGRES_PASSWORD
exec postgres -D "$PGDATA" -c listen_addresses="$listen" "$@"
