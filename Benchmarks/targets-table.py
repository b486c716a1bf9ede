#!/usr/bin/env python3
"""Figures of the target table of docs/BENCHMARKS.md from result folders of Benchmarks/targets.sh.

    Benchmarks/targets-table.py FOLDER [FOLDER ...]    # targets.sh writes it to FOLDER/table.md

Prints each folder's machine.txt (date, commit), then one Markdown table: a row per target
(named as in the "2026-11-27, seventh session" table), a column per folder, each cell in the
form of that table. Every ratio printed is the string the benchmark printed (its "p50 ÷ ..."
column); the script computes no ratio. Only two things are derived: p99 in ms is the printed
p99 µs ÷ 1000 rounded to 2 decimals (half up), and the idle RSS "36–41 MiB" rounds the
decimal VmRSS of "The five started together" to whole MiB. A missing file, table, row or
column gives "?" in its place; a range over runs of which some are missing says how many it
covers, e.g. "(2 of 3 runs)".

Where each figure is read (per run file X-N.txt; if that file is absent, its table rows are
taken from summary.txt's "X-N: | ... |" lines instead, with the "###" headings unknown):
  health ÷ CURVE echo     rpc-1..3        "sous health over CURVE, blocking client", p50 ÷ baseline
                                          (the baseline is the "raw libzmq ... CURVE (floor)" row)
  without CURVE           rpc-1..3        "sous health over inproc, blocking client", p50 ÷ baseline
                                          (the baseline is the "raw libzmq ... inproc (baseline)" row)
  codec                   codec-1..2      "MessagePack encode+decode (... B)", p50 µs and p50 ÷ baseline
                                          (the baseline is "JSON encode+decode")
  groceries.list          groceries-1..2  "read the aggregated list (groceries.list)", p50 ÷ baseline
  groceries.addRecipe     groceries-1..2  "add one recipe (catalog lookup, ...)", p50 ÷ baseline, p50 µs
                                          (the baseline is "health ..., a block after each build");
                                          "the add's write on the store alone ...", p50 µs
  plan.get                planner-1..2    "plan.get (7 days, 14 slots, selection)", p50 ÷ baseline
  100 000 reminders       notifier-1..3   "up (one diary.statuses per 1 000)", due → all published
  filtered search p99     catalog-1..2    "fully filtered search over the socket", p99 µs
  name search p99         catalog-1..2    "name search over the socket", p99 µs
  recipes.get ÷ health    throughput-1..3 one-client table, "`recipes.get` tomato-lentil-soup", p50 ÷ baseline
  default search ÷ health throughput-1..3 one-client table, "default `recipes.search`", p50 ÷ baseline
  50 clients              throughput-1..3 the "load | answered calls/s" table, row "default search"
  idle RSS / PSS          throughput-1..3 "The five started together" table: VmRSS and PSS of the
                                          five "sous-*" rows, "all five" PSS, "`sous-server all`..." VmRSS
                                          (and, in parentheses, the VmRSS of each started alone)
  HTTP/gRPC ÷ Sous        peers-1..3      the "name search" and "fully filtered" tables, rows "HTTP/1.1 + JSON"
                                          and "gRPC", column "p50 ÷ Sous blocking"
"""

import os
import re
import sys
from decimal import Decimal, ROUND_HALF_UP, InvalidOperation

MISSING = "?"


# ---------------------------------------------------------------- reading the tables

def is_separator(line):
    return re.fullmatch(r"\|[-:| ]*\|?", line.strip()) is not None


def cells(line):
    parts = line.strip().split("|")
    # a row "| a | b |" splits into ['', ' a ', ' b ', '']
    if parts and parts[0].strip() == "":
        parts = parts[1:]
    if parts and parts[-1].strip() == "":
        parts = parts[:-1]
    return [p.strip() for p in parts]


class Table:
    def __init__(self, heading, header):
        self.heading = heading or ""
        self.header = header
        self.rows = []

    def column(self, name):
        """Index of the first header cell equal to name, else starting with it."""
        for i, h in enumerate(self.header):
            if h == name:
                return i
        for i, h in enumerate(self.header):
            if h.startswith(name):
                return i
        return None


def parse_lines(lines):
    """Markdown tables from lines; a table starts at a row followed by a separator row, or
    (summary.txt has no separators) at a row whose first cell is a known header word."""
    tables = []
    heading = None
    current = None
    lines = list(lines)
    for i, raw in enumerate(lines):
        line = raw.rstrip("\n")
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            current = None
            continue
        if not line.startswith("|"):
            current = None
            continue
        if is_separator(line):
            continue
        row = cells(line)
        next_is_sep = i + 1 < len(lines) and is_separator(lines[i + 1])
        looks_like_header = len(row) > 1 and row[0] in HEADER_WORDS and \
            not re.match(r"\d", row[1])
        if next_is_sep or current is None or looks_like_header:
            current = Table(heading, row)
            tables.append(current)
        else:
            current.rows.append(row)
    return tables


