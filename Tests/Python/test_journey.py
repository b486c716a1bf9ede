"""The whole journey: the five real executables as processes on loopback ports the OS hands
out, each with its own temporary data folder, driven through the `sous` binary only (the test
harness itself only starts and kills processes, and moves the notifier's test clock).

    python -m pytest Tests/Python/test_journey.py

`SOUS_BIN_DIR` names the folder with the executables (default: .build/debug).
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_stack import PASSWORD, REPO_ROOT, Stack, log_tail  # noqa: E402

COMMAND_SECONDS = 60


class Journey(Stack):
    """The five services, and the `sous` CLI pointed at them with a config folder of its own."""

    def sous(self, *arguments: str, expect: int = 0, stdin: str | None = None) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [str(self.bin_dir / "sous"), *arguments], env=self.env, input=stdin, capture_output=True, text=True, timeout=COMMAND_SECONDS
        )
        assert result.returncode == expect, (
            f"sous {' '.join(arguments)} exited {result.returncode}, expected {expect}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
        return result

    def sous_json(self, *arguments: str):
        return json.loads(self.sous(*arguments, "--json").stdout)

    def set_notifier_clock(self, instant: datetime) -> None:
        """The test-only clock control (`clock.set`: an operator's method, on a manual-clock
        service only)."""
        with self.client("notifier", session=self.create_operator()) as client:
            client.call("clock.set", {"now": instant}, write=True)


@pytest.fixture
def stack(tmp_path):
    stack = Journey(tmp_path)
    try:
        for service in ["catalog", "planner", "groceries", "tracker"]:
            stack.start(service)
        # The notifier's clock starts at the real time and only moves through `clock.set`.
        stack.start("notifier", SOUS_CLOCK="manual")
        for service in ["catalog", "planner", "groceries", "tracker", "notifier"]:
            stack.wait_healthy(service)
        yield stack
    finally:
        stack.assert_stopped_cleanly()


def first_product_code() -> str:
    products = json.loads((REPO_ROOT / "Services/Tracker/TrackerService/Seed/products.json").read_text())["products"]
    return products[0]["code"]


def test_a_users_week(stack: Journey):
    rome = ZoneInfo("Europe/Rome")
    today = datetime.now(rome).date()

    # 0. An account, signed in on this machine (password on stdin, never in argv).
    registered = stack.sous("register", "--email", "journey-ada@example.org", "--name", "Ada", stdin=PASSWORD + "\n")
    assert "Registered journey-ada@example.org" in registered.stdout, registered.stdout
    who = stack.sous_json("whoami")
    assert who["account"]["email"] == "journey-ada@example.org" and who["session"]["current"] is True
    # The journey only runs on dates whose reminder is due after the (real) start time: if the
    # test starts past 19:00 in Rome the first reminder is tomorrow's.

    # 1. A vegetarian household of two in Rome without an oven.
    profile = stack.sous_json(
        "profile", "set", "--people", "2", "--diet", "vegetarian", "--time-zone", "Europe/Rome",
        "--equipment", "stove", "--equipment", "mixer", "--equipment", "microwave", "--equipment", "fryer",
    )
    assert profile["people"] == 2 and profile["diets"] == ["vegetarian"] and profile["timeZone"] == "Europe/Rome"
    assert "oven" not in profile["equipment"]

    # 2. Search with the automatic filters from the saved profile: nothing needs an oven or has meat.
    page = stack.sous_json("recipes", "search", "--page-size", "100")
    recipes = page["recipes"]
    assert len(recipes) >= 5, page
    for recipe in recipes:
        assert "oven" not in recipe["equipment"], recipe
        assert "vegetarian" in recipe["diets"], recipe
    detail = stack.sous_json("recipes", "show", recipes[0]["id"])
    assert not {"meat", "fish", "pork"} & set(detail["contains"]), detail
    unfiltered = stack.sous_json("recipes", "search", "--no-filters", "--page-size", "100")
    assert unfiltered["total"] > page["total"], "the filters removed nothing"

    # 3. Plan: one recipe twice (today's lunch, tomorrow's dinner), another for today's dinner.
    first, second = recipes[0]["id"], recipes[1]["id"]
    stack.sous("plan", "add", first)
    stack.sous("plan", "put", "today", "lunch", first)
    stack.sous("plan", "put", "tomorrow", "dinner", first)
    stack.sous("plan", "put", "today", "dinner", second)
    week = stack.sous("plan", "show")
    assert "Today" in week.stdout and recipes[0]["name"] in week.stdout, week.stdout

    # 4. Groceries from the plan with the suggested multipliers (2 slots → ×2, 1 slot → ×1).
    stack.sous("groceries", "add-recipe", first)
    stack.sous("groceries", "add-recipe", second)
    groceries = stack.sous_json("groceries", "show")
    multipliers = {entry["recipe"]: entry["multiplier"] for entry in groceries["recipes"]}
    assert multipliers == {first: 2, second: 1}, groceries["recipes"]
    assert all(entry["people"] == 2 for entry in groceries["recipes"])
    lines = [line for group in groceries["categories"] for line in group["lines"]]
    assert len(lines) >= 3 and groceries["total"] > 0

    # 5. Tick two lines off.
    to_check = [lines[0]["id"], lines[1]["id"]]
    stack.sous("groceries", "check", *to_check)
    checked = stack.sous_json("groceries", "show")
    assert checked["checkedCount"] == 2
    assert {line["id"] for group in checked["categories"] for line in group["lines"] if line["checked"]} == set(to_check)

    # 6. kill -9 the groceries service mid-journey: the CLI says who is down and where, with the
    # "unavailable" exit code; after a restart the list is intact and the CLI works again.
    stack.kill9("groceries")
    down = stack.sous("groceries", "show", "--timeout-ms", "300", expect=5)
    assert "groceries" in down.stderr and stack.endpoints["groceries"][0] in down.stderr, down.stderr
    assert len(down.stderr.strip().splitlines()) == 1, down.stderr
    stack.start("groceries")
    stack.wait_healthy("groceries")
    assert stack.sous_json("groceries", "show") == checked

    # 7. Cooked today's lunch: the plan records it and the diary has one serving in lunch.
    cooked = stack.sous_json("plan", "cooked", "today", "lunch")
    assert cooked["logged"] is True and cooked.get("loggingError") is None, cooked
    summary = stack.sous_json("diary", "summary")
    assert summary["day"]["date"] == today.isoformat()
    lunch = [group for group in summary["meals"] if group["meal"] == "lunch"]
    assert lunch and any(entry["source"]["reference"] == first for entry in lunch[0]["entries"]), summary["meals"]
    assert summary["totals"]["kcal"] > 0

    # 8. A product by barcode, logged as a snack.
    code = first_product_code()
    product = stack.sous_json("barcode", code)["product"]
    assert product["code"] == code and product["per100g"]["kcal"] > 0, product
    logged = stack.sous_json("barcode", code, "--log", "--grams", "50", "--meal", "snack")["logged"]
    assert logged["grams"] == 50 and logged["meal"] == "snack", logged
    summary = stack.sous_json("diary", "summary")
    snack = [group for group in summary["meals"] if group["meal"] == "snack"]
    assert snack and any(entry["source"]["reference"] == code for entry in snack[0]["entries"]), summary["meals"]

    # 9. The reminder: every action above was activity, so the notifier scheduled 19:00 Rome.
    upcoming = stack.sous_json("reminders", "next")
    assert upcoming["status"] == "scheduled", upcoming
    due = datetime.fromisoformat(upcoming["dueAt"].replace("Z", "+00:00"))
    assert due.astimezone(rome).hour == 19 and due.astimezone(rome).minute == 0, due
    watch = subprocess.Popen(
        [str(stack.bin_dir / "sous"), "reminders", "watch", "--count", "1", "--timeout", "30"],
        env=stack.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        waiting = watch.stdout.readline()
        assert "Waiting for your reminders" in waiting, waiting
        stack.set_notifier_clock(due + timedelta(seconds=1))
        out, err = watch.communicate(timeout=40)
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.wait(timeout=10)
    assert watch.returncode == 0, (
        f"no reminder arrived: {err}\ndelivery log: {stack.sous('reminders', 'list').stdout}\n{log_tail(stack.log('notifier'))}"
    )
    assert upcoming["date"] in out and "log" in out.lower(), out
    log = stack.sous_json("reminders", "list")
    assert [entry["outcome"] for entry in log["entries"] if entry["date"] == upcoming["date"]] == ["sent"], log

    # The whole stack is still healthy at the end.
    status = stack.sous_json("status")
    assert all(row["up"] for row in status), status

    # 10. Signing out: the stored session no longer works anywhere.
    stack.sous("logout")
    stack.sous("diary", "summary", expect=6)
