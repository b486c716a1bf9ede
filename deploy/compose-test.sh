#!/usr/bin/env bash
# CI test of the docker compose deployment, on a machine with no image registry:
#   1. Debian's docker-compose validates deploy/docker-compose.yml (and its host-network, publish and
#      web-port overrides) and deploy/docker-compose.postgres.yml (and its host-network override);
#   2. a private dockerd (no iptables, no bridge, everything under a temporary folder) gets a
#      debootstrap-made base image (deploy/build-base-image.sh), the Sous image is built from the
#      host's release binaries (Dockerfile target `prebuilt`), the stack comes up on the host's
#      loopback (deploy/docker-compose.hostnet.yml), every container turns healthy, `sous status`
#      and a short journey run through the `cli` service, the host's own `sous` signs in and
#      searches with the public keys copied out of the keys volume (as deploy/README.md says),
#      the web app turns healthy and the journey's user signs in through it over HTTP and sees
#      the week and the list, then the stack is torn down;
#   3. the PostgreSQL image is built on the same base (deploy/postgres.Dockerfile), the PostgreSQL
#      stack (deploy/docker-compose.postgres.yml + its hostnet override: PostgreSQL and two replicas
#      of each service) comes up healthy, `sous status` and the same journey run, one replica of
#      the catalog and one of the groceries are killed and the journey's calls to those services
#      still succeed on the live replicas, the killed ones come back, then it is torn down.
# Cleanup always runs (trap): compose down -v, dockerd stopped, the temporary folder removed.
# Only the debootstrap tarball is kept (/var/cache/sous-base) to make the next run faster.
#
#   deploy/compose-test.sh
#
# Environment:
#   SOUS_SERVICES      services to bring up (default: all five). Services whose executable is still
#                      a placeholder (no `check` subcommand) are skipped with a warning ...
#   SOUS_REQUIRE_ALL=1 ... or make the test fail instead.
#   SOUS_BIN_DIR       use these already-built binaries instead of `swift build -c release`
#   SOUS_BUILD_LOCK    a lock file to wrap the Swift build in (flock), for shared machines
#   SOUS_STORAGE_DRIVER  force dockerd's storage driver (default: overlay2, falling back to vfs)
#   SOUS_KEEP_TMP=1    keep the temporary folder (dockerd log, build logs, each stack's compose logs) after the run
set -euo pipefail
cd "$(dirname "$0")/.."

# The services the deployment runs: the one list everything below is driven by.
ALL_SERVICES=(catalog planner groceries tracker notifier)
read -r -a SERVICES <<<"${SOUS_SERVICES:-${ALL_SERVICES[*]}}"
PROJECT="${SOUS_COMPOSE_PROJECT:-sous-ci-$$}"
IMAGE="sous:compose-test-$$"
POSTGRES_IMAGE="sous-postgres:compose-test-$$"
# The PostgreSQL stack's role password, new for every run (URL-safe: it goes into SOUS_DATABASE_URL).
SOUS_POSTGRES_PASSWORD="ci-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
export SOUS_POSTGRES_PASSWORD
started=$SECONDS

log() { printf '\033[1m==> [%3ds] %s\033[0m\n' "$((SECONDS - started))" "$*"; }
warn() { printf '\033[1;33mwarning: %s\033[0m\n' "$*" >&2; }
fail() { printf '\033[1;31merror: %s\033[0m\n' "$*" >&2; exit 1; }

# dockerd and debootstrap need root.
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || fail "run as root (dockerd and debootstrap need it)"
    exec sudo --preserve-env env "PATH=$PATH" "$0" "$@"
fi

# ---------------------------------------------------------------------------------------------
log "Tools: debootstrap, docker.io (dockerd), docker-compose"
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v dockerd >/dev/null || missing+=(docker.io)
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    log "Installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The client that matches Debian's engine, if both a newer one and Debian's are installed.
DOCKER="$(command -v /usr/bin/docker || command -v docker)"
export DOCKER
echo "$("$DOCKER" --version 2>/dev/null || true); $(dockerd --version); $(docker-compose version --short)"

