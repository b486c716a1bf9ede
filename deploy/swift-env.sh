# Sourced by the scripts: puts a Swift toolchain in /opt/swift on PATH if none is there yet.
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
