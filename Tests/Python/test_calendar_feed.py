"""The calendar feed against the real catalog and planner processes over CURVE, through the
Python client: the address's secret, made once, reads the household's week with no session at
all (as a calendar app's periodic fetch does), still after the planner is killed and started
again; replacing it stops the old secret, stopping it stops the new one, and secrets of any other
form are notFound naming `token` (a NUL, which no text may hold, badRequest)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousError  # noqa: E402
from sous_stack import Stack, started  # noqa: E402


@pytest.fixture(name="planner_stack")
def planner_stack_fixture(tmp_path):
    with started(tmp_path, ["catalog", "planner"]) as stack:
        yield stack


def refused(stack: Stack, token: str) -> SousError:
    with stack.client("planner") as anonymous:
        with pytest.raises(SousError) as error:
            anonymous.call("plan.feedCalendar", {"token": token})
    return error.value


def test_a_feed_reads_the_week_without_a_session_until_it_is_replaced_or_stopped(planner_stack):
    stack = planner_stack
    token = stack.register("ada@example.org", name="Ada")
    with stack.client("planner", session=token) as planner:
        today = planner.call("plan.get")["today"]
        planner.call("plan.put", {"date": today, "slot": 2, "recipe": "tomato-lentil-soup"}, write=True)
        assert planner.call("plan.feedStatus")["active"] is False
        feed = planner.call("plan.feed", {"on": True}, write=True)
        secret = feed["token"]
        assert feed["active"] and len(secret) == 43, feed
        status = planner.call("plan.feedStatus")
        assert status["active"] and status.get("token") is None and status["createdAt"] == feed["createdAt"], status

    # A calendar app: no session, the secret alone; after a kill -9 too (the feed is stored).
    stack.kill9("planner")
    stack.start_all(["planner"])
    with stack.client("planner") as anonymous:
        calendar = anonymous.call("plan.feedCalendar", {"token": secret})
    assert calendar["events"] == 1, calendar
    assert calendar["calendar"].startswith("BEGIN:VCALENDAR\r\n"), calendar["calendar"][:80]
    assert "SUMMARY:Dinner: Tomato and Red Lentil Soup\r\n" in calendar["calendar"], calendar["calendar"]

    with stack.client("planner", session=token) as planner:
        replaced = planner.call("plan.feed", {"on": True}, write=True)["token"]
        old = refused(stack, secret)
        assert (old.code, old.field) == ("notFound", "token"), old
        assert planner.call("plan.feed", {"on": False}, write=True)["active"] is False
    stopped = refused(stack, replaced)
    assert (stopped.code, stopped.field) == ("notFound", "token"), stopped
    for bad in ["", "x" * 43, replaced[:-1], replaced + "A", "é" * 43, "../" * 20]:
        error = refused(stack, bad)
        assert (error.code, error.field) == ("notFound", "token"), (bad, error)
    # Text no string may hold is refused by the wire, naming the field.
    nul = refused(stack, "\x00" * 43)
    assert (nul.code, nul.field) == ("badRequest", "token"), nul
