#!/usr/bin/env python3
"""Gives every shop-bought ingredient of the shipped catalog the packs a shop sells it in.

    python3 Tools/catalog/pack_sizes.py           # rewrite Seed/ingredients.json in place
    python3 Tools/catalog/pack_sizes.py --list    # only print each ingredient's packs

It rewrites Services/Catalog/CatalogService/Seed/ingredients.json, adding to each ingredient
that has a `price` and is not `"bought": false` (tap water) a field `packs`, right after
`price`:

    "packs": [{"quantity": 500, "unit": "g", "price": 1.45}, {"quantity": 1, "unit": "kg", ...}]

Sizes. RULES below is a table read top to bottom: the first row whose category matches (None:
any), whose sizes are in the family of the ingredient's price (per kg: g/kg, per l: ml/l, per
piece: pieces) and one of whose keywords is a word of the ingredient's name or id (a keyword may
take a plural "s"/"es"; case and accents ignored) gives the sizes. OVERRIDES (by id) come first,
for ingredients a row gets wrong. An ingredient no row matches stops the script, so a new
ingredient gets a deliberate size. A size is "<quantity> <unit>" (g, kg, ml, l, piece(s)), or
"<n> whole": n of the ingredient's catalogued piece weight (gramsPerPiece), in whole grams, for
produce sold one at a time by weight (a cabbage, a squash) and steaks. 1 to 3 sizes an
ingredient, smallest first, each a whole number of g, ml or pieces, at most 100 kg, 100 l or
1000 pieces. In short: spices 50 g and dried herbs 30 g jars; salt 500 g and 1 kg; flour 1 kg
and 2.5 kg; sugar 1 kg; rice, pasta, grains, dry pulses 500 g and 1 kg; tins 400 g and 800 g;
oils 500 ml / 1 l (olive oil also 750 ml); vinegar 500 ml; milk 1 l; cream 200 ml; yoghurt 150 g
and 500 g; butter 250 g; cheese 150 g and 250 g; meat and fish 300-500 g trays and 1 kg; fresh
herbs 20-30 g; loose produce 500 g and 1 kg (potatoes, carrots: 1 kg and 2.5 kg nets); eggs 6
and 12; fruit and vegetables priced by the piece 1 piece and a net; brewed coffee and tea as the
drink a bag or box makes.

Prices. A pack costs the ingredient's price x the pack's amount in the price's unit x a pack
factor, PACK_FACTORS by position: the smallest pack 1.0, the next 0.95, the largest 0.9. So a
larger pack is never dearer per unit, and (sizes at least 1.06 times apart) always dearer in
total. Rounded half up to cents; at least 0.05 EUR. The script checks all of this before it
writes and stops if a rule breaks it.

Idempotent. Packs are computed from scratch each run (existing `packs` are replaced, and removed
from an ingredient without a price or not bought), so a second run finds nothing to change and
leaves the file alone. Only when something changes is
`version` set to PACKS_VERSION, the catalog version that brings pack sizes (the catalog reloads
its seed when the file's version is newer than the database's); a version already at or above
it is kept. If you change the rules after the file reached PACKS_VERSION, raise PACKS_VERSION
too so that running catalogs pick the new packs up (the script warns). The `note` gets one clause
saying pack sizes and pack prices are illustrative too (added once). The file is written the way
it is stored (2-space indent, UTF-8 not escaped, trailing newline), so `git diff` shows only the
`packs` blocks, the version and the note; the script refuses to run if the file would not
round-trip byte for byte.

Standard library only.
"""

import json
import os
import re
import sys
import unicodedata
from decimal import ROUND_HALF_UP, Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = os.path.join(HERE, "..", "..", "Services", "Catalog", "CatalogService", "Seed", "ingredients.json")

PACKS_VERSION = 4
PACK_FACTORS = (Decimal("1.0"), Decimal("0.95"), Decimal("0.9"))
NOTE_OLD = "Prices are illustrative approximations in EUR, not quotes."
NOTE_NEW = "Prices are illustrative approximations in EUR, not quotes, and so are pack sizes and pack prices."

# Category names as the file spells them.
PRODUCE, DAIRY, MEAT = "Produce", "Dairy Products", "Meat & Deli"
BREADS, BREAKFAST, CANNED = "Breads & Grains", "Breakfast", "Canned Goods"
SAUCES, SNACKS, BAKING, OTHER = "Sauces & Condiments", "Snacks & Drinks", "Baking & Seasonings", "Other"

