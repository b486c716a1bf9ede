#!/usr/bin/env python3
"""Writes libFuzzer seeds for sous-fuzz into a folder (default /tmp/sous-fuzz/seeds) from the
committed request corpus (Tests/FuzzTests/Corpus): each body once as its request type (the
first byte selects the type, as Fuzz.swift's list orders them; the type of each method from
docs/PROTOCOL.md's method tables), and once as a whole request message behind the envelope
selector (protocol prefix, header with the method, id, session and key, then the body); and
a reply of each status and an event.

    python3 Tools/Fuzz/seeds.py [FOLDER]
"""
import hashlib
import re
import sys
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parents[2]
out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/sous-fuzz/seeds")
out.mkdir(parents=True, exist_ok=True)

# The order of `schemaChecks` in Fuzz.swift: selector 16 + index (mod the list's length).
checked = re.findall(r"^    check\(([\w.]+)\.self\),$", (ROOT / "Tools/Fuzz/Fuzz.swift").read_text(), re.M)

# Every `@MessagePackCodable` type of the schema and the wire should be in that list; a type added
# since is named here (add it to `schemaChecks`).
declared = set()
for source in sorted((ROOT / "Shared/Schema").glob("*.swift")) + sorted((ROOT / "Shared/Wire").glob("*.swift")):
    declared |= set(re.findall(r"@MessagePackCodable\s+(?:(?:public|internal|indirect)\s+)*(?:struct|enum)\s+(\w+)", source.read_text()))
missing = sorted(declared - {name.split(".")[-1] for name in checked})
if missing:
    print(f"not in Fuzz.swift's schemaChecks: {missing}", file=sys.stderr)
selector = {name: 16 + index for index, name in enumerate(checked)}

# `| `method` | `Request` | `Reply` | ...` rows of the generated method tables.
request_type = {}
for row in re.finditer(r"^\| `([\w.]+)` \| `\[?(\w+)\]?\??` \|", (ROOT / "docs/PROTOCOL.md").read_text(), re.M):
    request_type[row.group(1)] = row.group(2)


def write(data: bytes) -> None:
    (out / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


count = 0
unknown = set()
for path in sorted((ROOT / "Tests/FuzzTests/Corpus").glob("*.msgpack")):
    method = path.name.split("--")[0]
    body = path.read_bytes()
    header = {"method": method, "id": "seed-1", "session": "s" * 40, "onBehalfOf": None, "deadline": None, "idempotencyKey": "k-1"}
    write(bytes([0]) + b"SOUS" + bytes([3, 1]) + msgpack.packb(header) + body)
    count += 1
    name = request_type.get(method)
    if name in selector:
        write(bytes([selector[name]]) + body)
        count += 1
    else:
        unknown.add(method)
# Replies (an ok reply with a map, an error reply) and an event, as their readers get them.
PREFIX = {kind: b"SOUS" + bytes([3, kind]) for kind in (1, 2, 3)}
write(bytes([8]) + PREFIX[2] + msgpack.packb({"id": "seed-1", "status": "ok"}) + msgpack.packb({"id": "r", "name": "Soup"}))
error = {"code": "notFound", "message": "no recipe \"x\"", "field": "id"}
write(bytes([8]) + PREFIX[2] + msgpack.packb({"id": "seed-1", "status": "error"}) + msgpack.packb(error))
event_header = {"topic": "catalog.recipe", "source": "catalog", "time": msgpack.Timestamp(1_773_136_800)}
write(bytes([12]) + b"catalog.recipe\0" + PREFIX[3] + msgpack.packb(event_header) + msgpack.packb({"recipe": "r", "user": None, "version": 1}))
count += 3

# A method the document does not list (the corpus holds unknown names on purpose) is seeded
# only as a whole request.
print(f"{count} seeds in {out}" + (f"; as whole requests only: {sorted(unknown)}" if unknown else ""))
