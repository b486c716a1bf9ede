#!/usr/bin/env bash
# Runs every test: installs what is missing, checks the formatting, builds, runs the Swift tests (services in-process over
# inproc:// and loopback TCP) on SQLite and again on a private PostgreSQL, the Python protocol and whole-journey tests against the real
# executables, then the docker compose deployment test (deploy/compose-test.sh; it needs root or
# sudo; SOUS_SKIP_COMPOSE=1 leaves it out on a machine that cannot run dockerd).
set -euo pipefail
cd "$(dirname "$0")/.."
source deploy/swift-env.sh
deploy/install-deps.sh

echo "==> Formatting (swift format lint, .swift-format; fix with: swift format -i -r Shared Services Tests Benchmarks Tools Package.swift)"
swift format lint --strict -r Shared Services Tests Benchmarks Tools Package.swift

echo "==> Building"
swift build --build-tests

# Every message the tests send is also encoded and decoded through Codable, and a difference
# from the direct coding @MessagePackCodable derives stops the run (Shared/MessagePack).
export SOUS_MESSAGEPACK_CHECK=1

# At most 16 tests at once. Unbounded, Swift Testing starts all 570 together: some 8 000 threads
# (each test's services with their lanes, clients and subscribers) on two cores, where Swift's two
# cooperative threads got so small a share that replies waited past their 30 s timeouts, in about
# every other run. Bounded, no test waits on another's load and the pass takes 110 s, not 160-200 s.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=16

echo "==> Swift tests (SQLite)"
swift test --skip-build

# The same tests with every service keeping its data on a private server, each in a schema of its
# own; the storage layer's own PostgreSQL tests run only here.
echo "==> Swift tests (PostgreSQL, a private server from deploy/postgres-test-server.sh)"
postgres_dir=$(mktemp -d /tmp/sous-pg.XXXXXX)
trap 'deploy/postgres-test-server.sh stop "$postgres_dir"' EXIT
SOUS_TEST_DATABASE_URL=$(deploy/postgres-test-server.sh start "$postgres_dir") swift test --skip-build
deploy/postgres-test-server.sh stop "$postgres_dir"
trap - EXIT

echo "==> Kubernetes manifests (deploy/kubernetes/check.py)"
python3 deploy/kubernetes/check.py

echo "==> Protocol, whole-journey and browser tests from Python (pyzmq, msgpack; Chromium through Selenium for the web app)"
deploy/link-services.sh "$(swift build --show-bin-path)"
# With the test servers' own tests (the Web Push endpoint's decryption against RFC 8291's example).
SOUS_BIN_DIR="$(swift build --show-bin-path)" python3 -m pytest -q Tests/Python Tests/Support/test_http_catcher.py

if [ "${SOUS_SKIP_COMPOSE:-0}" = 1 ]; then
    echo "==> docker compose test skipped (SOUS_SKIP_COMPOSE=1)"
else
    # The deployment is tested with the binaries just built and tested (debug): what it checks is
    # the images, compose files, health checks, networks and volumes, and a release build of
    # everything from a clean tree would double the run. SOUS_COMPOSE_RELEASE=1 builds and uses
    # release binaries, as the Dockerfile does.
    echo "==> docker compose deployment test"
    if [ "${SOUS_COMPOSE_RELEASE:-0}" = 1 ]; then
        deploy/compose-test.sh
    else
        SOUS_BIN_DIR="$(swift build --show-bin-path)" deploy/compose-test.sh
    fi
fi
