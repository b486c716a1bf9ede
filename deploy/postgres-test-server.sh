#!/usr/bin/env bash
# A private PostgreSQL for tests, from Debian's `postgresql` package: a new cluster in a
# temporary folder, listening only on a Unix socket in that folder, stopped and deleted by `stop`.
#
#   deploy/postgres-test-server.sh start DIR   # prints the URL to give SOUS_TEST_DATABASE_URL
#   deploy/postgres-test-server.sh halt DIR    # stops the server, keeps its data (outage tests)
#   deploy/postgres-test-server.sh resume DIR  # starts it again
#   deploy/postgres-test-server.sh stop DIR    # stops it and deletes DIR
#
# The cluster uses the C collation, so text sorts byte by byte as in SQLite. PostgreSQL refuses
# to run as root: as root the server runs as the `postgres` user the package creates.
set -euo pipefail

command=${1:?usage: $0 start|halt|resume|stop DIR}
dir=${2:?usage: $0 start|halt|resume|stop DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "error: PostgreSQL's server is not installed (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Tests open many short-lived services at once; fsync off: a test cluster need not survive a
# power cut (durability is tested with killed processes, which fsync does not change).
serve() {
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        >/dev/null
}

case $command in
start)
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U sous --auth=trust --locale=C --encoding=UTF8 >"$dir/initdb.log"
    serve
    as_owner "$bin/createdb" -h "$dir" -U sous sous
    echo "postgres://sous@/sous?host=$dir"
    ;;
halt)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
resume)
    serve
    ;;
stop)
    if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true; fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|halt|resume|stop DIR" >&2
    exit 2
    ;;
esac
