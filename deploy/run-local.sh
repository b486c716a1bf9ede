#!/usr/bin/env bash
# One command for a fresh Debian/Ubuntu machine: installs what is missing, builds, starts every
# Sous service as a local process with its SQLite file under one data folder, waits until each
# answers `health`, and stops them all cleanly on Ctrl-C.
#
#   deploy/run-local.sh            # data in ./data
#   SOUS_DATA_DIR=/tmp/sous deploy/run-local.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source deploy/swift-env.sh
deploy/install-deps.sh

SERVICES=(catalog planner groceries tracker notifier)
export SOUS_DATA_DIR="${SOUS_DATA_DIR:-$PWD/data}"
# The web app listens here (SOUS_WEB_BIND=0.0.0.0:8080 to reach it from other devices on the network).
export SOUS_WEB_BIND="${SOUS_WEB_BIND:-127.0.0.1:8080}"
# Each service creates its CURVE key pair under $SOUS_DATA_DIR on first start and publishes the
# public key here; the services and the `sous` CLI read each other's keys from it.
export SOUS_KEYS_DIR="${SOUS_KEYS_DIR:-$SOUS_DATA_DIR/keys}"
CONFIGURATION="${SOUS_BUILD_CONFIGURATION:-release}"

echo "==> Building ($CONFIGURATION)"
swift build -c "$CONFIGURATION"
BIN="$(swift build -c "$CONFIGURATION" --show-bin-path)"
deploy/link-services.sh "$BIN"      # sous-<service>: links to the one sous-server executable
mkdir -p "$SOUS_DATA_DIR"

pids=()
stop_all() {
    trap - INT TERM EXIT
    if [ ${#pids[@]} -gt 0 ]; then
        echo; echo "==> Stopping ${SERVICES[*]} and the web app"
        kill -TERM "${pids[@]}" 2>/dev/null || true
        wait "${pids[@]}" 2>/dev/null || true
    fi
}
trap stop_all INT TERM EXIT

for service in "${SERVICES[@]}"; do
    "$BIN/sous-$service" serve 2>>"$SOUS_DATA_DIR/$service.log" &
    pids+=($!)
    echo "==> Started $service (pid $!, log $SOUS_DATA_DIR/$service.log)"
done

for service in "${SERVICES[@]}"; do
    for attempt in $(seq 1 60); do
        if "$BIN/sous-$service" check --timeout-ms 500 >/dev/null 2>&1; then
            "$BIN/sous-$service" check; break
        fi
        if [ "$attempt" -eq 60 ]; then echo "error: $service did not answer health; see $SOUS_DATA_DIR/$service.log" >&2; exit 1; fi
    done
done

# The web app: one more client of the five, started once they answer.
"$BIN/sous-web" serve 2>>"$SOUS_DATA_DIR/web.log" &
pids+=($!)
echo "==> Started the web app (pid $!, log $SOUS_DATA_DIR/web.log)"
for attempt in $(seq 1 60); do
    if "$BIN/sous-web" check --timeout-ms 500 >/dev/null 2>&1; then "$BIN/sous-web" check; break; fi
    if [ "$attempt" -eq 60 ]; then echo "error: the web app did not answer; see $SOUS_DATA_DIR/web.log" >&2; exit 1; fi
    sleep 0.5
done

cat <<INFO

Sous is running (data in $SOUS_DATA_DIR, logs in $SOUS_DATA_DIR/<service>.log). Ctrl-C stops every service.

  Open http://$SOUS_WEB_BIND in a browser: create an account, plan the week, shop from the list.

  catalog    tcp://127.0.0.1:7101   events :7102
  planner    tcp://127.0.0.1:7201   events :7202
  groceries  tcp://127.0.0.1:7301   events :7302
  tracker    tcp://127.0.0.1:7401   events :7402
  notifier   tcp://127.0.0.1:7501   events :7502

From another terminal:
  export PATH="$BIN:\$PATH" SOUS_KEYS_DIR="$SOUS_KEYS_DIR"
  sous status
  sous register --email you@example.org --name You      # asks for a password (10+ characters)
  sous profile set --people 2 --diet vegetarian --time-zone Europe/Rome
  sous recipes search
  sous --help
An operator (imports, seed reloads, clock control) is created on this machine only:
  SOUS_DATA_DIR="$SOUS_DATA_DIR" sous-planner operator create --email ops@example.org
INFO
wait "${pids[@]}"