# ---------------------------------------------------------------------------------------------
log "Check 1: docker-compose validates the compose files (no engine needed)"
docker-compose -f deploy/docker-compose.yml config -q
docker-compose -f deploy/docker-compose.yml -f deploy/docker-compose.hostnet.yml config -q
docker-compose -f deploy/docker-compose.yml -f deploy/docker-compose.publish.yml config -q
docker-compose -f deploy/docker-compose.yml -f deploy/docker-compose.override.yml config -q
docker-compose -f deploy/docker-compose.postgres.yml config -q
docker-compose -f deploy/docker-compose.postgres.yml -f deploy/docker-compose.postgres.hostnet.yml config -q
# The PostgreSQL stack has no default password: without one, Compose must refuse to start it.
if SOUS_POSTGRES_PASSWORD="" docker-compose -f deploy/docker-compose.postgres.yml config -q 2>/dev/null; then
    fail "deploy/docker-compose.postgres.yml accepts an empty SOUS_POSTGRES_PASSWORD"
fi
echo "deploy/docker-compose.yml, its hostnet and publish overrides, deploy/docker-compose.postgres.yml and its hostnet override are valid"

# ---------------------------------------------------------------------------------------------
if [ -n "${SOUS_BIN_DIR:-}" ]; then
    BIN="$(cd "$SOUS_BIN_DIR" && pwd)"
    log "Using the binaries in $BIN"
else
    source deploy/swift-env.sh
    log "Building the release binaries"
    lock=(); [ -n "${SOUS_BUILD_LOCK:-}" ] && lock=(flock "$SOUS_BUILD_LOCK")
    "${lock[@]}" swift build -c release
    BIN="$(swift build -c release --show-bin-path)"
fi

active=(); skipped=()
for service in "${SERVICES[@]}"; do
    if [ -x "$BIN/sous-server" ] && "$BIN/sous-server" "$service" check --help 2>/dev/null | grep -q -- '--timeout-ms'; then
        active+=("$service")
    else
        skipped+=("$service")
    fi
