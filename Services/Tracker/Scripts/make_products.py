#!/usr/bin/env python3
"""Writes TrackerService/Seed/products.json: the sample products the tracker ships.

Brands are made up. Codes are EAN-13 in the 200-299 prefix range (reserved for in-store
use, so they never clash with real products); the last digit is the GS1 check digit.
Nutrition per 100 g is copied from the catalog's ingredients.json (USDA SR28 figures),
and the SR28 number travels with each product. Run from the repository root:
    python3 Services/Tracker/Scripts/make_products.py
"""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[3]
CATALOG = ROOT / "Services/Catalog/CatalogService/Seed/ingredients.json"
OUT = ROOT / "Services/Tracker/TrackerService/Seed/products.json"

# (catalog ingredient id, product name, brand, quantity, allergens as OFF tags)
PRODUCTS = [
    ("spaghetti", "Spaghetti No. 5", "Campo Dorato", "500 g", ["en:gluten"]),
    ("penne", "Penne Rigate", "Campo Dorato", "500 g", ["en:gluten"]),
    ("fusilli", "Fusilli", "Campo Dorato", "500 g", ["en:gluten"]),
    ("gluten-free-pasta", "Gluten-free Corn Pasta", "Campo Dorato", "400 g", []),
    ("basmati-rice", "Basmati Rice", "Riverbend", "1 kg", []),
    ("brown-rice", "Brown Rice", "Riverbend", "1 kg", []),
    ("quinoa", "White Quinoa", "Riverbend", "500 g", []),
    ("oats", "Rolled Oats", "Morning Field", "1 kg", ["en:gluten"]),
    ("muesli", "Fruit Muesli", "Morning Field", "750 g", ["en:gluten", "en:nuts"]),
    ("granola", "Crunchy Granola", "Morning Field", "500 g", ["en:gluten", "en:nuts"]),
    ("cornflakes", "Corn Flakes", "Morning Field", "375 g", []),
    ("white-bread", "White Sandwich Loaf", "Old Mill Bakery", "800 g", ["en:gluten"]),
    ("wholemeal-bread", "Wholemeal Loaf", "Old Mill Bakery", "800 g", ["en:gluten"]),
    ("rye-bread", "Dark Rye Bread", "Old Mill Bakery", "500 g", ["en:gluten"]),
    ("crispbread", "Rye Crispbread", "Old Mill Bakery", "250 g", ["en:gluten"]),
    ("milk", "Whole Milk", "Green Meadow", "1 l", ["en:milk"]),
    ("semi-skimmed-milk", "Semi-skimmed Milk", "Green Meadow", "1 l", ["en:milk"]),
    ("yogurt", "Plain Yogurt", "Green Meadow", "500 g", ["en:milk"]),
    ("greek-yogurt", "Greek-style Yogurt", "Green Meadow", "500 g", ["en:milk"]),
    ("cheddar", "Mature Cheddar", "Green Meadow", "200 g", ["en:milk"]),
    ("mozzarella", "Mozzarella", "Green Meadow", "125 g", ["en:milk"]),
    ("butter", "Salted Butter", "Green Meadow", "250 g", ["en:milk"]),
    ("egg", "Free-range Eggs (6)", "Hilltop Farm", "6 x 50 g", ["en:eggs"]),
    ("chicken-breast", "Chicken Breast Fillets", "Hilltop Farm", "400 g", []),
    ("canned-tuna", "Tuna in Water", "Blue Harbour", "160 g", ["en:fish"]),
    ("sardines", "Sardines in Oil", "Blue Harbour", "120 g", ["en:fish"]),
    ("canned-tomatoes", "Chopped Tomatoes", "Sunvale", "400 g", []),
    ("passata", "Passata", "Sunvale", "690 g", []),
    ("canned-chickpeas", "Chickpeas", "Sunvale", "400 g", []),
    ("baked-beans", "Baked Beans in Tomato Sauce", "Sunvale", "415 g", []),
    ("peanut-butter", "Smooth Peanut Butter", "Nutty Grove", "340 g", ["en:peanuts"]),
    ("almonds", "Whole Almonds", "Nutty Grove", "200 g", ["en:nuts"]),
    ("hummus", "Classic Hummus", "Nutty Grove", "200 g", ["en:sesame"]),
    ("dark-chocolate", "Dark Chocolate 70%", "Cacao Lane", "100 g", ["en:milk", "en:soybeans"]),
    ("milk-chocolate", "Milk Chocolate", "Cacao Lane", "100 g", ["en:milk", "en:soybeans"]),
    ("digestive-biscuits", "Digestive Biscuits", "Cacao Lane", "400 g", ["en:gluten", "en:milk"]),
    ("potato-chips", "Sea Salt Crisps", "Crunch & Co", "150 g", []),
    ("orange-juice", "Orange Juice", "Sunvale", "1 l", []),
    ("tofu", "Firm Tofu", "Lotus Pond", "400 g", ["en:soybeans"]),
    ("soy-milk", "Soya Drink", "Lotus Pond", "1 l", ["en:soybeans"]),
]


def ean13_check_digit(first12: str) -> int:
    """GS1: weights 1 and 3 alternate from the left; the check digit tops the sum up to a multiple of 10."""
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return (10 - total % 10) % 10


def main() -> None:
    ingredients = {i["id"]: i for i in json.loads(CATALOG.read_text())["ingredients"]}
    products = []
    for index, (ingredient, name, brand, quantity, allergens) in enumerate(PRODUCTS):
        source = ingredients[ingredient]
        # "2" then 10..49 puts every code in the 210-249 prefixes, inside the in-store 200-299 range.
        first12 = f"2{10 + index:02d}{index * 7919 % 1000000:06d}{index:03d}"
        code = first12 + str(ean13_check_digit(first12))
        n = source["nutrition"]
        products.append({
            "code": code,
            "name": name,
            "brand": brand,
            "quantity": quantity,
            "per100g": {"kcal": n["kcal"], "carbohydrates": n["carbohydrates"], "protein": n["protein"], "fat": n["fat"]},
            "allergens": allergens,
            "usdaNdb": source["usdaNdb"],
        })
    OUT.write_text(json.dumps({"version": 1, "note": "Made-up brands; EAN-13 codes in the in-store 200-299 range; nutrition per 100 g from USDA SR28 (usdaNdb), via the catalog's ingredients.json.", "products": products}, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(products)} products to {OUT}")


if __name__ == "__main__":
    main()
