#!/usr/bin/env bash
# Copies what the Sous image needs out of a SwiftPM bin folder into OUT, laid out as /opt/sous:
#   OUT/bin  the `sous` CLI, the `sous-server` executable with its `sous-<service>` links
#            (deploy/link-services.sh) and every `*.resources` bundle (Bundle.module finds them
#            next to the executable)
#   OUT/lib  the Swift runtime libraries the executables link dynamically (found with ldd:
#            anything resolved inside a Swift toolchain); empty with --static-swift-stdlib
# Used by the Dockerfile's Swift stage and by deploy/compose-test.sh for the `prebuilt` target.
#
#   deploy/stage-binaries.sh "$(swift build -c release --show-bin-path)" CONTEXT/deploy/prebuilt
set -euo pipefail

if [ $# -ne 2 ]; then echo "usage: $0 SWIFTPM_BIN_DIR OUT_DIR" >&2; exit 64; fi
bin_dir="$1"; out="$2"

executables=("$bin_dir/sous" "$bin_dir/sous-server")
for executable in "${executables[@]}"; do
    if [ ! -x "$executable" ]; then echo "error: no $(basename "$executable") executable in $bin_dir (build first)" >&2; exit 1; fi
done
mkdir -p "$out/bin" "$out/lib"

for executable in "${executables[@]}"; do
    cp "$executable" "$out/bin/"
    strip --strip-unneeded "$out/bin/$(basename "$executable")" 2>/dev/null || true
done
"$(dirname "$0")/link-services.sh" "$out/bin"
for bundle in "$bin_dir"/*.resources; do
    [ -d "$bundle" ] && cp -R "$bundle" "$out/bin/"
done

# Swift runtime libraries: whatever ldd resolves inside a toolchain (…/lib/swift/linux/…).
ldd "${executables[@]}" 2>/dev/null \
    | awk '$2 == "=>" && $3 ~ /\/swift\// { print $3 }' | sort -u \
    | while read -r library; do cp -L "$library" "$out/lib/"; done

echo "staged $(ls "$out/bin" | tr '\n' ' ')"
echo "  + $(ls "$out/lib" | wc -l) Swift runtime libraries, $(du -sh "$out" | cut -f1) in all"
