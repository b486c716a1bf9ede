#!/bin/sh
# Builds Tools/Fuzz/Fuzz.swift with libFuzzer and AddressSanitizer into OUT (default
# /tmp/sous-fuzz): the modules MessagePack, SousWire and SousSchema compiled from the main
# package's sources with the same settings, instrumented, and linked into `OUT/sous-fuzz`.
# Uses the macro plugin of the main package's debug build (`swift build` first).
#
#   Tools/Fuzz/build.sh [OUT]
#   OUT/sous-fuzz -max_total_time=600 -jobs=1 OUT/corpus Tools/Fuzz/seeds   # see README.md
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/tmp/sous-fuzz}
plugin="$root/.build/debug/SousMacros-tool"
[ -x "$plugin" ] || { echo "error: $plugin missing: run swift build in $root first" >&2; exit 1; }
mkdir -p "$out/modules"

# Package.swift's swiftSettings, plus the instrumentation.
flags="-swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -enable-upcoming-feature MemberImportVisibility -O -g -parse-as-library -sanitize=fuzzer,address
    -load-plugin-executable $plugin#SousMacros -I $out/modules"

module() {
    name=$1
    shift
    # shellcheck disable=SC2086
    swiftc $flags -module-name "$name" -emit-library -static -emit-module -emit-module-path "$out/modules/$name.swiftmodule" \
        -o "$out/modules/lib$name.a" "$@"
}

module MessagePack "$root"/Shared/MessagePack/*.swift
module SousWire "$root"/Shared/Wire/*.swift
module SousSchema "$root"/Shared/Schema/*.swift
# shellcheck disable=SC2086
swiftc $flags -use-ld=lld -module-name SousFuzz -o "$out/sous-fuzz" "$root/Tools/Fuzz/Fuzz.swift" \
    "$out/modules/libSousSchema.a" "$out/modules/libSousWire.a" "$out/modules/libMessagePack.a"
echo "$out/sous-fuzz"
