#!/usr/bin/env python3
"""Self-check of lines.tsv: the shape of every row, and the balance of the set.

    python3 Benchmarks/ingredient_lines/check_labels.py [--lines PATH | PATH]

Asserts, for every row: 5 tab-separated columns; a non-empty line; a quantity that is empty or
parses as a float (>= 0); a unit that is empty or in the vocabulary; a non-empty lowercase food;
no empty quantity with a unit, nor a quantity without one; no line twice. Prints the balance
counts the README quotes and exits 1 on any failure (each failing row is printed).

The balance floors (at least 1000 rows, 150 without quantity, ...) are lines.tsv's and are asserted
only for it; another set given with --lines (fresh.tsv) gets the same row checks and the same
printed counts, without the floors.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VOCABULARY = {
    "g", "kg", "ml", "l", "tsp", "tbsp", "cup", "oz", "lb", "fl oz", "pint", "quart", "gallon",
    "piece", "can", "jar", "pack", "clove", "slice", "sprig", "bunch", "handful", "pinch", "dash",
    "stick", "head", "knob",
}
UNICODE_FRACTIONS = "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞⁄"
FRACTION = re.compile(r"\d\s*/\s*\d|[" + UNICODE_FRACTIONS + "]")
RANGE = re.compile(r"(\d|[" + UNICODE_FRACTIONS + r"])\s*(-|–|to|or)\s*(\d|[" + UNICODE_FRACTIONS + "])")
MIXED_HYPHEN = re.compile(r"\d-\d/\d")  # "1-1/2" is a mixed number, not a range


def main():
    default = os.path.join(HERE, "lines.tsv")
    parser = argparse.ArgumentParser(description="Self-check of a labelled ingredient-line set.")
    parser.add_argument("path", nargs="?", help="the set to check (default lines.tsv)")
    parser.add_argument("--lines", metavar="PATH", help="the set to check (default lines.tsv)")
    args = parser.parse_args()
    if args.path and args.lines and os.path.abspath(args.path) != os.path.abspath(args.lines):
        parser.error("give the set once: PATH or --lines PATH")
    path = args.lines or args.path or default
    failures = []
    seen = set()
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if header != ["line", "quantity", "unit", "food", "notes"]:
            failures.append(f"header: {header}")
        for number, raw in enumerate(f, start=2):
            cells = raw.rstrip("\n").split("\t")
            if len(cells) != 5:
                failures.append(f"{number}: {len(cells)} columns: {raw!r}")
                continue
            line, quantity, unit, food, notes = cells
            if not line.strip() or line != line.strip():
                failures.append(f"{number}: empty line or outer spaces: {line!r}")
            if line in seen:
                failures.append(f"{number}: line twice: {line!r}")
            seen.add(line)
            if quantity:
                try:
                    if float(quantity) < 0:
                        failures.append(f"{number}: negative quantity {quantity!r}")
                except ValueError:
                    failures.append(f"{number}: quantity {quantity!r} is not a number")
            if unit and unit not in VOCABULARY:
                failures.append(f"{number}: unit {unit!r} not in the vocabulary")
            if bool(quantity) != bool(unit):
                failures.append(f"{number}: quantity {quantity!r} and unit {unit!r} must be both set or both empty")
            if not food.strip():
                failures.append(f"{number}: empty food")
            elif food != food.lower() or food != food.strip():
                failures.append(f"{number}: food {food!r} not lowercase/trimmed")
            rows.append((line, quantity, unit, food, notes))

    tags = lambda notes: {t.strip() for t in notes.split(";") if t.strip()}
    no_quantity = sum(1 for r in rows if not r[1])
    count_only = sum(1 for r in rows if r[2] == "piece")
    fraction_or_range = sum(1 for r in rows if FRACTION.search(r[0]) or (RANGE.search(r[0]) and not MIXED_HYPHEN.search(r[0]))
                            or "range" in tags(r[4]))
    ranges = sum(1 for r in rows if "range" in tags(r[4]))
    sized = sum(1 for r in rows if tags(r[4]) & {"bracket weight wins", "sized can", "sized pack"})
    bracket_weight = sum(1 for r in rows if "bracket weight wins" in tags(r[4]))
    prep_after = sum(1 for r in rows if "prep after food" in tags(r[4]))
    british = sum(1 for r in rows if "british name" in tags(r[4]))
    us = sum(1 for r in rows if "us name" in tags(r[4]))
    units = {}
    for r in rows:
        units[r[2] or "(none)"] = units.get(r[2] or "(none)", 0) + 1

    print(f"rows: {len(rows)}")
    print(f"no quantity (and so no unit): {no_quantity}")
    print(f"a count with no unit word (unit piece): {count_only}")
    print(f"  either of the two: {no_quantity + count_only}")
    print(f"fractions, unicode fractions or ranges: {fraction_or_range} (ranges: {ranges})")
    print(f"bracketed weights or sized cans/packs: {sized} (bracket weight wins: {bracket_weight})")
    print(f"preparation words after the food: {prep_after}")
    print(f"British-named foods: {british} (US-named: {us})")
    print("units: " + ", ".join(f"{u} {n}" for u, n in sorted(units.items(), key=lambda x: -x[1])))
    checks = [
        (len(rows) >= 1000, "at least 1000 rows"),
        (no_quantity + count_only >= 150 and no_quantity >= 150, "at least 150 without quantity"),
        (fraction_or_range >= 100, "at least 100 fractions/ranges"),
        (sized >= 80, "at least 80 bracketed weights or sized packs"),
        (prep_after >= 100, "at least 100 with preparation after the food"),
        (british >= 60, "at least 60 British-named foods"),
    ]
    # The floors describe lines.tsv; another set is checked row by row only.
    if os.path.abspath(path) != os.path.abspath(default):
        checks = []
    for ok, what in checks:
        if not ok:
            failures.append(f"balance: not {what}")
    for failure in failures:
        print("FAIL", failure)
    print("ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
