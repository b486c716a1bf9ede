#!/bin/sh
# Issue 15's targets in one run, as docs/BENCHMARKS.md takes them: a release build, every
# benchmark pinned to core 1 but `throughput` (its 50 clients need both cores), each with the
# baseline it is compared with measured in the same run, the one-client runs repeated.
#
#   Benchmarks/targets.sh [folder]      # default: /tmp/sous-targets-<UTC date and time>
#
# Each benchmark's output goes to a file of its own in the folder, all of them to all.txt, the
# machine and commit to machine.txt, every table row to summary.txt (file: row), and the
# figures of docs/BENCHMARKS.md's target table to table.md (Benchmarks/targets-table.py). About
# 10 minutes, then the peers' package (Benchmarks/Peers) is built and run, a few minutes more
# the first time. Nothing else should run on the machine meanwhile.
set -eu
cd "$(dirname "$0")/.."
out=${1:-/tmp/sous-targets-$(date -u +%Y%m%dT%H%MZ)}
mkdir -p "$out"
{
    date -u
    git rev-parse --short HEAD
    git status --short | head -5
    lscpu | grep -E 'Model name|^CPU\(s\)'
} >"$out/machine.txt"

swift build -c release
BIN=$(swift build -c release --show-bin-path)

run() {
    name=$1
    shift
    echo "== $name: $*" | tee -a "$out/all.txt"
    "$@" >"$out/$name.txt" 2>&1
    cat "$out/$name.txt" >>"$out/all.txt"
}

for i in 1 2 3; do run rpc-$i taskset -c 1 "$BIN/sous-bench" rpc; done
for i in 1 2; do run codec-$i taskset -c 1 "$BIN/sous-bench" codec; done
for i in 1 2; do run planner-$i taskset -c 1 "$BIN/sous-bench" planner; done
for i in 1 2; do run groceries-$i taskset -c 1 "$BIN/sous-bench" groceries; done
for i in 1 2 3; do run notifier-$i taskset -c 1 "$BIN/sous-bench" notifier --users 100000 --scheduled 10000; done
for i in 1 2; do run catalog-$i taskset -c 1 "$BIN/sous-bench" catalog; done
for i in 1 2 3; do run throughput-$i "$BIN/sous-bench" throughput; done
# Without the cached build manifest: with it, the first build after a file was added to the
# main package's sources did not see the file (its targets are this package's dependency).
(cd Benchmarks/Peers && swift build -c release --disable-build-manifest-caching)
for i in 1 2 3; do run peers-$i taskset -c 1 Benchmarks/Peers/.build/release/sous-peers; done

for file in "$out"/*-[0-9].txt; do
    grep '^|' "$file" | grep -v '^|[-:|]*$' | sed "s|^|$(basename "$file" .txt): |"
done >"$out/summary.txt"
python3 Benchmarks/targets-table.py "$out" >"$out/table.md"
echo "done: $out (table.md, summary.txt, all.txt)"