HEADER_WORDS = {"operation", "stack", "process", "tracker", "measurement", "load"}


def load_tables(folder, name):
    """Tables of folder/name.txt, or of summary.txt's lines for it; None if neither has any."""
    path = os.path.join(folder, name + ".txt")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            tables = parse_lines(f.readlines())
        if tables:
            return tables
    except OSError:
        pass
    try:
        prefix = name + ": "
        with open(os.path.join(folder, "summary.txt"), encoding="utf-8", errors="replace") as f:
            lines = [l[len(prefix):] for l in f if l.startswith(prefix)]
        tables = parse_lines(lines)
        return tables or None
    except OSError:
        return None


def find_tables(tables, header_first=None, has_column=None, heading_contains=None):
    found = []
    for t in tables or []:
        if header_first is not None and (not t.header or t.header[0] != header_first):
            continue
        if has_column is not None and t.column(has_column) is None:
            continue
        if heading_contains is not None and heading_contains.lower() not in t.heading.lower():
            continue
        found.append(t)
    return found


def find_row(tables, label, mode="exact"):
    for t in tables:
        for r in t.rows:
            if not r:
                continue
            first = r[0]
            if (mode == "exact" and first == label) or \
               (mode == "prefix" and first.startswith(label)) or \
               (mode == "contains" and label in first):
                return t, r
    return None, None


def value(tables, label, column, mode="exact", **where):
    """The cell of the row labelled `label` in the column `column` of a table matching `where`."""
    ts = find_tables(tables, has_column=column, **where)
    t, r = find_row(ts, label, mode)
    if t is None:
        return None
    i = t.column(column)
    if i is None or i >= len(r) or r[i] == "":
        return None
    return r[i]


# ---------------------------------------------------------------- formatting

def number(s):
    """The numeric value of a printed figure ('1.02×', '1.61 s', '14 897'), or None."""
    if s is None:
        return None
    m = re.search(r"-?\d[\d ]*(?:\.\d+)?", s)
    if not m:
        return None
    try:
        return Decimal(m.group(0).replace(" ", ""))
    except InvalidOperation:
        return None


def bare(s, unit):
    """The printed figure without its unit ('1.61 s' -> '1.61', '0.98×' -> '0.98')."""
    if s is None:
        return None
    s = s.strip()
    if unit and s.endswith(unit):
        s = s[: -len(unit)].strip()
    return s


def listing(values, unit="", sep=", "):
    """'a, b, c' + unit in run order ('a×, b×' for ratios), '?' for a missing one; all missing -> '?'."""
    if all(v is None for v in values):
        return MISSING
    if unit == "×":  # the doc repeats the sign on every ratio: "0.98×, 0.98×, 0.97×"
        return sep.join(MISSING if v is None else bare(v, unit) + unit for v in values)
    return sep.join(MISSING if v is None else bare(v, unit) for v in values) + unit


def span(values, unit="", thousands=False):
    """'min–max' + unit of the printed strings (one value if they are equal)."""
    present = [v for v in values if v is not None and number(v) is not None]
    if not present:
        return MISSING
    lo = min(present, key=number)
    hi = max(present, key=number)
    if thousands:
        lo_s, hi_s = grouped(number(lo)), grouped(number(hi))
    else:
        lo_s, hi_s = bare(lo, unit), bare(hi, unit)
    out = lo_s + unit if number(lo) == number(hi) else f"{lo_s}–{hi_s}{unit}"
    if len(present) < len(values):
        out += f" ({len(present)} of {len(values)} runs)"
    return out


def grouped(d):
    """14897 -> '14 897' (the doc's thousands separator is a plain space)."""
    if d == d.to_integral_value():
        return f"{int(d):,}".replace(",", " ")
    return str(d)