# (category or None, keywords separated by "|", sizes, why). First match wins; see the docstring.
RULES = [
    # --- Produce priced per kg --------------------------------------------------------------
    (PRODUCE, "cherry tomato", "250 g, 500 g", "punnets"),
    (PRODUCE, "sweet potato", "500 g, 1 kg", "loose by weight, a bag"),
    (PRODUCE, "potato|carrot", "1 kg, 2.5 kg", "nets"),
    (PRODUCE, "ginger", "100 g, 250 g", "a root, a bag"),
    (PRODUCE, "celery", "500 g", "a head of celery"),
    (PRODUCE, "watermelon", "1.5 kg, 4 kg", "a quarter, a whole melon"),
    (PRODUCE, "lambs lettuce|salad leaves|rocket|watercress", "100 g, 200 g", "salad bags"),
    (PRODUCE, "spinach", "200 g, 400 g", "bags of baby spinach"),
    (PRODUCE, "kale", "200 g, 500 g", "bags"),
    (PRODUCE, "chard", "400 g", "a bunch"),
    (PRODUCE, "celeriac|cabbage|cauliflower|broccoli|squash|pumpkin|lettuce|radicchio|kohlrabi|fennel|"
     "melon|pineapple", "1 whole", "sold one at a time: one of the catalogued piece weight"),
    (PRODUCE, "green beans", "250 g, 500 g", "trays"),
    (PRODUCE, "mangetout", "150 g, 300 g", "trays"),
    (PRODUCE, "okra|bean sprouts", "250 g", "a tray"),
    (PRODUCE, "shiitake|oyster mushrooms", "150 g", "a tray"),
    (PRODUCE, "mushroom", "250 g, 500 g", "punnets"),
    (PRODUCE, "radish", "250 g", "a bunch"),
    (PRODUCE, "strawberries", "250 g, 500 g", "punnets"),
    (PRODUCE, "raspberries|blueberries|blackberries", "125 g, 250 g", "punnets"),
    (PRODUCE, "parsley|coriander|basil|dill", "30 g", "fresh herbs: a bunch or pack"),
    (PRODUCE, "thyme|rosemary|chives|mint", "20 g", "fresh herbs: a pack"),
    (PRODUCE, None, "500 g, 1 kg", "loose produce by weight: a bag"),
    # --- Produce priced per piece -----------------------------------------------------------
    (PRODUCE, "spring onion", "8 pieces", "a bunch"),
    (PRODUCE, "red onion", "1 piece, 5 pieces", "loose, a 500 g net"),
    (PRODUCE, "onion", "1 piece, 10 pieces, 20 pieces", "loose, about 1 kg and 2 kg nets"),
    (PRODUCE, "shallot", "1 piece, 8 pieces", "loose, a 250 g net"),
    (PRODUCE, "garlic", "10 pieces, 30 pieces", "cloves: a bulb, a net of three bulbs"),
    (PRODUCE, "lemongrass", "3 pieces", "a pack of stalks"),
    (PRODUCE, "lemon|lime|fig", "1 piece, 4 pieces", "loose, a net or tray of 4"),
    (PRODUCE, "orange", "1 piece, 10 pieces", "loose, a 1.5 kg net"),
    (PRODUCE, "clementine", "1 piece, 12 pieces", "loose, a 1 kg net"),
    (PRODUCE, "apricot", "1 piece, 12 pieces", "loose, a 400 g punnet"),
    (PRODUCE, "plum", "1 piece, 8 pieces", "loose, a 500 g punnet"),
    (PRODUCE, "apple|pear|kiwi|peach", "1 piece, 6 pieces", "loose, a bag or tray of 6"),
    (PRODUCE, "banana", "1 piece, 5 pieces", "loose, a bunch"),
    (PRODUCE, "avocado|corn", "1 piece, 2 pieces", "loose, a 2-pack"),
    (PRODUCE, "pepper", "1 piece, 3 pieces", "loose, a 3-pack"),
    (PRODUCE, "chilli|chili|jalapeno", "1 piece, 4 pieces", "loose, a small pack"),
    (PRODUCE, None, "1 piece", "loose, one at a time"),
    # --- Dairy and eggs ---------------------------------------------------------------------
    (DAIRY, "buttermilk", "500 ml", "a carton"),
    (DAIRY, "milk", "1 l", "a carton"),
    (DAIRY, "kefir", "500 ml, 1 l", "bottles"),
    (DAIRY, "cream", "200 ml", "a carton of cream"),
    (DAIRY, "creme fraiche|sour cream|cream cheese|cottage cheese", "200 g", "a tub"),
    (DAIRY, "ice cream", "450 g, 900 g", "tubs (about 900 ml and 1.8 l)"),
    (DAIRY, "ghee", "250 g, 500 g", "jars"),
    (DAIRY, "butter", "250 g", "a block"),
    (DAIRY, "yogurt", "150 g, 500 g", "a pot, a tub"),
    (DAIRY, "mozzarella", "125 g, 250 g", "a ball, a twin pack"),
    (DAIRY, "feta", "200 g", "a block"),
    (DAIRY, "ricotta|camembert", "250 g", "a tub, a round"),
    (DAIRY, "brie", "200 g", "a wedge"),
    (DAIRY, "goat cheese|blue cheese", "150 g", "a log, a wedge"),
    (DAIRY, "parmesan|pecorino", "100 g, 200 g", "grated, a wedge"),
    (DAIRY, "egg", "6 pieces, 12 pieces", "boxes of eggs (yolks and whites come from whole eggs)"),
    (DAIRY, None, "150 g, 250 g", "cheese: sliced, a block"),
    # --- Meat, fish and deli ----------------------------------------------------------------
    (MEAT, "whole chicken", "1 whole", "one bird"),
    (MEAT, "steak|entrecote|duck breast", "1 whole, 2 whole", "one, two"),
    (MEAT, "pork chop", "2 whole, 4 whole", "packs of 2 and 4"),
    (MEAT, "lamb chops", "300 g, 600 g", "trays"),
    (MEAT, "beef fillet", "250 g, 500 g", "a piece"),
    (MEAT, "pork tenderloin", "500 g", "one fillet"),
    (MEAT, "leg|shoulder|brisket", "1 kg, 2 kg", "roasting joints"),
    (MEAT, "bacon|ham", "150 g, 300 g", "packs of slices"),
    (MEAT, "salami|pepperoni|pastrami", "100 g, 200 g", "packs of slices"),
    (MEAT, "chorizo", "200 g", "a ring"),
    (MEAT, "pate", "125 g", "a tub"),
    (MEAT, "italian sausage", "400 g", "a pack of 6"),
    (MEAT, "bratwurst", "400 g, 1 kg", "a pack of 4, a grill pack"),
    (MEAT, "frankfurter", "4 pieces, 8 pieces", "packs"),
    (MEAT, "smoked salmon", "100 g, 200 g", "packs of slices"),
    (MEAT, "salmon", "250 g, 500 g, 1 kg", "2 and 4 fillets, a frozen bag"),
    (MEAT, "prawns", "200 g, 400 g, 1 kg", "a chilled tray, frozen bags"),
    (MEAT, "scallops", "200 g", "a tray"),
    (MEAT, "mussels", "1 kg", "a net"),
    (MEAT, "pickled herring", "250 g, 500 g", "jars"),
    (MEAT, "cod|haddock|pollock|trout|tilapia|sea bass|mackerel", "300 g, 1 kg", "fish fillets: a tray, a frozen bag"),
    (MEAT, None, "500 g, 1 kg", "meat and seafood: a tray, a family pack"),
    # --- Bread, rice, pasta, grains ---------------------------------------------------------
    (BREADS, "bread", "500 g, 750 g", "loaves"),
    (BREADS, "baguette", "1 piece", "a loaf"),
    (BREADS, "bread roll|croissant|bagel", "1 piece, 4 pieces", "from the bakery, a pack"),
    (BREADS, "burger bun", "4 pieces, 6 pieces", "packs"),
    (BREADS, "pita", "6 pieces", "a pack"),
    (BREADS, "naan", "2 pieces, 4 pieces", "packs"),
    (BREADS, "corn tortilla", "12 pieces", "a pack"),
    (BREADS, "tortilla", "8 pieces", "a pack of wraps"),
    (BREADS, "breadcrumbs", "200 g, 400 g", "bags"),
    (BREADS, "crispbread", "250 g", "a pack"),
    (BREADS, "puff pastry|shortcrust pastry", "275 g", "a chilled roll"),
    (BREADS, "filo pastry", "250 g", "a pack of sheets"),
    (BREADS, "glass noodles", "100 g, 250 g", "packs"),
    (BREADS, "noodles|fresh pasta", "250 g, 500 g", "packs"),
    (BREADS, "gluten free pasta", "400 g", "a pack"),
    (BREADS, "lasagne", "500 g", "a box"),
    (BREADS, None, "500 g, 1 kg", "rice, pasta, grains: packs"),
    # --- Breakfast --------------------------------------------------------------------------
    (BREAKFAST, "oat bran|granola", "500 g", "a bag"),
    (BREAKFAST, "oats|muesli", "500 g, 1 kg", "bags"),
    (BREAKFAST, "cornflakes|bran flakes", "375 g, 750 g", "boxes"),
    (BREAKFAST, "peanut butter", "350 g, 1 kg", "jars"),
    (BREAKFAST, "almond butter", "250 g", "a jar"),
    (BREAKFAST, "hazelnut spread", "400 g, 750 g", "jars"),
    (BREAKFAST, "honey", "250 g, 500 g", "jars"),
    (BREAKFAST, "maple syrup", "250 ml, 500 ml", "bottles"),
    (BREAKFAST, "jam|marmalade", "450 g", "a jar"),
    # --- Tins and jars ----------------------------------------------------------------------
    (CANNED, "tomato paste", "70 g, 200 g", "a small tin, a tube"),
    (CANNED, "passata", "500 g, 700 g", "bottles"),
    (CANNED, "sun dried", "280 g", "a jar"),
    (CANNED, "coconut milk", "200 ml, 400 ml", "tins"),
    (CANNED, "sweetcorn", "340 g", "a tin"),
    (CANNED, "baked beans", "415 g", "a tin"),
    (CANNED, "olives", "200 g, 400 g", "jars"),
    (CANNED, "gherkins", "350 g, 700 g", "jars"),
    (CANNED, "sauerkraut", "500 g, 800 g", "a bag, a tin"),
    (CANNED, "roasted peppers", "300 g", "a jar"),
    (CANNED, "bamboo shoots", "225 g", "a tin"),
    (CANNED, "pineapple", "230 g, 570 g", "tins"),
    (CANNED, "apple sauce|applesauce", "350 g, 700 g", "jars"),
    (CANNED, "tuna", "160 g, 480 g", "a tin, a 3-pack"),
    (CANNED, "sardines|crab", "120 g", "a tin"),
    (CANNED, "anchovy|anchovies", "50 g", "a tin"),
    (CANNED, "stock", "500 ml, 1 l", "cartons"),
    (CANNED, None, "400 g, 800 g", "tins"),
    # --- Sauces, oils, condiments -----------------------------------------------------------
    (SAUCES, "olive oil", "500 ml, 750 ml, 1 l", "bottles"),
    (SAUCES, "sesame oil", "250 ml", "a bottle"),
    (SAUCES, "oil", "500 ml, 1 l", "bottles"),
    (SAUCES, "oil", "250 g, 500 g", "jars (coconut oil)"),
    (SAUCES, "balsamic", "250 ml, 500 ml", "bottles"),
    (SAUCES, "white vinegar", "500 ml, 1 l", "bottles"),
    (SAUCES, "vinegar", "500 ml", "a bottle"),
    (SAUCES, "soy sauce", "150 ml, 500 ml", "bottles"),
    (SAUCES, "fish sauce", "200 ml, 700 ml", "bottles"),
    (SAUCES, "sriracha", "200 ml, 450 ml", "bottles"),
    (SAUCES, "worcestershire", "150 ml, 290 ml", "bottles"),
    (SAUCES, "juice", "200 ml", "a bottle"),
    (SAUCES, None, "250 ml, 500 ml", "bottled sauces"),
    (SAUCES, "ketchup", "500 g, 1 kg", "squeeze bottles"),
    (SAUCES, "mayonnaise", "250 g, 500 g", "jars, squeeze bottles"),
    (SAUCES, "dijon", "200 g, 350 g", "jars"),
    (SAUCES, "mustard", "250 g", "a jar"),
    (SAUCES, "horseradish", "150 g", "a jar"),
    (SAUCES, "pesto", "190 g", "a jar"),
    (SAUCES, "tomato sauce", "400 g, 700 g", "jars"),
    (SAUCES, "salsa|tahini|miso", "300 g", "a jar or tub"),
    (SAUCES, "hummus", "200 g", "a tub"),
    (SAUCES, "capers", "100 g", "a jar"),
    (SAUCES, None, "250 g, 500 g", "jarred and bottled sauces"),
    # --- Baking and seasonings --------------------------------------------------------------
    (BAKING, "buckwheat flour|rice flour|chickpea flour", "500 g", "a bag"),
    (BAKING, "rye flour", "1 kg", "a bag"),
    (BAKING, "flour", "1 kg, 2.5 kg", "bags"),
    (BAKING, "cornflour", "250 g, 400 g", "boxes"),
    (BAKING, "ground almonds", "100 g, 200 g", "bags"),
    (BAKING, "semolina", "500 g, 1 kg", "bags"),
    (BAKING, "wheat gluten", "500 g", "a bag"),
    (BAKING, "icing sugar", "250 g, 500 g", "bags"),
    (BAKING, "brown sugar", "500 g, 1 kg", "bags"),
    (BAKING, "sugar", "1 kg", "a bag"),
    (BAKING, "vanilla extract", "50 ml", "a bottle"),
    (BAKING, "syrup|molasses", "250 ml", "a bottle"),
    (BAKING, "baking powder", "100 g", "a tub or box of sachets"),
    (BAKING, "gelatine", "30 g", "a box of sachets"),
    (BAKING, "baking soda", "200 g", "a tub"),
    (BAKING, "dry yeast|dried yeast", "21 g, 125 g", "3 sachets of 7 g, a tin"),
    (BAKING, "fresh yeast", "1 whole", "a 42 g cube"),
    (BAKING, "cocoa", "250 g", "a tin"),
    (BAKING, "chocolate", "100 g, 200 g", "bars"),
    (BAKING, "desiccated coconut", "200 g", "a bag"),
    (BAKING, "salt", "500 g, 1 kg", "a drum, a bag"),
    (BAKING, "saffron", "1 g", "a sachet (the least whole gram)"),
    (BAKING, "bay leaf", "25 pieces", "a jar"),
    (BAKING, "oregano|thyme|basil|rosemary|parsley|marjoram|sage|tarragon", "30 g", "dried herbs: a jar"),
    (BAKING, "pepper|paprika|cayenne|chilli|cumin|coriander|turmeric|curry|cinnamon|nutmeg|cloves|"
     "cardamom|ginger|allspice|powder|fennel seeds|caraway seeds", "50 g", "spices: a jar"),
    (BAKING, "almonds|walnuts|hazelnuts|cashew", "200 g, 500 g", "bags"),
    (BAKING, "pine nuts", "50 g, 100 g", "bags"),
    (BAKING, "nuts|pistachios|pecan|macadamia", "100 g, 200 g", "bags"),
    (BAKING, "seeds|flaxseed|linseed", "250 g, 500 g", "bags"),
    (BAKING, "raisins|dates|prunes|dried", "200 g, 500 g", "bags of dried fruit"),
    # --- Drinks and snacks ------------------------------------------------------------------
    (SNACKS, "espresso", "1 l, 4 l", "the espresso a 250 g or 1 kg bag of beans makes (7 g a 30 ml shot)"),
    (SNACKS, "coffee", "4 l, 8 l", "the coffee a 250 g or 500 g bag makes (60 g a litre)"),
    (SNACKS, "black tea", "5 l, 10 l", "the tea a box of 20 or 40 bags makes (a 250 ml cup a bag)"),
    (SNACKS, "tea", "5 l", "the tea a box of 20 bags makes"),
    (SNACKS, "coconut water", "330 ml, 1 l", "a carton, a bottle"),
    (SNACKS, "juice", "1 l", "a carton"),
    (SNACKS, "sparkling water", "500 ml, 1.5 l", "bottles"),
    (SNACKS, "cola", "330 ml, 1.5 l", "a can, a bottle"),
    (SNACKS, "wine", "750 ml", "a bottle"),
    (SNACKS, "beer", "330 ml, 500 ml", "a bottle, a can"),
    (SNACKS, "rum", "350 ml, 700 ml", "bottles"),
    (SNACKS, "potato crisps|potato chips", "150 g", "a bag"),
    (SNACKS, "tortilla chips|pretzels", "200 g", "a bag"),
    (SNACKS, "peanuts", "200 g, 500 g", "bags"),
    (SNACKS, "rice crackers", "100 g", "a pack"),
    (SNACKS, "popcorn", "500 g", "a bag of kernels"),
    (SNACKS, "chocolate", "100 g, 300 g", "bars"),
    (SNACKS, "shortbread", "150 g", "a pack"),
    (SNACKS, "biscuits", "400 g", "a pack"),
    # --- Other: chilled, frozen, pulses, plant milks ----------------------------------------
    (OTHER, "silken tofu", "300 g", "a pack"),
    (OTHER, "tofu", "200 g, 400 g", "packs"),
    (OTHER, "tempeh", "200 g", "a pack"),
    (OTHER, "milk", "1 l", "a carton"),
    (OTHER, "edamame", "400 g", "a frozen bag"),
    (OTHER, "frozen oven fries", "750 g, 2.5 kg", "frozen bags"),
    (OTHER, "frozen strawberries", "300 g, 750 g", "frozen bags"),
    (OTHER, "frozen", "450 g, 1 kg", "frozen bags"),
    (OTHER, "lentils|chickpeas|split peas|lupin", "500 g, 1 kg", "dry pulses: bags"),
    (OTHER, "falafel", "200 g, 400 g", "chilled, frozen"),
    (OTHER, "nori", "10 pieces, 50 pieces", "packs of sheets"),
]

