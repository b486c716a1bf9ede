#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, runs the Swift tests (services in-process over
# inproc:// and loopback TCP), then the Python protocol test against the real executables.
set -euo pipefail
cd "$(dirname "$0")/.."
source deploy/swift-env.sh
deploy/install-deps.sh

echo "==> Building"
swift build --build-tests

echo "==> Swift tests"
swift test --skip-build

echo "==> Protocol test from Python (pyzmq + msgpack only)"
SOUS_BIN_DIR="$(swift build --show-bin-path)" python3 -m pytest -q Tests/Python
