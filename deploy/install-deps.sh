#!/usr/bin/env bash
# Installs what Sous needs on a Debian/Ubuntu machine, skipping what is already there:
# system libraries (apt) and the Python packages the protocol test uses (pip).
# The Swift 6 toolchain itself does not come from apt: it must already be on PATH
# (or in /opt/swift/usr/bin); this script says so clearly if it is missing.
set -euo pipefail

# postgresql: the tests run every store on a private PostgreSQL too (deploy/postgres-test-server.sh).
# python3-yaml, python3-cryptography: deploy/kubernetes/check.py reads the manifests and checks the keys make-secrets.py makes.
# librsvg2-bin: ChartTests render a chart to PNG with rsvg-convert to check the SVG draws (skipped without it).
# chromium, chromium-driver, selenium: Tests/Python/test_web_browser.py drives the web app in headless Chromium (skipped without them).
# aiosmtpd: Tests/Support/mail_catcher.py, the real SMTP server the mail tests start (openssl makes its certificate).
APT_PACKAGES=(libzmq3-dev libsqlite3-dev libsodium-dev tzdata python3 python3-pip python3-yaml python3-cryptography postgresql librsvg2-bin chromium chromium-driver openssl)
PIP_PACKAGES=(pyzmq msgpack pytest selenium aiosmtpd)

log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

sudo_if_needed() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "error: need root (or sudo) to run: $*" >&2; exit 1
    fi
}

missing_apt=()
for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing_apt+=("$package")
done
if [ ${#missing_apt[@]} -gt 0 ]; then
    log "Installing system packages: ${missing_apt[*]}"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_apt[@]}" >/dev/null
else
    log "System packages present: ${APT_PACKAGES[*]}"
fi

missing_pip=()
for package in "${PIP_PACKAGES[@]}"; do
    module=$package; [ "$package" = pyzmq ] && module=zmq
    python3 -c "import $module" 2>/dev/null || missing_pip+=("$package")
done
if [ ${#missing_pip[@]} -gt 0 ]; then
    log "Installing Python packages: ${missing_pip[*]}"
    # Debian marks its Python as externally managed; these are test-only packages.
    python3 -m pip install -q "${missing_pip[@]}" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "${missing_pip[@]}"
else
    log "Python packages present: ${PIP_PACKAGES[*]}"
fi

if ! command -v swift >/dev/null; then
    if [ -x /opt/swift/usr/bin/swift ]; then
        log "Swift found in /opt/swift/usr/bin (add it to PATH to skip this note)"
    else
        echo "error: no Swift toolchain found. Install Swift 6.x from swift.org (it is not packaged by Debian) and put it on PATH." >&2
        exit 1
    fi
fi
