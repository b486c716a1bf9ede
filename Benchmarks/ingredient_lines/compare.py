#!/usr/bin/env python3
"""Scores ingredient-line parsers against the labelled lines of lines.tsv, in one run.

    python3 Benchmarks/ingredient_lines/compare.py [--sous CMD] [--lines PATH]
                                                   [--show-misses N] [--by-tag]

Parsers:
  ingredient-slicer  the PyPI package `ingredient-slicer` (1.2.21), in this process. Installed
                     with `python3 -m pip install --break-system-packages ingredient-slicer==1.2.21`
                     when it is missing.
  sous               only with --sous CMD: a shell command that reads ingredient lines on stdin, one
                     per line, and writes one JSON object per line on stdout, in the same order:
                     {"quantity": number|null, "unit": string|null, "food": string|null}.
                     All lines go through ONE invocation; its wall time (process start included)
                     is divided by the number of lines.

A line is "fully right" when all three are right:
  quantity  both empty, or both present and equal within 0.01;
  unit      the parser's unit word, mapped through UNIT_MAP below into the vocabulary of
            lines.tsv, equals the label (both empty counts as equal);
  food      normalize_food(parser food) == normalize_food(label food), or equal once spaces are
            removed; see normalize_food and same_food.

Prints a Markdown table (parser, fully right %, quantity %, unit %, food %, µs per line, lines);
--show-misses N adds the first N lines each parser did not get fully right, with what it read and
the truth; --by-tag adds fully-right % per note tag (tags on at least 10 lines).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import unicodedata
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
SLICER_VERSION = "1.2.21"

VOCABULARY = {
    "g", "kg", "ml", "l", "tsp", "tbsp", "cup", "oz", "lb", "fl oz", "pint", "quart", "gallon",
    "piece", "can", "jar", "pack", "clove", "slice", "sprig", "bunch", "handful", "pinch", "dash",
    "stick", "head", "knob",
}

# The one mapping table: a parser's unit word (lowercased, dots removed, spaces collapsed) to the
# vocabulary. It holds Sous's unit names (ParsedUnit raw values: g, kg, mg, ml, cl, dl, l, tsp, tbsp,
# cup, pint, quart, gallon, "fl oz", oz, lb, pinch, can, bunch, clove, slice, stick, piece),
# ingredient-slicer's standardized unit names (gram, tablespoon, fluid ounce, package, ...) and the
# usual written spellings. A word not in the table is kept as it is (lowercased), and so only
# counts as right if it already is the label's unit. mg, cl and dl stay themselves: the
# vocabulary has no such unit and no label uses one.
UNIT_MAP = {}


def _units(target, *spellings):
    for spelling in (target,) + spellings:
        UNIT_MAP[spelling] = target


_units("g", "gram", "grams", "gramme", "grammes", "gr", "grm", "grms", "gs")
_units("kg", "kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos", "kgs")
_units("ml", "milliliter", "milliliters", "millilitre", "millilitres", "mls")
_units("l", "liter", "liters", "litre", "litres", "lt", "ltr", "ltrs")
_units("tsp", "teaspoon", "teaspoons", "tsps", "tspn", "tspns", "ts", "t", "teaspoonful", "teaspoonfuls")
_units("tbsp", "tablespoon", "tablespoons", "tbsps", "tbs", "tbl", "tbls", "tblsp", "tablespoonful", "tablespoonfuls")
_units("cup", "cups", "c", "cupful", "cupfuls")
_units("oz", "ounce", "ounces", "ozs", "onz")
_units("lb", "pound", "pounds", "lbs")
_units("fl oz", "fluid ounce", "fluid ounces", "fl ozs", "fluid oz", "fluid ozs", "floz")
_units("pint", "pints", "pt", "pts")
_units("quart", "quarts", "qt", "qts")
_units("gallon", "gallons", "gal", "gals")
_units("piece", "pieces", "pc", "pcs", "whole", "count", "each",
       # count words that stand for one whole thing (a rasher is a slice, see below)
       "ear", "ears", "sheet", "sheets", "fillet", "fillets", "filet", "filets", "breast", "breasts",
       "thigh", "thighs", "drumstick", "drumsticks", "wing", "wings", "leg", "legs", "cutlet", "cutlets",
       "steak", "steaks", "chop", "chops", "link", "links", "loaf", "loaves", "bun", "buns",
       "roll", "rolls", "patty", "patties", "tenderloin", "tenderloins", "tender", "tenders",
       "cheek", "cheeks", "leaf", "leaves", "pod", "pods", "cube", "cubes")
_units("can", "cans", "tin", "tins", "canful", "canfuls")
_units("jar", "jars", "jarful", "jarfuls")
_units("pack", "packs", "packet", "packets", "package", "packages", "pkg", "pkgs", "sachet", "sachets",
       "envelope", "envelopes", "bag", "bags", "box", "boxes", "carton", "cartons", "tub", "tubs",
       "punnet", "punnets", "block", "blocks")
_units("clove", "cloves")
_units("slice", "slices", "rasher", "rashers")
_units("sprig", "sprigs")
_units("bunch", "bunches")
_units("handful", "handfuls", "handfull", "handfulls")
_units("pinch", "pinches", "pinchful", "pinchfuls")
_units("dash", "dashes")
_units("stick", "sticks", "stalk", "stalks", "rib", "ribs")
_units("head", "heads", "bulb", "bulbs")
_units("knob", "knobs")
# Sous units outside the vocabulary: kept as they are (never equal to a label).
for _kept in ("mg", "cl", "dl"):
    UNIT_MAP[_kept] = _kept
# Words that mean "no amount": no unit.
for _none in ("to taste", "a taste", "as needed", "as required"):
    UNIT_MAP[_none] = None


def map_unit(word):
    """A parser's unit word in the vocabulary (None for no unit)."""
    if word is None:
        return None
    text = str(word)
    if text in ("T", "T."):  # the old cookbook convention: capital T is the tablespoon
        return "tbsp"
    key = re.sub(r"\s+", " ", text.replace(".", "")).strip().lower()
    if not key:
        return None
    return UNIT_MAP.get(key, key)