done
if [ ${#skipped[@]} -gt 0 ]; then
    [ "${SOUS_REQUIRE_ALL:-0}" = 1 ] && fail "not built yet (placeholder executables): ${skipped[*]}"
    warn "skipping ${skipped[*]}: the executable is still a placeholder (no check subcommand)"
fi
[ ${#active[@]} -gt 0 ] || fail "no service executable found in $BIN"
log "Services under test: ${active[*]}"

# Host networking: the stacks' ports must be free on this machine: 27101…27502 (replica 1, and the
# SQLite stack's only one), 27111…27512 (replica 2) and PostgreSQL's 25432.
if command -v ss >/dev/null; then
    for port in 27101 27102 27201 27202 27301 27302 27401 27402 27501 27502 \
        27111 27112 27211 27212 27311 27312 27411 27412 27511 27512 25432 28080; do
        if ss -ltnH "sport = :$port" | grep -q .; then fail "port $port is in use; the host-network stacks need 27101…27512 and 25432"; fi
    done
fi

# ---------------------------------------------------------------------------------------------
WORK="$(mktemp -d /tmp/sous-compose.XXXXXX)"
export DOCKER_HOST="unix://$WORK/docker.sock"
export COMPOSE_PROJECT_NAME="$PROJECT" SOUS_IMAGE="$IMAGE" SOUS_POSTGRES_IMAGE="$POSTGRES_IMAGE" SOUS_HEALTH_INTERVAL=2s
DOCKERD_PID=""
STACK_UP=0
# The compose files of the stack under test (use_stack), which `compose` and the cleanup use.
COMPOSE_FILES=()
STACK=""
use_stack() {
    STACK="$1"
    case "$1" in
        sqlite) COMPOSE_FILES=(-f deploy/docker-compose.yml -f deploy/docker-compose.hostnet.yml) ;;
        postgres) COMPOSE_FILES=(-f deploy/docker-compose.postgres.yml -f deploy/docker-compose.postgres.hostnet.yml) ;;
        *) fail "no stack $1" ;;
    esac
}
use_stack sqlite
compose() { docker-compose "${COMPOSE_FILES[@]}" "$@"; }

stop_dockerd() {
    [ -n "$DOCKERD_PID" ] || return 0
    kill -TERM "$DOCKERD_PID" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$DOCKERD_PID" 2>/dev/null; then warn "dockerd did not stop in 30 s; killing it"; kill -KILL "$DOCKERD_PID" 2>/dev/null || true; fi
    wait "$DOCKERD_PID" 2>/dev/null || true
    # containerd-shims outlive a killed dockerd; end the ones started under this folder.
    for pid in $(pgrep -f "containerd-shim.*$WORK" 2>/dev/null || true); do kill -KILL "$pid" 2>/dev/null || true; done
    DOCKERD_PID=""
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    set +e
    if [ -n "$DOCKERD_PID" ] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
        if [ "$STACK_UP" = 1 ]; then
            if [ "$status" -ne 0 ]; then
                compose logs --no-color >"$WORK/compose-$STACK.log" 2>&1
                log "Failed; the stack's last logs (all of them: $WORK/compose-$STACK.log):"
                compose logs --no-color --tail 40 2>/dev/null
            fi
            log "Tearing down the stack: compose down --volumes"
            compose --profile cli down --volumes --remove-orphans --timeout 20
        fi
        left="$("$DOCKER" ps -aq 2>/dev/null | wc -l)"
        [ "$left" -eq 0 ] || { warn "$left containers left; removing them"; "$DOCKER" rm -f $("$DOCKER" ps -aq) >/dev/null; }
        log "Stopping dockerd"
    fi
    stop_dockerd
    # Unmount anything dockerd left mounted under the folder (overlay2 layers, shm), deepest first.
    awk -v prefix="$WORK" 'index($2, prefix) == 1 { print $2 }' /proc/mounts | sort -r | while read -r mount; do umount -l "$mount"; done
    if [ "${SOUS_KEEP_TMP:-0}" = 1 ]; then
        echo "kept $WORK"
    else
        rm -rf "$WORK"
    fi
    if [ "$status" -eq 0 ]; then log "compose test passed in $((SECONDS - started)) s"; else log "compose test FAILED (exit $status) after $((SECONDS - started)) s"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# Starts dockerd with the given storage driver; returns 1 if it does not come up.
start_dockerd() {
    local driver="$1"
    echo '{}' >"$WORK/daemon.json"     # ignore the machine's /etc/docker/daemon.json
    # setsid: its own session, so a Ctrl-C meant for this script does not stop dockerd before the cleanup.
    setsid dockerd --config-file "$WORK/daemon.json" --iptables=false --ip-masq=false --bridge=none \
        --storage-driver "$driver" --data-root "$WORK/docker-$driver" --exec-root "$WORK/exec" \
        --pidfile "$WORK/docker.pid" -H "$DOCKER_HOST" >"$WORK/dockerd-$driver.log" 2>&1 &
    DOCKERD_PID=$!
    for _ in $(seq 1 120); do
        if ! kill -0 "$DOCKERD_PID" 2>/dev/null; then wait "$DOCKERD_PID" 2>/dev/null || true; DOCKERD_PID=""; return 1; fi
        if "$DOCKER" info >/dev/null 2>&1; then
            [ "$("$DOCKER" info --format '{{.Driver}}')" = "$driver" ] && return 0
            stop_dockerd; return 1
        fi
        sleep 0.5
    done
    stop_dockerd; return 1
}

log "Starting dockerd (--iptables=false --bridge=none, data in $WORK)"
if [ -n "${SOUS_STORAGE_DRIVER:-}" ]; then
    start_dockerd "$SOUS_STORAGE_DRIVER" || { tail -n 20 "$WORK/dockerd-$SOUS_STORAGE_DRIVER.log" >&2; fail "dockerd did not start with $SOUS_STORAGE_DRIVER"; }
    driver="$SOUS_STORAGE_DRIVER"
elif start_dockerd overlay2; then
    driver=overlay2
else
    warn "dockerd with overlay2 failed: $(grep -m1 -iE 'error|fatal' "$WORK/dockerd-overlay2.log" || tail -n1 "$WORK/dockerd-overlay2.log"); trying vfs"
    start_dockerd vfs || { tail -n 20 "$WORK/dockerd-vfs.log" >&2; fail "dockerd did not start with overlay2 nor vfs"; }
    driver=vfs
fi
echo "dockerd $("$DOCKER" info --format '{{.ServerVersion}}') up (pid $DOCKERD_PID, storage driver $driver, $DOCKER_HOST)"

log "Base image from debootstrap"
deploy/build-base-image.sh

log "Building $IMAGE (Dockerfile target prebuilt, from the binaries in $BIN)"
deploy/stage-binaries.sh "$BIN" "$WORK/context/deploy/prebuilt"
"$DOCKER" build --network host --target prebuilt -f deploy/Dockerfile -t "$IMAGE" "$WORK/context" >"$WORK/build.log" 2>&1 \
    || { tail -n 30 "$WORK/build.log" >&2; fail "docker build failed"; }
"$DOCKER" image ls "$IMAGE"

# ---------------------------------------------------------------------------------------------
container() { compose ps -q "$1"; }

wait_healthy() {
    local service id state
    for service in "$@"; do
        id="$(container "$service")"
        [ -n "$id" ] || fail "$service has no container"
        for attempt in $(seq 1 120); do
            state="$("$DOCKER" inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$id")"
            case "$state" in
                "running healthy") break ;;
                *unhealthy|exited*|dead*) compose logs --no-color --tail 30 "$service"; fail "$service is $state" ;;
            esac
            [ "$attempt" -lt 120 ] || { compose logs --no-color --tail 30 "$service"; fail "$service not healthy after 60 s ($state)"; }
            sleep 0.5
        done
        # The latest check's answer (the log keeps the last five, older ones first, across restarts).
        echo "$service: healthy ($("$DOCKER" inspect -f '{{range .State.Health.Log}}{{.Output}}{{"\n"}}{{end}}' "$id" | awk 'NF { last = $0 } END { print last }'))"
    done
}