# id -> sizes, for ingredients a row above gets wrong (checked before RULES).
OVERRIDES = {
    "pak-choi": "300 g",  # "loose by weight" would say 500 g / 1 kg: sold as a pack of two or three heads
    "chicory": "500 g",  # Belgian endive: a 500 g pack, not loose
    "eggplant": "1 whole, 2 whole",  # one, or a twin pack
    "lupin-beans": "500 g",  # dearer speciality pulse: one bag size
    "tamari": "250 ml",  # "bottled sauces" would offer 500 ml too
}

UNITS = {  # unit -> (family, base units in one of it); families: kg (g), l (ml), piece
    "g": ("kg", 1), "kg": ("kg", 1000), "ml": ("l", 1), "l": ("l", 1000),
    "piece": ("piece", 1), "pieces": ("piece", 1), "whole": ("kg", None),
}
LARGEST = {"kg": 100_000, "l": 100_000, "piece": 1000}  # base units


def words(text: str) -> str:
    """Lower-case words without accents or punctuation: "Crème fraîche" -> "creme fraiche"."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return " ".join(re.findall(r"[a-z0-9]+", plain))


def matches(keywords, ingredient) -> bool:
    if keywords is None:
        return True
    text = words(ingredient["name"]) + " | " + words(ingredient["id"])
    return any(re.search(r"\b" + re.escape(words(k)) + r"(s|es)?\b", text) for k in keywords.split("|"))


def family(sizes: str) -> str:
    return UNITS[sizes.split(",")[0].split()[1]][0]


def sizes_for(ingredient) -> str:
    if ingredient["id"] in OVERRIDES:
        return OVERRIDES[ingredient["id"]]
    per = ingredient["price"]["per"]
    for category, keywords, sizes, _why in RULES:
        if category in (None, ingredient["category"]) and family(sizes) == per and matches(keywords, ingredient):
            return sizes
    sys.exit(f"pack_sizes: no rule gives sizes for {ingredient['id']} ({ingredient['category']}, per {per})")


def packs_for(ingredient) -> list:
    per = ingredient["price"]["per"]
    unit_price = Decimal(str(ingredient["price"]["amount"]))
    sizes = [size.split() for size in sizes_for(ingredient).split(",")]
    if not 1 <= len(sizes) <= len(PACK_FACTORS):
        sys.exit(f"pack_sizes: {ingredient['id']}: 1 to {len(PACK_FACTORS)} sizes, not {len(sizes)}")
    packs = []
    for position, (number, unit) in enumerate(sizes):
        fam, base_per_unit = UNITS[unit]
        quantity = Decimal(number)
        if unit == "whole":  # n catalogued pieces, in whole grams
            if not ingredient.get("gramsPerPiece"):
                sys.exit(f"pack_sizes: {ingredient['id']}: a \"whole\" size needs gramsPerPiece")
            grams = Decimal(str(ingredient["gramsPerPiece"])) * quantity
            quantity, unit, base_per_unit = grams.quantize(Decimal(1), ROUND_HALF_UP), "g", 1
        unit = "piece" if unit == "pieces" else unit
        base = quantity * base_per_unit
        if fam != per or base != base.to_integral_value() or not 1 <= base <= LARGEST[fam]:
            sys.exit(f"pack_sizes: {ingredient['id']}: {number} {unit} is not a whole number of its price's base unit")
        in_price_unit = base if per == "piece" else base / 1000
        price = (unit_price * in_price_unit * PACK_FACTORS[position]).quantize(Decimal("0.01"), ROUND_HALF_UP)
        packs.append({"quantity": plain_number(quantity), "unit": unit, "price": plain_number(price), "_base": base})
    check(ingredient["id"], packs)
    for pack in packs:
        del pack["_base"]
    return packs


def check(ident: str, packs: list) -> None:
    """Smallest first; each at least 0.05 EUR; larger packs dearer in total, never dearer per unit."""
    for pack in packs:
        if Decimal(str(pack["price"])) < Decimal("0.05"):
            sys.exit(f"pack_sizes: {ident}: a pack costs less than 0.05 EUR")
    for small, large in zip(packs, packs[1:]):
        small_price, large_price = Decimal(str(small["price"])), Decimal(str(large["price"]))
        if not (small["_base"] < large["_base"] and small_price < large_price
                and large_price * small["_base"] <= small_price * large["_base"]):
            sys.exit(f"pack_sizes: {ident}: packs out of order or priced inconsistently: {packs}")


def plain_number(value: Decimal):
    """An int when whole (as the file writes 9, not 9.0), else a float."""
    return int(value) if value == value.to_integral_value() else float(value)


def with_packs(ingredient: dict, packs: list) -> dict:
    """The ingredient with `packs` right after `price`, every other key where it was."""
    out = {}
    for key, value in ingredient.items():
        if key == "packs":
            continue
        out[key] = value
        if key == "price":
            out["packs"] = packs
    return out


def dump(data, trailing_newline: bool) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + ("\n" if trailing_newline else "")


def main() -> None:
    with open(SEED, encoding="utf-8", newline="") as file:
        text = file.read()
    data = json.loads(text)
    trailing = text.endswith("\n")
    if dump(data, trailing) != text:
        sys.exit("pack_sizes: ingredients.json is not formatted as this script writes it (indent 2, UTF-8); not touching it")

    updated = dict(data)
    updated["ingredients"] = []
    for ingredient in data["ingredients"]:
        if "price" in ingredient and ingredient["price"] is not None and ingredient.get("bought", True):
            ingredient = with_packs(ingredient, packs_for(ingredient))
        elif "packs" in ingredient:  # no longer priced or bought: no packs
            ingredient = {key: value for key, value in ingredient.items() if key != "packs"}
        updated["ingredients"].append(ingredient)
    note = updated.get("note", "")
    if NOTE_NEW not in note:
        updated["note"] = note.replace(NOTE_OLD, NOTE_NEW) if NOTE_OLD in note else (note + " Pack sizes and pack prices are illustrative too.").strip()

    if "--list" in sys.argv[1:]:
        for ingredient in updated["ingredients"]:
            packs = ingredient.get("packs")
            shown = ", ".join(f"{p['quantity']} {p['unit']} {p['price']:.2f}" for p in packs) if packs else "(no packs)"
            print(f"{ingredient['id']:24} {ingredient['category'][:12]:12} {shown}")
        return

    if dump(updated, trailing) == text:
        print("pack_sizes: ingredients.json already has these packs; nothing to do")
        return
    if data["version"] < PACKS_VERSION:
        updated["version"] = PACKS_VERSION
    else:
        print(f"pack_sizes: warning: version is already {data['version']}; raise PACKS_VERSION so catalogs reload the new packs")
    with open(SEED, "w", encoding="utf-8", newline="") as file:
        file.write(dump(updated, trailing))
    given = sum(1 for ingredient in updated["ingredients"] if "packs" in ingredient)
    print(f"pack_sizes: {given} ingredients given packs; version {updated['version']}")


if __name__ == "__main__":
    main()