# ---- food normalization -------------------------------------------------------------------------

# Irregular last words (checked first), then the rules of singular_word.
IRREGULAR = {
    "leaves": "leaf", "loaves": "loaf", "halves": "half", "knives": "knife", "calves": "calf",
    "cookies": "cookie", "brownies": "brownie", "pies": "pie", "chillies": "chilli", "chilies": "chili",
    "geese": "goose", "teeth": "tooth",
}


def singular_word(word):
    """Singular of one word by a small rule set (the same rules apply to labels and parser output,
    so a rule only has to map a plural to what it maps the singular to)."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"  # berries, anchovies, fries
    if word.endswith("oes"):
        return word[:-2]  # tomatoes, potatoes, mangoes
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]  # peaches, radishes, boxes
    if word.endswith("s"):
        return word[:-1]
    return word


def normalize_food(text):
    """Lowercase; accents dropped (NFKD); "&" read as "and"; apostrophes removed
    (confectioners' → confectioners, za'atar → zaatar); every other punctuation mark, hyphens
    included, a space; spaces collapsed; the last word made singular (singular_word)."""
    if text is None:
        return ""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower().replace("&", " and ")
    text = re.sub(r"['’‘`]", "", text)
    text = re.sub(r"[^\w\s]|_", " ", text)
    words = text.split()
    if not words:
        return ""
    words[-1] = singular_word(words[-1])
    return " ".join(words)


def same_food(read, label):
    """The food is right when the normalized forms are equal, or equal once their spaces are
    removed: "semi-skimmed milk" read as "semiskimmed milk" (a parser that deletes hyphens) or
    "semi skimmed milk" matches either way, while the label keeps the line's own spelling."""
    a, b = normalize_food(read), normalize_food(label)
    return bool(a) and (a == b or a.replace(" ", "") == b.replace(" ", ""))