# What the services' containers cost the host once healthy (a report, docs/BENCHMARKS.md cites
# it): each one's resident pages (RSS), its share of pages mapped by several (PSS: they run one
# executable from one image layer, whose code is then resident once) and the pages only it maps.
report_memory() {
    local service pid
    printf '%-10s %8s %8s %8s\n' service "RSS KiB" "PSS KiB" "USS KiB"
    for service in "$@"; do
        pid="$("$DOCKER" inspect -f '{{.State.Pid}}' "$(container "$service")")"
        awk -v s="$service" '/^Rss:/ { r = $2 } /^Pss:/ { p = $2 } /^Private_(Clean|Dirty):/ { u += $2 }
            END { printf "%-10s %8d %8d %8d\n", s, r, p, u }' "/proc/$pid/smaps_rollup"
    done | tee "$WORK/memory.txt"
    awk '{ pss += $3 } END { printf "all of them: PSS %d KiB\n", pss }' "$WORK/memory.txt"
}

# The `sous` CLI, in a one-off container of the `cli` service (profile cli).
sous() { compose run --rm -T cli "$@"; }

# Fails unless the JSON on stdin satisfies the Python expression (the value is bound to `j`).
expect_json() {
    python3 -c 'import json, sys; j = json.load(sys.stdin); sys.exit(0 if eval(sys.argv[1]) else 1)' "$1" \
        || fail "unexpected reply: $2"
}

# A replica (`catalog-2`) belongs to its service; the SQLite stack's containers are the services.
service_of() { printf '%s\n' "${1%-[0-9]*}"; }