def ms(us):
    d = number(us)
    if d is None:
        return None
    return str((d / 1000).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def whole(d):
    return str(d.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


# ---------------------------------------------------------------- the figures of one folder

def runs(folder, stem, count):
    return [load_tables(folder, f"{stem}-{i}") for i in range(1, count + 1)]


def health_echo(folder):
    vals = [value(t, "sous health over CURVE, blocking client", "p50 ÷ baseline")
            for t in runs(folder, "rpc", 3)]
    return listing(vals, "×")


def health_inproc(folder):
    vals = [value(t, "sous health over inproc, blocking client", "p50 ÷ baseline")
            for t in runs(folder, "rpc", 3)]
    return listing(vals, "×")


def codec(folder):
    p50s, ratios = [], []
    for t in runs(folder, "codec", 2):
        p50s.append(value(t, "MessagePack encode+decode", "p50 µs", mode="prefix"))
        ratios.append(value(t, "MessagePack encode+decode", "p50 ÷ baseline", mode="prefix"))
    distinct = []
    for r in ratios:
        if r is not None and r not in distinct:
            distinct.append(r)
    ratio = MISSING if not distinct else ", ".join(distinct)
    if len(distinct) == 1 and any(r is None for r in ratios):
        ratio = listing(ratios, "×")
    return f"{listing(p50s, ' µs')}; {ratio}"


def groceries_list(folder):
    vals = [value(t, "(groceries.list)", "p50 ÷ baseline", mode="contains")
            for t in runs(folder, "groceries", 2)]
    return listing(vals, "×")


def add_recipe(folder):
    ratios, p50s, writes = [], [], []
    for t in runs(folder, "groceries", 2):
        ratios.append(value(t, "add one recipe (catalog lookup", "p50 ÷ baseline", mode="prefix"))
        p50s.append(value(t, "add one recipe (catalog lookup", "p50 µs", mode="prefix"))
        writes.append(value(t, "the add's write on the store alone", "p50 µs", mode="prefix"))
    return (f"{listing(ratios, '×')} ({listing(p50s, ' µs')}; "
            f"the write alone {listing(writes, ' µs')})")


def plan_get(folder):
    vals = [value(t, "plan.get", "p50 ÷ baseline", mode="prefix")
            for t in runs(folder, "planner", 2)]
    return listing(vals, "×")


def reminders(folder):
    vals = [value(t, "up (one diary.statuses", "due → all published", mode="prefix")
            for t in runs(folder, "notifier", 3)]
    return listing(vals, " s")


def catalog_p99(folder, label):
    vals = [ms(value(t, label, "p99 µs")) for t in runs(folder, "catalog", 2)]
    return listing(vals, " ms")


def one_client(folder, label, mode):
    vals = []
    for t in runs(folder, "throughput", 3):
        # the one-client table: the "p50 ÷ baseline" table whose baseline row is `health` alone
        ts = [x for x in find_tables(t, has_column="p50 ÷ baseline")
              if any(r and r[0] == "`health` (baseline)" for r in x.rows)]
        tt, r = find_row(ts, label, mode)
        i = tt.column("p50 ÷ baseline") if tt else None
        vals.append(r[i] if r and i is not None and i < len(r) else None)
    return span(vals, "×")


def fifty_clients(folder):
    vals = [value(t, "default search", "answered calls/s", header_first="load")
            for t in runs(folder, "throughput", 3)]
    return span(vals, thousands=True)


def memory(folder):
    rss, pss, total, alone, server, used = [], [], [], [], [], []
    missing_runs = 0
    for t in runs(folder, "throughput", 3):
        together = find_tables(t, has_column="PSS MiB")
        if not together:
            missing_runs += 1
        for tt in together[:1]:
            ri, pi = tt.column("VmRSS MiB"), tt.column("PSS MiB")
            for r in tt.rows:
                if not r:
                    continue
                if r[0].startswith("sous-"):
                    if ri is not None and ri < len(r) and number(r[ri]) is not None:
                        rss.append(r[ri])
                    if pi is not None and pi < len(r) and number(r[pi]) is not None:
                        pss.append(r[pi])
                elif r[0] == "all five" and pi is not None and pi < len(r):
                    total.append(r[pi] if number(r[pi]) is not None else None)
                elif r[0].startswith("`sous-server all`") and ri is not None and ri < len(r):
                    server.append(r[ri] if number(r[ri]) is not None else None)
        for tt in find_tables(t, has_column="of which its own")[:1]:
            ri, ui = tt.column("VmRSS MiB"), tt.column("used in the next")
            for r in tt.rows:
                if r and r[0].startswith("sous-") and ri is not None and ri < len(r) \
                        and number(r[ri]) is not None:
                    alone.append(r[ri])
                if r and r[0].startswith("sous-") and ui is not None and ui < len(r) \
                        and number(r[ui]) is not None:
                    used.append(r[ui])
    if not rss and not pss and not alone:
        return MISSING
    if rss:
        lo, hi = min(map(number, rss)), max(map(number, rss))
        rss_s = f"{whole(lo)}–{whole(hi)} MiB (together {span(rss)}"
    else:
        rss_s = f"? MiB (together ?"
    rss_s += f"; each alone {span(alone)})" if alone else "; each alone ?)"
    note = f" [{missing_runs} of 3 runs without the table]" if missing_runs else ""
    # The working set (pages used while idle), from runs that measured it.
    used_s = f"; used while idle {span(used)} MiB each" if used else ""
    return (f"{rss_s}; PSS {span(pss)} MiB each ({span(total)} in all); "
            f"`sous-server all` {span(server)} MiB{used_s}{note}")


def peers(folder, which, stack):
    """which: 0 = name search, 1 = fully filtered search; stack: 'HTTP' or 'gRPC'."""
    keys = ("name search", "fully filtered")
    vals = []
    for t in runs(folder, "peers", 3):
        ts = find_tables(t, header_first="stack", has_column="p50 ÷ Sous blocking")
        named = [x for x in ts if keys[which] in x.heading.lower()]
        if not named and len(ts) == 2 and not any(x.heading for x in ts):
            named = [ts[which]]  # from summary.txt: no headings, the tables in their order
        tt, r = find_row(named[:1], stack, mode="prefix")
        i = tt.column("p50 ÷ Sous blocking") if tt else None
        vals.append(r[i] if r and i is not None and i < len(r) else None)
    return span(vals, "×")


TARGETS = [
    ("`health` ÷ CURVE echo, ≤ 1.3×", health_echo),
    ("(no target) without CURVE: `health` ÷ echo, both over inproc", health_inproc),
    ("codec encode+decode ≤ 15 µs, ≤ 0.15× JSON", codec),
    ("`groceries.list` ÷ `health`, ≤ 8×", groceries_list),
    ("`groceries.addRecipe` ÷ `health`, ≤ 10×", add_recipe),
    ("`plan.get` ÷ `health`, ≤ 3×", plan_get),
    ("100 000 reminders due, tracker up, ≤ 3 s", reminders),
    ("fully filtered search p99, 100 000 recipes, ≤ 5 ms",
     lambda f: catalog_p99(f, "fully filtered search over the socket")),
    ("name search p99, 100 000 recipes, ≤ 5 ms, ranked",
     lambda f: catalog_p99(f, "name search over the socket")),
    ("`recipes.get` ÷ `health`, one client, ≤ 1.5×",
     lambda f: one_client(f, "`recipes.get`", "prefix")),
    ("default search ÷ `health`, one client, ≤ 2×",
     lambda f: one_client(f, "default `recipes.search`", "exact")),
    ("50 clients, default search, ≥ 3 000 calls/s", fifty_clients),
    ("idle RSS per service, ≤ 15 MiB", memory),
    ("HTTP ÷ Sous, name search, ≥ 5×", lambda f: peers(f, 0, "HTTP")),
    ("gRPC ÷ Sous, name search, ≥ 10×", lambda f: peers(f, 0, "gRPC")),
    ("HTTP ÷ Sous / gRPC ÷ Sous, filtered search",
     lambda f: f"{peers(f, 1, 'HTTP')} / {peers(f, 1, 'gRPC')}"),
]


def machine(folder):
    try:
        with open(os.path.join(folder, "machine.txt"), encoding="utf-8", errors="replace") as f:
            lines = [l.rstrip("\n") for l in f]
    except OSError:
        return MISSING, MISSING, ""
    date = lines[0].strip() if len(lines) > 0 and lines[0].strip() else MISSING
    commit = lines[1].strip() if len(lines) > 1 and re.fullmatch(r"[0-9a-f]{4,40}", lines[1].strip()) \
        else MISSING
    dirty = [l.strip() for l in lines[2:] if l.strip() and not re.match(r"(CPU\(s\)|Model name):", l)]
    cpu = "; ".join(re.sub(r"\s+", " ", l.strip()) for l in lines[2:]
                    if re.match(r"(CPU\(s\)|Model name):", l))
    extra = cpu + (f"; uncommitted: {', '.join(dirty)}" if dirty else "")
    return date, commit, extra


def safe(fn, folder):
    try:
        return fn(folder)
    except Exception as e:  # a malformed file must not stop the other cells
        return f"? ({type(e).__name__})"


def main(argv):
    folders = argv[1:]
    if not folders:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    for folder in folders:
        date, commit, extra = machine(folder)
        print(f"- {os.path.basename(os.path.normpath(folder))}: {date}, commit {commit}"
              + (f" ({extra})" if extra else ""))
    print()
    names = [os.path.basename(os.path.normpath(f)) for f in folders]
    heads = []
    for folder, name in zip(folders, names):
        _, commit, _ = machine(folder)
        heads.append(f"{name} ({commit})")
    print("| target | " + " | ".join(heads) + " |")
    print("|---|" + "---|" * len(folders))
    for label, fn in TARGETS:
        row = [safe(fn, folder).replace("|", "\\|") for folder in folders]
        print(f"| {label} | " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