def to_number(value):
    """A quantity as a float: numbers, "1.5", "3/4", "1 1/2"; None otherwise."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return float(sum(Fraction(part) for part in text.split()))
    except (ValueError, ZeroDivisionError):
        return None


# ---- the labelled lines -------------------------------------------------------------------------

def load_lines(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if header[:4] != ["line", "quantity", "unit", "food"]:
            sys.exit(f"{path}: header must start with line, quantity, unit, food (got {header})")
        for number, raw in enumerate(f, start=2):
            cells = raw.rstrip("\n").split("\t")
            if len(cells) < 4:
                sys.exit(f"{path}:{number}: fewer than 4 columns")
            line, quantity, unit, food = cells[:4]
            notes = cells[4] if len(cells) > 4 else ""
            rows.append({
                "line": line,
                "quantity": float(quantity) if quantity else None,
                "unit": unit or None,
                "food": food,
                "tags": [t.strip() for t in notes.split(";") if t.strip()],
            })
    return rows


# ---- the parsers --------------------------------------------------------------------------------

def import_slicer():
    try:
        import ingredient_slicer  # noqa: F401
    except ImportError:
        print(f"ingredient-slicer missing: installing ingredient-slicer=={SLICER_VERSION}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--break-system-packages",
                        f"ingredient-slicer=={SLICER_VERSION}"], check=True)
    import ingredient_slicer
    return ingredient_slicer


# A cut that ingredient-slicer reads as the unit ("4 chicken breasts": unit "breasts", food
# "chicken"): the word is put back at the end of its food, where the labels have it.
SLICER_CUT_UNITS = {"breast", "thigh", "drumstick", "wing", "leg", "fillet", "filet", "cutlet",
                    "tenderloin", "tender", "cheek"}


def slicer_reading(module, line):
    """(quantity, unit, food) from ingredient-slicer's parse of `line`.

    Fields used: `quantity` (its standardized number: ranges are already averaged, words such as
    "a"/"one"/"couple" already turned into numbers, and a weight found in brackets already swapped
    in as the primary quantity/unit), `standardized_unit` (its canonical unit name, falling back to
    `unit`), and `food` (its cleaned food words). Mapping, for fairness:
      * the unit goes through UNIT_MAP like every parser's; its "food units" (onion, egg, ...:
        a count of that food) and cut units (breast, thigh, fillet, ...) mean piece;
      * a quantity with no unit (it leaves plain counts such as "2 carrots" without one) is a
        count: piece; a unit with no quantity (it reads "olive oil, for frying" as unit "olive")
        is no unit;
      * a cut word it took as the unit and dropped from the food is put back after the food.
    """
    parsed = module.IngredientSlicer(line)
    data = parsed.to_json()
    quantity = to_number(data.get("quantity"))
    raw_unit = data.get("unit")
    standard = data.get("standardized_unit") or raw_unit
    food = data.get("food") or None
    unit = map_unit(standard)
    food_units = getattr(module, "FOOD_UNITS", {}) or {}
    if unit not in VOCABULARY and (standard in food_units or standard in SLICER_CUT_UNITS):
        unit = "piece"
        if standard in SLICER_CUT_UNITS and raw_unit and food and raw_unit.lower() not in food.lower():
            food = f"{food} {raw_unit}"
    if quantity is None:
        unit = None
    elif unit is None:
        unit = "piece"
    return quantity, unit, food


def run_slicer(rows):
    module = import_slicer()
    version = getattr(module, "version", "?")
    readings = []
    errors = 0
    start = time.perf_counter()
    for row in rows:
        try:
            readings.append(slicer_reading(module, row["line"]))
        except Exception:  # a crash on a line is a miss on that line
            errors += 1
            readings.append((None, None, None))
    elapsed = time.perf_counter() - start
    return f"ingredient-slicer {version}", readings, elapsed, errors


def run_sous(command, rows):
    text = "".join(row["line"] + "\n" for row in rows)
    start = time.perf_counter()
    done = subprocess.run(command, shell=True, input=text.encode("utf-8"), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stderr.decode("utf-8", "replace"))
        sys.exit(f"--sous command exited {done.returncode}")
    out = [l for l in done.stdout.decode("utf-8").split("\n") if l.strip()]
    if len(out) != len(rows):
        sys.exit(f"--sous command wrote {len(out)} JSON lines for {len(rows)} ingredient lines")
    readings = []
    errors = 0
    for number, raw in enumerate(out, start=1):
        try:
            obj = json.loads(raw)
            if not isinstance(obj, dict):
                raise ValueError("not an object")
            readings.append((to_number(obj.get("quantity")), map_unit(obj.get("unit")), obj.get("food")))
        except ValueError as error:
            errors += 1
            print(f"sous output line {number}: {error}: {raw[:120]!r}", file=sys.stderr)
            readings.append((None, None, None))
    return "sous", readings, elapsed, errors


# ---- scoring ------------------------------------------------------------------------------------

def judge(row, reading):
    quantity, unit, food = reading
    if row["quantity"] is None or quantity is None:
        quantity_ok = row["quantity"] is None and quantity is None
    else:
        quantity_ok = abs(row["quantity"] - quantity) <= 0.01
    unit_ok = (row["unit"] or None) == (unit or None)
    food_ok = same_food(food, row["food"])
    return quantity_ok, unit_ok, food_ok


def percent(part, whole):
    return f"{100.0 * part / whole:.1f}" if whole else "-"


def show(value):
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def main():
    parser = argparse.ArgumentParser(description="Score ingredient-line parsers on lines.tsv.")
    parser.add_argument("--sous", metavar="CMD", help="shell command: lines on stdin, JSON objects on stdout")
    parser.add_argument("--lines", metavar="PATH", default=os.path.join(HERE, "lines.tsv"))
    parser.add_argument("--show-misses", metavar="N", type=int, default=0)
    parser.add_argument("--by-tag", action="store_true", help="fully-right %% per note tag")
    args = parser.parse_args()

    rows = load_lines(args.lines)
    runs = []
    if args.sous:
        runs.append(run_sous(args.sous, rows))
    runs.append(run_slicer(rows))

    results = []
    for name, readings, elapsed, errors in runs:
        verdicts = [judge(row, reading) for row, reading in zip(rows, readings)]
        results.append((name, readings, verdicts, elapsed, errors))

    print(f"{len(rows)} lines from {os.path.relpath(args.lines)}\n")
    print("| parser | fully right % | quantity % | unit % | food % | µs per line | lines |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, readings, verdicts, elapsed, errors in results:
        n = len(verdicts)
        full = sum(1 for v in verdicts if all(v))
        q = sum(1 for v in verdicts if v[0])
        u = sum(1 for v in verdicts if v[1])
        f = sum(1 for v in verdicts if v[2])
        print(f"| {name} | {percent(full, n)} | {percent(q, n)} | {percent(u, n)} | {percent(f, n)} "
              f"| {1e6 * elapsed / n:.0f} | {n} |")
    for name, _, _, _, errors in results:
        if errors:
            print(f"\n{name}: {errors} lines raised or gave unreadable output (scored as misses)")

    if args.by_tag:
        counts = {}
        for row in rows:
            for tag in row["tags"]:
                counts[tag] = counts.get(tag, 0) + 1
        tags = sorted((t for t, c in counts.items() if c >= 10), key=lambda t: (-counts[t], t))
        print("\nFully right % by note tag (tags on 10 lines or more):\n")
        print("| tag | lines | " + " | ".join(r[0] for r in results) + " |")
        print("|---|---:|" + "---:|" * len(results))
        for tag in tags:
            cells = []
            for _, _, verdicts, _, _ in results:
                picked = [all(v) for row, v in zip(rows, verdicts) if tag in row["tags"]]
                cells.append(percent(sum(picked), len(picked)))
            print(f"| {tag} | {counts[tag]} | " + " | ".join(cells) + " |")

    if args.show_misses > 0:
        for name, readings, verdicts, _, _ in results:
            misses = [(row, reading, verdict) for row, reading, verdict in zip(rows, readings, verdicts)
                      if not all(verdict)]
            print(f"\n### {name}: first {min(args.show_misses, len(misses))} of {len(misses)} misses\n")
            for row, (quantity, unit, food), (q_ok, u_ok, f_ok) in misses[:args.show_misses]:
                wrong = ", ".join(w for w, ok in (("quantity", q_ok), ("unit", u_ok), ("food", f_ok)) if not ok)
                print(f"- `{row['line']}` — read {show(quantity)} | {show(unit)} | {show(food)}; "
                      f"truth {show(row['quantity'])} | {show(row['unit'])} | {row['food']} ({wrong} wrong)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
