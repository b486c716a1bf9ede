#!/usr/bin/env bash
# Builds the runtime base image of deploy/Dockerfile without any image registry: a minimal Debian
# root filesystem made with debootstrap (Debian's package mirror is enough), imported into the
# Docker engine under the very name the Dockerfile's `runtime-base` stage starts FROM
# (debian:bookworm-slim), so the same Dockerfile builds with or without a registry.
#
#   deploy/build-base-image.sh                 # needs root, debootstrap and a running engine (DOCKER_HOST)
#
# The rootfs already carries the runtime packages (libzmq5, libsqlite3-0, tzdata, ca-certificates),
# so the Dockerfile's `apt-get install` step finds nothing to do and needs no network.
# The tarball is cached in $SOUS_BASE_CACHE (default /var/cache/sous-base) and reused when present;
# delete it (or set SOUS_BASE_REFRESH=1) to debootstrap again.
#
# Environment: DOCKER (client, default docker), SOUS_DEBIAN_MIRROR (default http://deb.debian.org/debian),
# SOUS_BASE_CACHE, SOUS_BASE_REFRESH.
set -euo pipefail
cd "$(dirname "$0")/.."

DOCKER="${DOCKER:-docker}"
MIRROR="${SOUS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CACHE_DIR="${SOUS_BASE_CACHE:-/var/cache/sous-base}"
# The packages the services need at run time, on top of `--variant=minbase`.
RUNTIME_PACKAGES=(libzmq5 libsqlite3-0 tzdata ca-certificates)

log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# The image name and Debian suite come from the Dockerfile: `FROM debian:bookworm-slim AS runtime-base`.
BASE_IMAGE="$(awk 'toupper($1) == "FROM" && tolower($3) == "as" && $4 == "runtime-base" { print $2; exit }' deploy/Dockerfile)"
if [ -z "$BASE_IMAGE" ]; then echo "error: no 'FROM <image> AS runtime-base' line in deploy/Dockerfile" >&2; exit 1; fi
SUITE="${BASE_IMAGE#*:}"; SUITE="${SUITE%%-*}"        # debian:bookworm-slim -> bookworm

# The cache key changes with anything that changes the tarball (FORMAT: this script's own recipe).
FORMAT=2
key="$(printf '%s %s %s %s' "$FORMAT" "$SUITE" "$MIRROR" "${RUNTIME_PACKAGES[*]}" | sha256sum | cut -c1-12)"
tarball="$CACHE_DIR/$SUITE-minbase-$key.tar"

if [ -s "$tarball" ] && [ "${SOUS_BASE_REFRESH:-0}" != 1 ]; then
    log "Reusing cached root filesystem $tarball"
else
    command -v debootstrap >/dev/null || { echo "error: debootstrap is not installed" >&2; exit 1; }
    mkdir -p "$CACHE_DIR"
    rootfs="$(mktemp -d "$CACHE_DIR/rootfs.XXXXXX")"
    # Always remove the half-made rootfs, even on failure or Ctrl-C.
    trap 'rm -rf "$rootfs"' EXIT
    log "debootstrap --variant=minbase $SUITE (+ ${RUNTIME_PACKAGES[*]}) from $MIRROR"
    started=$SECONDS
    include="$(IFS=,; echo "${RUNTIME_PACKAGES[*]}")"
    if ! debootstrap --variant=minbase --include="$include" "$SUITE" "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1; then
        tail -n 30 "$rootfs.log" >&2
        [ -f "$rootfs/debootstrap/debootstrap.log" ] && tail -n 30 "$rootfs/debootstrap/debootstrap.log" >&2
        echo "error: debootstrap failed (full log: $rootfs.log)" >&2
        exit 1
    fi
    rm -f "$rootfs.log"
    # What an official slim image also leaves out: package lists and caches, docs, man pages.
    chroot "$rootfs" apt-get clean
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/*.log \
        "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/tmp/*
    printf 'deb %s %s main\n' "$MIRROR" "$SUITE" >"$rootfs/etc/apt/sources.list"
    # The image gets its resolver and hostname from the engine at run time.
    : >"$rootfs/etc/resolv.conf"; : >"$rootfs/etc/hostname"
    # mktemp made the folder 0700; as the image's / it would lock the non-root user out of everything.
    chmod 0755 "$rootfs"
    tar --numeric-owner -C "$rootfs" -cf "$tarball.partial" .
    mv "$tarball.partial" "$tarball"
    rm -rf "$rootfs"; trap - EXIT
    log "Root filesystem ready in $((SECONDS - started)) s: $tarball ($(du -h "$tarball" | cut -f1))"
fi

log "Importing as $BASE_IMAGE"
"$DOCKER" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' \
    --message "debootstrap --variant=minbase $SUITE + ${RUNTIME_PACKAGES[*]} (deploy/build-base-image.sh)" \
    "$tarball" "$BASE_IMAGE" >/dev/null
"$DOCKER" image ls "$BASE_IMAGE"
