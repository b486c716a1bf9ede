#!/usr/bin/env bash
# Makes `sous-catalog`, `sous-planner`, `sous-groceries`, `sous-tracker` and `sous-notifier`
# in FOLDER: links to the `sous-server` executable there, which runs the service it is started
# as. One executable for the five, so services on one host share its pages in memory.
#
#   deploy/link-services.sh "$(swift build -c release --show-bin-path)"
# Run after every build that should be started by service name (deploy/test.sh, run-local.sh,
# stage-binaries.sh do).
set -euo pipefail

if [ $# -ne 1 ]; then echo "usage: $0 FOLDER (holding sous-server)" >&2; exit 64; fi
folder="$1"
if [ ! -x "$folder/sous-server" ]; then echo "error: no sous-server executable in $folder (build first)" >&2; exit 1; fi

for service in $("$folder/sous-server" --services) web; do
    # Relative, so the folder can be copied or mounted elsewhere; -n replaces an old link (or
    # the separate executable of an older build) instead of following it.
    ln -sfn sous-server "$folder/sous-$service"
done
