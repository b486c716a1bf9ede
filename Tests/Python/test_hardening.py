"""Attacks on the real executables, from another language: a write whose reply is lost in a
crash (the process really exits between the commit and the reply) is applied once when retried
after a restart, and a flood that disconnects does not take a service down.

Build first (`swift build`), then `python -m pytest Tests/Python/test_hardening.py`.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import pytest
import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousError, pack, request_frames  # noqa: E402
from sous_stack import Stack, log_tail  # noqa: E402

EXIT_AFTER_COMMIT = 86


@pytest.fixture
def stack(tmp_path):
    """The services a test starts (the planner signs its users in); the others point at ports
    nobody serves."""
    stack = Stack(tmp_path)
    yield stack
    stack.stop_all()


def exchange(client, frames: list, timeout_ms: int) -> list | None:
    """Sends hand-made frames over CURVE on a throwaway socket; None if nothing came back."""
    return client.exchange_raw(frames, timeout_ms=timeout_ms)


def test_a_write_retried_after_a_crash_between_commit_and_reply_is_applied_once(stack):
    stack.start_all(["planner"])
    token = stack.register("crash@example.org")
    # The tracker exits right after diary.add commits, before it replies.
    stack.start("tracker", SOUS_TEST_EXIT_AFTER_COMMIT="diary.add")
    stack.wait_healthy("tracker")
    today = datetime.date.today().isoformat()
    body = {"date": today, "meal": "lunch", "grams": 120, "food": "Crash bread",
            "per100g": {"kcal": 250, "carbohydrates": 45, "protein": 9, "fat": 3}}
    key = "crash-retry-1"
    frames = request_frames("diary.add", request_id="first", session=token, idempotency_key=key, raw_body=pack(body))
    with stack.client("tracker") as client:
        assert exchange(client, frames, timeout_ms=10_000) is None, "the tracker answered instead of dying"
    assert stack.processes.pop("tracker").wait(timeout=20) == EXIT_AFTER_COMMIT

    stack.start("tracker")
    stack.wait_healthy("tracker")
    with stack.client("tracker", session=token) as client:
        entry = client.call("diary.add", body, write=True, idempotency_key=key)
        assert entry["food"] == "Crash bread"
        day = client.call("diary.list", {"date": today})
        assert [e["id"] for e in day["entries"]] == [entry["id"]], "the write was applied once"
        again = client.call("diary.add", body, write=True, idempotency_key=key)
        assert again == entry, "the same reply is replayed"
        changed = dict(body, grams=121)
        with pytest.raises(SousError) as refused:
            client.call("diary.add", changed, write=True, idempotency_key=key)
        assert refused.value.code == "conflict" and refused.value.field == "header.idempotencyKey"


def test_floods_that_disconnect_leave_the_service_serving(stack):
    stack.start_all(["planner", "catalog"])
    token = stack.register("flood@example.org")
    with stack.client("catalog", session=token) as client:
        with pytest.raises(SousError) as huge:
            client.call("recipes.search", {"page": 2**62})
        assert huge.value.code == "badRequest" and huge.value.field == "page"
        secure = client.secure
    request = request_frames("recipes.search", request_id="flood", session=token, raw_body=pack({"query": "soup"}))
    context = zmq.Context.instance()
    for _ in range(4):
        socket = context.socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.SNDHWM, 0)
        secure(socket)
        socket.connect(stack.endpoints["catalog"][0])
        for _ in range(5000):
            socket.send_multipart(request)
        assert socket.poll(30_000, zmq.POLLIN), "no reply at all to the flood"
        socket.close()
    assert stack.processes["catalog"].poll() is None, f"the catalog died:\n{log_tail(stack.log('catalog'))}"
    with stack.client("catalog") as client:
        # health has its own lane: it answers even while the searches the flood left run out.
        assert client.call("health")["service"] == "catalog"
