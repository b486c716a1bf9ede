#!/usr/bin/env python3
"""Builds Tests/FuzzTests/Corpus: the seeds of the request fuzz test.

The seeds are real request bodies, recorded while the Swift test suite runs (every request a
service receives, written by the runtime when SOUS_RECORD_CORPUS is set), so every method the
tests exercise has valid and invalid examples without hand-written shapes. Add to them the
inputs that once crashed a service (files named `<method>--crash-*.msgpack`, kept as they are).

    rm -rf /tmp/corpus && SOUS_RECORD_CORPUS=/tmp/corpus swift test --skip RequestFuzz
    python3 Tests/FuzzTests/make_corpus.py /tmp/corpus
"""

import collections
import hashlib
import os
import sys

import msgpack

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "Corpus")
PER_METHOD = 8
# Larger bodies (journal photos) add size to the repository, not coverage.
MAX_BYTES = 32 * 1024
# Methods of the runtime's own test services, not of Sous.
SKIP = {"load.hold", "notes.add", "notes.count", "notes.echo", "notes.wait", "notes.fly"}

# Methods no test happens to call, by hand (dates are MessagePack timestamps, ext type -1).
HAND = {
    "clock.get--empty": {},
    "describe--empty": {},
    "products.add--own-crackers": {"code": "4006381333931", "name": "My crackers", "brand": None, "quantity": "200 g",
                                   "per100g": {"kcal": 420.0, "carbohydrates": 70.0, "protein": 9.0, "fat": 11.0},
                                   "allergens": ["en:gluten"], "usdaNdb": None},
    "clock.set--2026-03-10": {"now": msgpack.Timestamp(1_773_136_800)},
    "clock.set--far-future": {"now": msgpack.Timestamp(2**33)},
    "ingredients.import--empty": {"source": "fuzz", "ingredients": []},
    "ingredients.import--partial": {"source": "fuzz", "ingredients": [{"id": "fuzz-thing", "name": "Thing"}]},
    "ingredients.import--synonyms": {"source": "fuzz", "ingredients": [{
        "id": "fuzz-thing", "name": "Thing", "usdaNdb": None, "unit": "g", "gramsPerPiece": None, "gramsPerMl": 1.0,
        "price": {"amount": 1.0, "per": "kg"}, "category": "Other",
        "nutrition": {"kcal": 0.0, "carbohydrates": 0.0, "protein": 0.0, "fat": 0.0, "fibre": 0.0, "sugar": 0.0, "salt": 0.0},
        "contains": [], "allergens": [], "synonyms": ["whatsit", "thingy"], "bought": False}]},
    "recipes.create--frying-bath": {"name": "Fries", "summary": "Fried twice.", "servings": 2, "ingredients": [
        {"ingredient": "potato", "quantity": 500, "unit": "g"},
        {"ingredient": "sunflower-oil", "quantity": 1, "unit": "l", "use": "frying", "eatenShare": 0.05}]},
    "gluten.result--replace": {"date": "2026-03-09", "positive": False, "replace": True},
    "gluten.deleteResult--day": {"date": "2026-03-09"},
}

# Inputs that crashed a service before the fixes they are named after.
CRASHES = {
    "recipes.search--crash-page-2pow62": {"page": 2**62},
    "recipes.community--crash-page-2pow62": {"page": 2**62},
    "recipes.search--crash-1001-ingredients": {"ingredients": [f"i{n}" for n in range(1001)]},
    "recipes.search--crash-energy-levels-5000": {"energyLevels": [2] * 5000},
    "gluten.calendar--crash-year-9999-12": {"year": 9999, "month": 12},
    "gluten.calendar--crash-year-2pow62": {"year": 2**62, "month": 1},
}


def main() -> None:
    recorded = sys.argv[1]
    by_method = collections.defaultdict(list)
    for name in sorted(os.listdir(recorded)):
        method = name.split("--")[0]
        if method in SKIP or not name.endswith(".msgpack") or os.path.getsize(os.path.join(recorded, name)) > MAX_BYTES:
            continue
        with open(os.path.join(recorded, name), "rb") as handle:
            by_method[method].append(handle.read())
    os.makedirs(CORPUS, exist_ok=True)
    for name in os.listdir(CORPUS):
        if name.endswith(".msgpack") and "--crash-" not in name:
            os.remove(os.path.join(CORPUS, name))
    for method, bodies in sorted(by_method.items()):
        # Spread over sizes: the smallest, the largest and evenly in between.
        bodies = sorted(set(bodies), key=lambda body: (len(body), body))
        step = max(1, len(bodies) // PER_METHOD)
        for body in bodies[::step][:PER_METHOD]:
            digest = hashlib.blake2b(body, digest_size=6).hexdigest()
            with open(os.path.join(CORPUS, f"{method}--{digest}.msgpack"), "wb") as handle:
                handle.write(body)
    for name, body in list(HAND.items()) + list(CRASHES.items()):
        with open(os.path.join(CORPUS, f"{name}.msgpack"), "wb") as handle:
            handle.write(msgpack.packb(body))
    counts = collections.Counter(name.split("--")[0] for name in os.listdir(CORPUS) if name.endswith(".msgpack"))
    for method, count in sorted(counts.items()):
        print(f"{count:3} {method}")
    print(f"{sum(counts.values())} seeds for {len(counts)} methods")


if __name__ == "__main__":
    main()