# Each container: non-root user, restart policy, its service's named volume on /data (shared by
# the service's replicas), the service's key pair (0600) there and its published key; on SQLite
# (first argument `sqlite`) its database file is there too, on PostgreSQL (`postgres`) there is none.
check_containers() {
    local engine="$1"; shift
    local name service id user policy volume mode
    for name in "$@"; do
        service="$(service_of "$name")"
        id="$(container "$name")"
        user="$("$DOCKER" exec "$id" id -u)"
        policy="$("$DOCKER" inspect -f '{{.HostConfig.RestartPolicy.Name}}' "$id")"
        volume="$("$DOCKER" inspect -f '{{range .Mounts}}{{if eq .Destination "/data"}}{{.Name}}{{end}}{{end}}' "$id")"
        echo "$name: uid $user, restart $policy, volume $volume"
        [ "$user" != 0 ] || fail "$name runs as root"
        [ "$policy" = unless-stopped ] || fail "$name restart policy is $policy"
        [ "$volume" = "${PROJECT}_$service-data" ] || fail "$name /data is not the named volume ${PROJECT}_$service-data"
        if [ "$engine" = sqlite ]; then
            "$DOCKER" exec "$id" test -f "/data/$service.sqlite" || fail "$name has no /data/$service.sqlite"
        elif "$DOCKER" exec "$id" test -e "/data/$service.sqlite"; then
            fail "$name made /data/$service.sqlite although its data is in PostgreSQL"
        fi
        mode="$("$DOCKER" exec "$id" stat -c %a "/data/$service.curve")" || fail "$name has no key pair in /data/$service.curve"
        [ "$mode" = 600 ] || fail "$name's secret key /data/$service.curve has mode $mode, not 600"
        "$DOCKER" exec "$id" test -s "/keys/$service.pub" || fail "$name did not publish /keys/$service.pub"
    done
}

