"""Week templates against the real catalog and planner processes over CURVE, through the
Python client: a week saved, applied again by weekday (twice gives the same week), a recipe
deleted since reported for its slot with the rest applied, a repeat set and stopped, and the
templates in the whole-account archive."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousError  # noqa: E402
from sous_stack import started  # noqa: E402


@pytest.fixture(name="planner_stack")
def planner_stack_fixture(tmp_path):
    with started(tmp_path, ["catalog", "planner"]) as stack:
        yield stack


def meals(days: list) -> dict:
    return {(str(slot["date"]), slot["slot"]): slot["recipe"] for day in days for slot in day["slots"] if slot["recipe"]}


def test_a_saved_week_is_planned_again_and_twice_changes_nothing(planner_stack):
    stack = planner_stack
    token = stack.register("ada@example.org", name="Ada")
    with stack.client("planner", session=token) as planner, stack.client("catalog", session=token) as catalog:
        week = planner.call("plan.get")
        today, tomorrow = week["days"][0]["date"], week["days"][1]["date"]
        stew = catalog.call("recipes.create", {"name": "Ada's stew", "summary": "Slow."}, write=True)["id"]
        planner.call("plan.put", {"date": today, "slot": 2, "recipe": "tomato-lentil-soup"}, write=True)
        planner.call("plan.put", {"date": tomorrow, "slot": 1, "recipe": stew}, write=True)
        template = planner.call("plan.saveTemplate", {"name": "Usual"}, write=True)
        assert sorted((slot["weekday"], slot["slot"], slot["recipe"]) for slot in template["slots"]) == sorted(
            [(week["days"][0]["weekday"], 2, "tomato-lentil-soup"), (week["days"][1]["weekday"], 1, stew)]), template

        # The week emptied, the stew deleted: the soup comes back, the stew's slot is reported.
        planner.call("plan.clear", {"date": today, "slot": 2}, write=True)
        planner.call("plan.clear", {"date": tomorrow, "slot": 1}, write=True)
        catalog.call("recipes.delete", {"id": stew}, write=True)
        applied = planner.call("plan.applyTemplate", {"template": "Usual"}, write=True)
        assert [(str(ref["date"]), ref["slot"]) for ref in applied["changed"]] == [(str(today), 2)], applied["changed"]
        assert [(str(skip["date"]), skip["slot"], skip["reason"]) for skip in applied["skipped"]] == [
            (str(tomorrow), 1, "Ada's stew is no longer in the catalog")
        ]
        again = planner.call("plan.applyTemplate", {"template": "Usual"}, write=True)
        assert again["changed"] == [] and meals(again["days"]) == meals(applied["days"]) == {(str(today), 2): "tomato-lentil-soup"}

        repeated = planner.call("plan.repeatTemplate", {"template": "Usual", "everyWeeks": 2}, write=True)
        assert repeated["template"]["repeats"] == {"everyWeeks": 2, "from": today}, repeated["template"]
        listed = planner.call("plan.templates")["templates"]
        assert [entry["name"] for entry in listed] == ["Usual"] and listed[0]["repeats"]["everyWeeks"] == 2
        assert planner.call("planner.export")["templates"] == listed

        with pytest.raises(SousError) as bad:
            planner.call("plan.repeatTemplate", {"template": "Usual", "everyWeeks": 99}, write=True)
        assert bad.value.code == "badRequest" and bad.value.field == "everyWeeks"
        with pytest.raises(SousError) as unknown:
            planner.call("plan.applyTemplate", {"template": "<script>alert(1)</script>"}, write=True)
        assert unknown.value.code == "notFound" and unknown.value.field == "template"
        assert planner.call("plan.deleteTemplate", {"template": "Usual"}, write=True)["templates"] == []
