"""The household pantry against the real catalog, planner and groceries processes over CURVE,
through the Python client: the grocery list subtracts what the pantry holds even when it is held
in another unit (grams and pieces of potato), and prices and packs what is left to buy; a meal
marked cooked through the planner takes what it used out of the pantry once (a second
`plan.cooked` of the same slot takes nothing), leaving an item's remainder in the item's own unit
and dropping an item used up; and `pantry.add` refuses bad quantities, units, dates and unknown
ingredients by field while storing hostile location text (markup, emoji, emoji joined by zero
width joiners) unchanged, counting characters as a reader does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousError  # noqa: E402
from sous_stack import started  # noqa: E402

DINNER = 2


@pytest.fixture(name="pantry_stack")
def pantry_stack_fixture(tmp_path):
    """A fresh catalog, planner and groceries for each test (no tracker, no notifier)."""
    with started(tmp_path, ["catalog", "planner", "groceries"]) as stack:
        yield stack


def line_of(grocery_list: dict, line_id: str) -> dict:
    lines = [line for category in grocery_list["categories"] for line in category["lines"] if line["id"] == line_id]
    assert len(lines) == 1, grocery_list
    return lines[0]


def items_by_ingredient(pantry: dict) -> dict:
    found: dict = {}
    for item in pantry["items"]:
        found.setdefault(item["ingredient"], []).append(item)
    return found


def test_the_list_buys_only_what_the_pantry_does_not_hold_across_units(pantry_stack):
    stack = pantry_stack
    token = stack.register("ada@example.org", name="Ada")
    with stack.client("groceries", session=token) as groceries:
        groceries.call("groceries.addItem", {"ingredient": "potato", "quantity": 1200, "unit": "g"}, write=True)
        groceries.call("pantry.add", {"ingredient": "potato", "quantity": 250, "unit": "g"}, write=True)
        pantry = groceries.call("pantry.add", {"ingredient": "potato", "quantity": 2, "unit": "piece"}, write=True)
        # Each item is kept as it was added: 250 g, and 2 pieces (not converted).
        assert sorted((item["quantity"], item["unit"]) for item in pantry["items"]) == [(2, "piece"), (250, "g")], pantry
        assert all(item["location"] == "cupboard" and item["name"] == "Potato (floury)" for item in pantry["items"]), pantry

        line = line_of(groceries.call("groceries.list"), "potato")
        # Need 1200 g. Have 250 g + 2 pieces × 170 g = 250 + 340 = 590 g. Buy 1200 − 590 = 610 g.
        assert (line["exactQuantity"], line["exactUnit"]) == (1200, "g"), line
        assert line["pantry"] == {"have": 590, "buy": 610}, line
        # 610 g is between 10 and 999: shown as whole grams.
        assert (line["quantity"], line["unit"]) == (610, "g"), line
        # Priced on what is left to buy: 0.610 kg × €1.30/kg = €0.793.
        assert line["price"] == pytest.approx(0.793, abs=1e-6), line
        # 610 g from 1 kg (€1.30) and 2.5 kg (€3.09) bags: one 1 kg bag, €1.30, 1000 − 610 = 390 g over.
        packs = line["packs"]
        assert [(chosen["pack"]["quantity"], chosen["pack"]["unit"], chosen["count"]) for chosen in packs["packs"]] == [(1, "kg", 1)], packs
        assert packs["packs"][0]["pack"]["price"] == pytest.approx(1.30)
        assert packs["price"] == pytest.approx(1.30) and packs["leftover"] == pytest.approx(390), packs


def test_a_cooked_meal_takes_what_it_used_from_the_pantry_once(pantry_stack):
    stack = pantry_stack
    token = stack.register("ben@example.org", name="Ben")
    with (
        stack.client("catalog", session=token) as catalog,
        stack.client("planner", session=token) as planner,
        stack.client("groceries", session=token) as groceries,
    ):
        lines = [{"ingredient": "potato", "quantity": 600, "unit": "g"}, {"ingredient": "butter", "quantity": 50, "unit": "g"}]
        mash = catalog.call("recipes.create", {
            "name": "Mash", "summary": "Potatoes, butter.", "servings": 2, "prepMinutes": 5, "cookMinutes": 20,
            "ingredients": lines,
            "steps": [{"description": "Boil, drain, mash with the butter.", "minutes": 20, "type": "cooking", "ingredients": ["potato", "butter"]}],
            "equipment": ["stove"],
        }, write=True)["id"]
        today = planner.call("plan.get")["today"]
        planner.call("plan.put", {"date": today, "slot": DINNER, "recipe": mash}, write=True)

        groceries.call("pantry.add", {"ingredient": "potato", "quantity": 1, "unit": "kg"}, write=True)
        before = groceries.call("pantry.add", {"ingredient": "butter", "quantity": 20, "unit": "g", "location": "fridge"}, write=True)
        assert sorted((item["ingredient"], item["quantity"], item["unit"]) for item in before["items"]) == [
            ("butter", 20, "g"), ("potato", 1, "kg")], before

        cooked = planner.call("plan.cooked", {"date": today, "slot": DINNER}, write=True)
        # No tracker runs here: the serving is not logged, which is not what this test is about.
        assert cooked["pantryError"] is None, cooked
        taken = {use["ingredient"]: use for use in cooked["pantry"]["taken"]}
        assert cooked["pantry"]["already"] is False and set(taken) == {"potato", "butter"}, cooked["pantry"]
        # The household is 2 people (the default) and Mash serves 2: × 1. Potato: 600 g wanted,
        # 1 kg held → 600 g taken, 400 g left, not out. Butter: 50 g wanted, 20 g held → 20 g
        # taken, none left: out.
        assert (taken["potato"]["quantity"], taken["potato"]["unit"], taken["potato"]["ranOut"]) == (pytest.approx(600), "g", False), taken
        assert (taken["butter"]["quantity"], taken["butter"]["unit"], taken["butter"]["ranOut"]) == (pytest.approx(20), "g", True), taken

        after = groceries.call("pantry.get")
        held = items_by_ingredient(after)
        assert set(held) == {"potato"}, after
        # The 1 kg item is now 1 − 0.6 = 0.4, still in kg.
        assert len(held["potato"]) == 1 and held["potato"][0]["unit"] == "kg", after
        assert held["potato"][0]["quantity"] == pytest.approx(0.4), after

        again = planner.call("plan.cooked", {"date": today, "slot": DINNER}, write=True)
        assert again["pantryError"] is None, again
        assert again["pantry"]["already"] is True and again["pantry"]["taken"] == [], again["pantry"]
        assert groceries.call("pantry.get") == after


def test_bad_pantry_input_is_refused_by_field_and_hostile_text_kept(pantry_stack):
    stack = pantry_stack
    token = stack.register("cy@example.org", name="Cy")
    with stack.client("groceries", session=token) as groceries:
        refusals = [
            ({"ingredient": "butter", "quantity": 0, "unit": "g"}, "badRequest", "quantity"),
            # Butter has no piece weight.
            ({"ingredient": "butter", "quantity": 1, "unit": "piece"}, "badRequest", "unit"),
            ({"ingredient": "butter", "quantity": 250, "unit": "g", "bestBefore": "1999-12-31"}, "badRequest", "bestBefore"),
            ({"ingredient": "no-such-ingredient-qzx", "quantity": 1, "unit": "g"}, "notFound", "ingredient"),
        ]
        for body, code, field in refusals:
            with pytest.raises(SousError) as refused:
                groceries.call("pantry.add", body, write=True)
            assert (refused.value.code, refused.value.field) == (code, field), (body, refused.value)
        assert groceries.call("pantry.get")["items"] == [], "a refused add stored nothing"

        script = "<script>alert('pantry')</script>"
        # 30 potatoes, 4 Italian flags (two regional indicators each), 3 thumbs up with a skin
        # tone (two code points each), 3 red hearts with the emoji variation selector (two code
        # points each): 40 characters as a reader counts them (50 code points, 94 UTF-16 units),
        # exactly the 40 a location may have.
        emoji = "\U0001F954" * 30 + "\U0001F1EE\U0001F1F9" * 4 + "\U0001F44D\U0001F3FD" * 3 + "\u2764\uFE0F" * 3
        assert len(emoji) == 50
        groceries.call("pantry.add", {"ingredient": "butter", "quantity": 250, "unit": "g", "location": script}, write=True)
        groceries.call("pantry.add", {"ingredient": "egg", "quantity": 6, "location": emoji}, write=True)
        with pytest.raises(SousError) as too_long:
            groceries.call("pantry.add", {"ingredient": "egg", "quantity": 6, "location": emoji + "\U0001F954"}, write=True)
        assert (too_long.value.code, too_long.value.field) == ("badRequest", "location"), too_long.value
        stored = groceries.call("pantry.get")
        assert sorted(item["location"] for item in stored["items"]) == sorted([script, emoji]), stored
        # The egg defaulted to its usual unit.
        assert [(item["quantity"], item["unit"]) for item in stored["items"] if item["ingredient"] == "egg"] == [(6, "piece")], stored


def test_emoji_joined_by_zero_width_joiners_are_a_location_like_any_other(pantry_stack):
    """A cook, a family and a rainbow flag are one character each, written with U+200D ZERO
    WIDTH JOINER between emoji; a location of them is stored and read back unchanged."""
    stack = pantry_stack
    token = stack.register("di@example.org", name="Di")
    with stack.client("groceries", session=token) as groceries:
        cook = "\U0001F469\u200D\U0001F373"
        family = "\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466"
        rainbow = "\U0001F3F3\uFE0F\u200D\U0001F308"
        # 10 of each: 30 characters (3 + 7 + 4 = 14 code points a triple, 140 in all).
        joined = (cook + family + rainbow) * 10
        groceries.call("pantry.add", {"ingredient": "egg", "quantity": 6, "location": joined}, write=True)
        assert [item["location"] for item in groceries.call("pantry.get")["items"]] == [joined]