# `sous status` through the cli service: exit 0 when every service is under test, else exactly
# the services not under test reported down.
check_status() {
    if [ ${#active[@]} -eq ${#ALL_SERVICES[@]} ]; then
        sous status
    else
        # Not every service is under test, so `sous status` must fail and report exactly those as down.
        local status_exit status_json
        set +e; sous status; status_exit=$?; set -e
        [ "$status_exit" -ne 0 ] || fail "sous status exited 0 although only ${active[*]} are running"
        status_json="$(sous status --json || true)"
        python3 -c '
import json, sys
rows = json.load(sys.stdin); active = sys.argv[1].split()
wrong = [row["service"] for row in rows if row["up"] != (row["service"] in active)]
sys.exit("sous status disagrees about: " + ", ".join(wrong) if wrong else 0)' "${active[*]}" <<<"$status_json"
        echo "sous status: ${active[*]} up, the others down, as expected (exit $status_exit)"
    fi
}

# The PostgreSQL container: the server runs as `postgres`, the cluster is in its own volume, role
# `sous` is no superuser and needs its password, and each service under test made its schema.
pg_query() { "$DOCKER" exec "$(container postgres)" psql -X -q -At -d sous -c "$1"; }
check_postgres() {
    local id owner volume schemas service
    id="$(container postgres)"
    owner="$("$DOCKER" exec "$id" stat -c %U /proc/1)"
    volume="$("$DOCKER" inspect -f '{{range .Mounts}}{{if eq .Destination "/var/lib/postgresql/data"}}{{.Name}}{{end}}{{end}}' "$id")"
    echo "postgres: $(pg_query 'SHOW server_version'), process 1 runs as $owner, volume $volume"
    [ "$owner" = postgres ] || fail "PostgreSQL runs as $owner, not postgres"
    [ "$volume" = "${PROJECT}_postgres-data" ] || fail "PostgreSQL's data is not in the named volume ${PROJECT}_postgres-data"
    [ "$(pg_query "SELECT rolsuper FROM pg_roles WHERE rolname = 'sous'")" = f ] || fail "role sous is missing or a superuser"
    if "$DOCKER" exec -e PGPASSWORD=not-the-password "$id" psql -X -h 127.0.0.1 -U sous -d sous -c 'SELECT 1' >/dev/null 2>&1; then
        fail "PostgreSQL let role sous in with a wrong password"
    fi
    schemas="$(pg_query "SELECT string_agg(nspname, ' ' ORDER BY nspname) FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner WHERE r.rolname = 'sous'")"
    echo "role sous: no superuser, a wrong password refused; its schemas: $schemas"
    for service in "${active[@]}"; do
        [[ " $schemas " == *" $service "* ]] || fail "the $service made no schema in database sous"
    done
}

# ---------------------------------------------------------------------------------------------
# The journey, through the CLI container: for each service under test (and only when the services
# it calls are under test too), some writes, then `verify_<service>` reads them back. Then every
# container is recreated and every `verify_<service>` runs again: the data lives in the volumes.
is_active() { local service; for service in "$@"; do [[ " ${active[*]} " == *" $service "* ]] || return 1; done; }

# Runs a CLI command with --json and fails unless its output contains the text.
expect_in() {
    local needle="$1"; shift
    local output
    output="$(sous "$@" --json)" || fail "sous $* failed"
    grep -qF -- "$needle" <<<"$output" || { echo "$output" | head -n 40; fail "sous $* does not mention $needle"; }
}

# Every journey acts for a signed-in user: accounts live in the planner.
ADA=ada@example.org
BOB=bob@example.org
PASSWORD='compose test passphrase'
sign_up() {
    is_active planner || return 0
    local email
    for email in "$ADA" "$BOB"; do
        printf '%s\n' "$PASSWORD" | sous register --email "$email" --name "${email%%@*}" || fail "sous register $email failed"
    done
    expect_in '"ada@example.org"' whoami --user "$ADA"
    echo "accounts: $ADA and $BOB registered and signed in (credentials in the cli-config volume)"
}

journey_catalog() {
    is_active planner || return 0
    sous ingredients search tom
    expect_in '"tomato"' ingredients search tom
    sous recipes search lentil --no-filters
    expect_in '"tomato-lentil-soup"' recipes show tomato-lentil-soup --people 2
    sous recipes edit tomato-lentil-soup --name "Ada's soup" --user "$ADA"
}
verify_catalog() {
    is_active planner || return 0
    expect_in "Ada's soup" recipes show tomato-lentil-soup --user "$ADA"
    sous recipes show tomato-lentil-soup --user "$BOB" --json | grep -qF "Ada's soup" && fail "Ada's personal recipe leaked to Bob"
    echo "catalog: Ada's personal version is there, Bob sees the original"
}

journey_planner() {
    is_active catalog || return 0
    sous profile set --people 2 --user "$ADA"
    sous plan add tomato-lentil-soup --user "$ADA"
    sous plan put today dinner tomato-lentil-soup --user "$ADA"
    sous plan show --user "$ADA"
}
verify_planner() {
    is_active catalog || return 0
    expect_in '"tomato-lentil-soup"' plan show --user "$ADA"
    sous profile show --user "$ADA" --json | python3 -c '
import json, sys
def find(value, key):
    if isinstance(value, dict):
        if key in value: return value[key]
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            found = find(item, key)
            if found is not None: return found
    return None
sys.exit(0 if find(json.load(sys.stdin), "people") == 2 else "planner lost the profile (people != 2)")'
    echo "planner: Ada's profile cooks for 2 and her plan holds tomato-lentil-soup"
}

journey_groceries() {
    is_active catalog planner || return 0
    sous groceries add-recipe tomato-lentil-soup --user "$ADA"
    sous groceries show --user "$ADA"
}
verify_groceries() {
    is_active catalog planner || return 0
    expect_in '"red-lentils"' groceries show --user "$ADA"
    echo "groceries: Ada's list has the soup's red lentils"
}

journey_tracker() {
    is_active catalog planner || return 0
    sous diary add --ingredient egg --meal breakfast --grams 120 --user "$ADA"
    # Cooking the planned dinner goes planner -> tracker: one serving lands in the diary.
    sous plan cooked today dinner --user "$ADA"
    sous diary list --user "$ADA"
}
verify_tracker() {
    is_active catalog planner || return 0
    expect_in '"egg"' diary list --user "$ADA"
    expect_in 'tomato-lentil-soup' diary list --user "$ADA"
    echo "tracker: Ada's diary has the egg and the cooked soup"
}

journey_notifier() {
    is_active planner tracker || return 0
    sous reminders next --user "$ADA"
}
verify_notifier() {
    is_active planner tracker || return 0
    sous reminders list --user "$ADA" >/dev/null || fail "sous reminders list failed"
    echo "notifier: answers for Ada's reminders"
}

# Signs up, then each service's journey step and its read-back.
run_journey() {
    local service
    log "Accounts"
    sign_up
    for service in "${active[@]}"; do
        log "Journey: $service"
        "journey_$service"
        "verify_$service"
    done
}

# deploy/README.md's client on the host, with host networking: the services' public keys copied
# out of the keys volume, the shifted endpoints, and the host's own `sous` (not the cli container).
check_host_client() {
    is_active planner catalog || return 0
    local keys="$WORK/host-keys" config="$WORK/host-config"
    mkdir -p "$keys" "$config"
    "$DOCKER" run --rm --network none --user "$(id -u)" -v "${PROJECT}_keys:/keys:ro" -v "$keys:/out" "$IMAGE" \
        sh -c 'cp /keys/*.pub /out/' || fail "could not copy the public keys out of volume ${PROJECT}_keys"
    local -a environment=(SOUS_KEYS_DIR="$keys" SOUS_CONFIG_DIR="$config"
        SOUS_PLANNER_ENDPOINT=tcp://127.0.0.1:27201 SOUS_CATALOG_ENDPOINT=tcp://127.0.0.1:27101)
    printf '%s\n' "$PASSWORD" | env "${environment[@]}" "$BIN/sous" login --email "$ADA" || fail "the host's sous could not sign in"
    env "${environment[@]}" "$BIN/sous" ingredients search tom --json | grep -qF '"tomato"' \
        || fail "the host's sous did not find the tomato"
    echo "host client: the keys of volume ${PROJECT}_keys, signed in as $ADA, searched the catalog"
}

# The web app (deploy/docker-compose.yml's `web`): healthy, and Ada signs in through it over HTTP
# and sees the week and the list the journey made. Host networking: it listens on 127.0.0.1:28080.
check_web() {
    is_active catalog planner groceries || return 0
    compose up -d --no-build --no-deps web
    wait_healthy web
    local jar="$WORK/web-cookies" page="$WORK/web-page.html" base=http://127.0.0.1:28080 token status
    curl -fsS -c "$jar" -b "$jar" "$base/signin" -o "$page" || fail "the web app did not serve /signin"
    token="$(grep -o 'name="csrf" value="[^"]*"' "$page" | head -n1 | sed 's/.*value="//; s/"$//')"
    [ -n "$token" ] || fail "the sign-in page has no form token"
    status="$(curl -sS -c "$jar" -b "$jar" -o /dev/null -w '%{http_code}' --data-urlencode "csrf=$token" \
        --data-urlencode "email=$ADA" --data-urlencode "password=$PASSWORD" "$base/signin")"
    [ "$status" = 303 ] || fail "signing in through the web app answered $status, not 303"
    status="$(curl -sS -c "$jar" -b "$jar" -o "$page" -w '%{http_code} %{redirect_url}' "$base/week")"
    [ "${status%% *}" = 200 ] || fail "the web app answered /week with $status"
    # The catalog's journey renamed Ada's version of the soup; its id stays.
    grep -q 'class="dish" href="/recipes/tomato-lentil-soup"' "$page" \
        || { grep -E '<h1>|class="dish"|role="alert"' "$page" >&2; fail "the web app's week does not show the planned soup"; }
    curl -fsS -c "$jar" -b "$jar" "$base/list" -o "$page" || fail "the web app did not serve /list"
    grep -q 'data-line="red-lentils"' "$page" || fail "the web app's list does not show the red lentils"
    echo "web: healthy; $ADA signed in over HTTP and saw the week's soup and the list's red lentils"
}

stack_down() {
    compose logs --no-color >"$WORK/compose-$STACK.log" 2>&1 || true
    log "Stopping the stack: compose down --volumes (its logs: $WORK/compose-$STACK.log)"
    compose --profile cli down --volumes --remove-orphans --timeout 20
    STACK_UP=0
    [ -z "$("$DOCKER" ps -aq)" ] || fail "containers left after compose down"
    [ -z "$("$DOCKER" volume ls -q --filter "name=$PROJECT")" ] || fail "volumes left after compose down -v"
}

# ---------------------------------------------------------------------------------------------
log "Check 2: the stack comes up (${active[*]}) with host networking"
STACK_UP=1
compose up -d --no-build --no-deps "${active[@]}"
wait_healthy "${active[@]}"

log "Memory of the healthy containers (a report; one sous-server executable for all of them)"
report_memory "${active[@]}"

log "Each container: non-root user, restart policy, its own named volume on /data, its SQLite file, its key pair (0600) and published key"
check_containers sqlite "${active[@]}"

log "sous status"
check_status

run_journey

log "A client on the host (deploy/README.md, host networking)"
check_host_client

log "The web app"
check_web

log "Recreating every container: the data must stay in the named volumes"
compose up -d --no-build --no-deps --force-recreate "${active[@]}"
wait_healthy "${active[@]}"
for service in "${active[@]}"; do "verify_$service"; done

stack_down

# ---------------------------------------------------------------------------------------------
# The PostgreSQL stack: PostgreSQL and two replicas of each service under test.
replicas=()
for service in "${active[@]}"; do replicas+=("$service-1" "$service-2"); done

log "Building $POSTGRES_IMAGE (deploy/postgres.Dockerfile: Debian's postgresql on the same base image)"
"$DOCKER" build --network host -f deploy/postgres.Dockerfile -t "$POSTGRES_IMAGE" deploy >"$WORK/postgres-build.log" 2>&1 \
    || { tail -n 30 "$WORK/postgres-build.log" >&2; fail "docker build of the PostgreSQL image failed"; }
"$DOCKER" image ls "$POSTGRES_IMAGE"

log "Check 3: the PostgreSQL stack comes up (postgres, ${replicas[*]}) with host networking"
use_stack postgres
STACK_UP=1
# depends_on orders the start: PostgreSQL healthy, then every replica 1, then each replica 2 once
# its replica 1 is healthy. `up` waits for those conditions, forever if one never turns healthy.
timeout 300 docker-compose "${COMPOSE_FILES[@]}" up -d --no-build postgres "${replicas[@]}" \
    || fail "compose up of the PostgreSQL stack failed or did not finish in 300 s"
wait_healthy postgres "${replicas[@]}"

log "PostgreSQL: runs as postgres in its own volume; role sous; a schema per service"
check_postgres

log "Each replica: non-root user, restart policy, its service's volume on /data (both replicas the same), no SQLite file, the key pair (0600) and published key"
check_containers postgres "${replicas[@]}"

log "sous status"
check_status

run_journey

# One replica of the catalog and one of the groceries die (SIGKILL: no goodbye to their peers).
# The CLI and the services that call them (planner and groceries call the catalog) must send
# every request to the live replica; the killed ones stay down until restarted.
is_down() { [ "$("$DOCKER" inspect -f '{{.State.Status}}' "$(container "$1")")" = exited ]; }
victims=()
is_active catalog && victims+=(catalog-1)
is_active groceries && victims+=(groceries-2)
if [ ${#victims[@]} -gt 0 ]; then
    log "Killing ${victims[*]}: the journey's calls must go to the live replicas"
    for name in "${victims[@]}"; do
        "$DOCKER" kill "$(container "$name")" >/dev/null
        for _ in $(seq 1 20); do is_down "$name" && break; sleep 0.5; done
        is_down "$name" || fail "$name is still running after docker kill"
        echo "$name: killed"
    done
    failover_started=$SECONDS
    check_status
    for service in catalog groceries; do
        if is_active "$service"; then log "Journey again: $service"; "journey_$service"; fi
    done
    for service in "${active[@]}"; do "verify_$service"; done
    for name in "${victims[@]}"; do is_down "$name" || fail "$name came back during the calls (restart policy?)"; done
    echo "every call answered with ${victims[*]} down ($((SECONDS - failover_started)) s)"

    log "Starting ${victims[*]} again: they rejoin"
    compose start "${victims[@]}"
    wait_healthy "${victims[@]}"
    check_status
fi

stack_down
