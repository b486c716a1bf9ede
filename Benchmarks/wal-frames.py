#!/usr/bin/env python3
"""What each commit in a SQLite WAL wrote: frames per commit, and the b-tree each page belongs to.

    Benchmarks/wal-frames.py DATABASE [LAST]

Copy DATABASE and DATABASE-wal aside first while the writer still has them open (a clean close
checkpoints and deletes the WAL): e.g. after `sous-bench groceries --quick --data-dir D`, run it on
a copy of D/groceries.sqlite and D/groceries.sqlite-wal. Pages are named by `dbstat` on the
database file without the WAL applied, so a page recycled from the free list may show its old
owner. Prints how many commits wrote how many pages, the commonest page patterns, and the LAST
(default 10) commits.
"""

import collections
import shutil
import sqlite3
import struct
import sys
import tempfile


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    database, last = argv[1], int(argv[2]) if len(argv) > 2 else 10
    wal = open(database + "-wal", "rb").read()
    _, _, page_size, _, salt1, salt2, _, _ = struct.unpack(">8I", wal[:32])
    commits, current, offset = [], [], 32
    while offset + 24 + page_size <= len(wal):
        page, commit, s1, s2, _, _ = struct.unpack(">6I", wal[offset:offset + 24])
        if (s1, s2) != (salt1, salt2):
            break  # frames of an earlier round of the WAL
        current.append(page)
        if commit:
            commits.append(current)
            current = []
        offset += 24 + page_size
    with tempfile.TemporaryDirectory() as folder:
        # A copy without its WAL, so that opening it changes nothing of the original.
        copy = shutil.copy(database, folder)
        owners = dict((page, name) for name, page in sqlite3.connect(copy).execute("SELECT name, pageno FROM dbstat"))
    named = [[owners.get(page, f"page {page}") for page in commit] for commit in commits]
    print(f"{len(commits)} commits in the WAL's current round, {page_size}-byte pages")
    print("pages per commit:", ", ".join(f"{size}: {count}" for size, count in sorted(collections.Counter(map(len, commits)).items())))
    print("\ncommonest commits (count: pages):")
    for pattern, count in collections.Counter(tuple(sorted(n)) for n in named).most_common(8):
        print(f"  {count}: {', '.join(pattern)}")
    print(f"\nthe last {last}:")
    for commit in named[-last:]:
        print(f"  {len(commit)}: {', '.join(commit)}")


if __name__ == "__main__":
    main(sys.argv)
