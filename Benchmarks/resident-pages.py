#!/usr/bin/env python3
"""Which sections and modules a running process's resident pages of its own executable hold.

    python3 Benchmarks/resident-pages.py PID

Reads the process's page table (/proc/PID/pagemap: a page counts in VmRSS when present; root
only), maps each present page of the executable back to the ELF section it holds, and each page
of `.text` to the Swift modules (from the mangled names, `$s<length><Module>...`) or C libraries
whose functions lie on it, a page shared by several modules split between them. What the other
mapped files (the shared libraries) hold is in /proc/PID/smaps, one line per mapping.
"""
import bisect
import collections
import os
import re
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
pid = int(sys.argv[1])
executable = os.path.realpath(f"/proc/{pid}/exe")


def lines(*command):
    return subprocess.check_output(command).decode(errors="replace").splitlines()


# Loadable segments: file offset -> virtual address.
segments = []
for line in lines("readelf", "-lW", executable):
    fields = line.split()
    if fields and fields[0] == "LOAD":
        segments.append((int(fields[1], 16), int(fields[2], 16), int(fields[4], 16)))
sections = []
for line in lines("readelf", "-SW", executable):
    match = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if match and int(match.group(2), 16) and int(match.group(3), 16):
        sections.append((int(match.group(2), 16), int(match.group(3), 16), match.group(1)))
sections.sort()
symbols = sorted(
    (int(fields[0], 16), fields[2])
    for fields in (line.split(" ", 2) for line in lines("nm", "--defined-only", executable))
    if len(fields) == 3 and fields[1] in "tTwW"
)
addresses = [address for address, _ in symbols]


def module(name):
    match = re.match(r"\$s(\d+)(\w+)", name)
    if match:
        return match.group(2)[: int(match.group(1))]
    if name.startswith(("$s", "swift_", "_swift")):
        return "Swift runtime and standard library"
    for prefix in ("sqlite3", "zmq", "CCryptoBoringSSL", "crypto_", "sodium"):
        if name.startswith(prefix):
            return f"C: {prefix}"
    return "C: other"


def section_of(address):
    """The section covering most of the page at `address`."""
    index = bisect.bisect_right(sections, (address + PAGE, 1 << 62, "")) - 1
    best, covered = "(between sections)", 0
    while index >= 0 and sections[index][0] + sections[index][1] > address - (1 << 24):
        start, size, name = sections[index]
        overlap = min(start + size, address + PAGE) - max(start, address)
        if overlap > covered:
            best, covered = name, overlap
        index -= 1
    return best


by_section = collections.Counter()
by_module = collections.Counter()
resident = 0
with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
    for line in open(f"/proc/{pid}/maps"):
        fields = line.split()
        if len(fields) < 6 or fields[5] != executable:
            continue
        start, end = (int(value, 16) for value in fields[0].split("-"))
        offset = int(fields[2], 16)
        for page in range(start, end, PAGE):
            pagemap.seek(page // PAGE * 8)
            (entry,) = struct.unpack("Q", pagemap.read(8))
            if not entry >> 63 & 1:
                continue
            resident += 1
            file_offset = page - start + offset
            address = next((file_offset - o + v for o, v, size in segments if o <= file_offset < o + size), None)
            if address is None:
                by_section["(past the segments)"] += 1
                continue
            section = section_of(address)
            by_section[section] += 1
            if section == ".text":
                low = max(bisect.bisect_right(addresses, address) - 1, 0)
                high = bisect.bisect_left(addresses, address + PAGE)
                owners = collections.Counter(module(name) for _, name in symbols[low:max(high, low + 1)])
                for name, count in owners.items():
                    by_module[name] += count / sum(owners.values())

kib = PAGE // 1024
print(f"{executable}: {resident * kib} KiB resident\n\n| section | KiB |\n|---|---:|")
for name, count in by_section.most_common():
    print(f"| {name} | {count * kib} |")
print("\n| `.text` by module | KiB |\n|---|---:|")
for name, count in by_module.most_common(25):
    print(f"| {name} | {count * kib:.0f} |")
