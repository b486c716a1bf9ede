"""Reminder channels against the real planner, tracker and notifier processes over CURVE, each
webhook POSTed to a real HTTP server (Tests/Support/http_catcher.py, a child process that
reports every request it gets as a JSON line on stdout).

- A reminder's delivery is not lost across a kill -9 of the notifier, and reaches each channel
  once: ada's webhook hangs on its first POST (the notifier is killed while that attempt holds
  its 600 s lease), bob's answers at once. After the restart ada's retry waits for the lease to
  end, then goes out with the same `Sous-Delivery` and body; bob's endpoint never sees a second
  POST, and his is signed with the secret `reminders.addChannel` gave.
- `reminders.testChannel`: a redirect (to a private address) is not followed and stays pending;
  a 410 fails for good and switches the channel off.
- `reminders.addChannel` refuses a bad ntfy topic, a private webhook address and an unknown
  kind, each a badRequest naming the field.

The notifier runs on a manual clock (`SOUS_CLOCK=manual`, moved with `clock.set`) and with
`SOUS_FETCH_ALLOW=127.0.0.0/8`, so channels may reach the catcher over http on loopback.
`SOUS_BIN_DIR` names the folder with the executables (default: .build/debug).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import queue
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousError  # noqa: E402
from sous_stack import REPO_ROOT, Stack, log_tail  # noqa: E402

CATCHER = REPO_ROOT / "Tests" / "Support" / "http_catcher.py"
#: The bound on every wait in this file, in seconds.
WAIT_SECONDS = 60
#: `reminders.testChannel` waits up to 15 s for the courier's attempt: the client waits longer.
TEST_CHANNEL_TIMEOUT_MS = 30_000
#: How long one delivery attempt is leased to the process making it (of the service clock).
LEASE = timedelta(seconds=600)
WEB_URL = "https://sous.example.org"
NOTIFIER_ENV = {"SOUS_FETCH_ALLOW": "127.0.0.0/8", "SOUS_WEB_URL": WEB_URL}


class HttpCatcher:
    """http_catcher.py in a child process; each request it reports arrives on a queue."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, str(CATCHER), "--port", "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        self.lines: queue.Queue = queue.Queue()
        #: Every request reported so far, in order.
        self.received: list = []
        #: Reported requests not yet returned by `take`.
        self.untaken: list = []
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self.port = self.lines.get(timeout=WAIT_SECONDS)["port"]
        except queue.Empty:
            self.stop()
            pytest.fail(f"{CATCHER.name} did not print its port within {WAIT_SECONDS} s")
        self.origin = f"http://127.0.0.1:{self.port}"

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(json.loads(line))

    def _drain(self) -> None:
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            self.received.append(line)
            self.untaken.append(line)

    def take(self, timeout: float = WAIT_SECONDS, **match) -> dict:
        """The first reported request not yet taken whose fields have these values, waiting for
        it at most `timeout` seconds."""
        give_up_at = time.monotonic() + timeout
        while True:
            for line in self.untaken:
                if all(line.get(key) == value for key, value in match.items()):
                    self.untaken.remove(line)
                    return line
            remaining = give_up_at - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no request with {match} within {timeout} s; requests so far: {self.summary()}")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            self.received.append(line)
            self.untaken.append(line)

    def requests(self, **match) -> list:
        """Every request reported so far (taken or not) whose fields have these values."""
        self._drain()
        return [line for line in self.received if all(line.get(key) == value for key, value in match.items())]

    def summary(self) -> list:
        return [(line["method"], line["path"], line["status"], line["headers"].get("sous-event")) for line in self.received]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()  # it exits on EOF, hanging handlers and all
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture(name="setup")
def setup_fixture(tmp_path):
    """The catcher, and planner, tracker and notifier (manual clock) as processes."""
    catcher = HttpCatcher()
    stack = Stack(tmp_path)
    try:
        stack.start("planner")
        stack.start("tracker")
        # The notifier's clock starts at the real time and only moves through `clock.set`.
        stack.start("notifier", SOUS_CLOCK="manual", **NOTIFIER_ENV)
        for service in ["planner", "tracker", "notifier"]:
            stack.wait_healthy(service)
        yield stack, catcher
        stack.assert_stopped_cleanly()
    finally:
        stack.stop_all()
        catcher.stop()


# MARK: Helpers


def set_clock(stack: Stack, operator: str, instant: datetime) -> None:
    with stack.client("notifier", session=operator) as notifier:
        reading = notifier.call("clock.set", {"now": instant}, write=True)
    assert reading["manual"] is True and reading["now"] == instant, reading


def add_webhook(stack: Stack, token: str, address: str, label: str) -> dict:
    with stack.client("notifier", session=token) as notifier:
        added = notifier.call("reminders.addChannel", {"kind": "webhook", "address": address, "label": label}, write=True)
    channel = added["channel"]
    assert (channel["kind"], channel["address"], channel["label"]) == ("webhook", address, label), added
    assert channel["enabled"] is True and channel["disabledReason"] is None and channel["id"], added
    assert isinstance(added["secret"], str) and len(added["secret"]) >= 32, added
    return added


def try_channel(stack: Stack, token: str, channel_id: str) -> dict:
    """`reminders.testChannel`: the delivery as it stood after the courier's first attempt."""
    with stack.client("notifier", session=token, timeout_ms=TEST_CHANNEL_TIMEOUT_MS) as notifier:
        return notifier.call("reminders.testChannel", {"id": channel_id}, write=True)["delivery"]


def deliveries(stack: Stack, token: str, date: str) -> list:
    """The day's deliveries to channels, as `reminders.list` shows them."""
    with stack.client("notifier", session=token) as notifier:
        entries = notifier.call("reminders.list", {"limit": 30}, session=token)["entries"]
    day = [entry for entry in entries if str(entry["date"]) == date]
    assert len(day) <= 1, entries
    return (day[0].get("deliveries") or []) if day else []


def wait_for_delivery(stack: Stack, token: str, date: str, channel_id: str, state: str) -> dict:
    """Polls `reminders.list` until the day's delivery to `channel_id` is in `state` (no event
    says so; a bounded poll)."""
    give_up_at = time.monotonic() + WAIT_SECONDS
    while True:
        found = [delivery for delivery in deliveries(stack, token, date) if delivery["channel"] == channel_id]
        if found and found[0]["state"] == state:
            return found[0]
        if time.monotonic() > give_up_at:
            pytest.fail(f"the delivery to {channel_id} for {date} is {found}, not {state}, after {WAIT_SECONDS} s:\n{log_tail(stack.log('notifier'))}")
        time.sleep(0.1)  # a poll interval, not a synchronization


def make_active(stack: Stack, token: str) -> dict:
    """A planner write (activity) until `reminders.next` shows the reminder it scheduled.

    The notifier learns of activity from the planner's events, and PUB/SUB drops what was
    published before the notifier's subscription finished joining (a CURVE handshake after both
    processes started), so the write is repeated every few seconds until one is seen; a
    bounded poll."""
    give_up_at = time.monotonic() + WAIT_SECONDS
    with stack.client("planner") as planner, stack.client("notifier", session=token) as notifier:
        while True:
            profile = planner.call("profile.update", {"timeZone": "UTC", "reminderHour": 19}, session=token, write=True)
            assert profile["timeZone"] == "UTC" and profile["reminderHour"] == 19 and profile["remindersEnabled"], profile
            write_again_at = time.monotonic() + 3
            while time.monotonic() < write_again_at:
                upcoming = notifier.call("reminders.next")
                if upcoming["status"] == "scheduled":
                    return upcoming
                if time.monotonic() > give_up_at:
                    pytest.fail(f"no reminder scheduled after {WAIT_SECONDS} s: {upcoming}\n{log_tail(stack.log('notifier'))}")
                time.sleep(0.1)  # a poll interval, not a synchronization


def courier_caught_up(stack: Stack, token: str, channel_id: str, catcher: HttpCatcher) -> None:
    """A test message through a channel of its own, as a barrier: the courier claimed it at a
    clock at least as late as the last `clock.set`, and a claim takes everything due then, so
    any delivery due by now has been claimed (its attempts counted) once this returns."""
    delivery = try_channel(stack, token, channel_id)
    assert delivery["state"] == "sent", delivery
    assert catcher.take(path="/hook/barrier")["headers"]["sous-event"] == "test"


def signature_verifies(request: dict, secret: str) -> bool:
    """`Sous-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`."""
    fields = dict(part.split("=", 1) for part in request["headers"]["sous-signature"].split(","))
    body = base64.b64decode(request["body_b64"])
    expected = hmac.new(secret.encode(), fields["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return fields["t"].isdigit() and hmac.compare_digest(fields["v1"], expected)


def reminder_body(request: dict) -> dict:
    """The webhook's JSON body, checked to be written with sorted keys and no nulls."""
    raw = request["body"]
    body = json.loads(raw)
    assert list(body) == sorted(body), raw
    assert None not in body.values(), raw
    return body


# MARK: Tests


def test_a_delivery_survives_a_kill_and_reaches_each_channel_once(setup):
    stack, catcher = setup
    operator = stack.create_operator()
    ada = stack.register("ada@example.org", name="Ada")
    bob = stack.register("bob@example.org", name="Bob")
    carol = stack.register("carol@example.org", name="Carol")  # never active: her channel is a barrier
    ada_hook = add_webhook(stack, ada, f"{catcher.origin}/hang-first/ada", "ada's hook")
    bob_hook = add_webhook(stack, bob, f"{catcher.origin}/hook/bob", "bob's hook")
    barrier = add_webhook(stack, carol, f"{catcher.origin}/hook/barrier", "barrier")["channel"]["id"]
    ada_channel, bob_channel = ada_hook["channel"]["id"], bob_hook["channel"]["id"]

    # A planner write is activity: each gets the next 19:00 UTC scheduled.
    ada_next, bob_next = make_active(stack, ada), make_active(stack, bob)
    due = ada_next["dueAt"]
    assert bob_next["dueAt"] == due and bob_next["date"] == ada_next["date"], (
        f"the two were scheduled for different instants (the test ran across 19:00 UTC?): {ada_next} {bob_next}")
    assert due.hour == 19 and due.minute == 0, ada_next
    date = ada_next["date"]
    assert catcher.requests() == [], "a channel was POSTed to before the reminder was due"

    # 19:00: both reminders are decided; bob's POST is answered, ada's first one hangs.
    set_clock(stack, operator, due + timedelta(seconds=1))
    bob_post = catcher.take(path="/hook/bob")
    ada_first = catcher.take(path="/hang-first/ada")
    assert bob_post["status"] == 200 and ada_first["status"] is None, catcher.summary()
    bob_sent = wait_for_delivery(stack, bob, date, bob_channel, "sent")
    assert bob_sent["attempts"] == 1 and bob_sent["kind"] == "webhook" and bob_sent["reason"] is None, bob_sent
    [ada_pending] = deliveries(stack, ada, date)
    # Its attempt is still in flight (holding its lease), not failed and waiting for a retry.
    assert (ada_pending["channel"], ada_pending["state"], ada_pending["attempts"], ada_pending["reason"]) == (
        ada_channel, "pending", 1, None), ada_pending

    # kill -9 in the middle of ada's attempt; the restarted notifier's clock is where it was.
    stack.kill9("notifier")
    stack.start("notifier", SOUS_CLOCK="manual:" + (due + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ"), **NOTIFIER_ENV)
    stack.wait_healthy("notifier")

    # Within the lease the dead process's attempt is not taken over.
    set_clock(stack, operator, due + timedelta(minutes=5))
    courier_caught_up(stack, carol, barrier, catcher)
    [ada_leased] = deliveries(stack, ada, date)
    assert (ada_leased["state"], ada_leased["attempts"]) == ("pending", 1), ada_leased
    assert len(catcher.requests(path="/hang-first/ada")) == 1, catcher.summary()

    # Past the lease: ada's retry, the same delivery with the same body, is answered.
    set_clock(stack, operator, due + LEASE + timedelta(minutes=1))
    ada_retry = catcher.take(path="/hang-first/ada")
    assert ada_retry["status"] == 200, ada_retry
    assert ada_retry["method"] == ada_first["method"] == "POST"
    assert ada_retry["headers"]["sous-delivery"] == ada_first["headers"]["sous-delivery"], (ada_first["headers"], ada_retry["headers"])
    assert ada_retry["body_b64"] == ada_first["body_b64"], (ada_first["body"], ada_retry["body"])
    assert ada_retry["headers"]["sous-event"] == "reminder"
    assert signature_verifies(ada_first, ada_hook["secret"]) and signature_verifies(ada_retry, ada_hook["secret"]), ada_retry["headers"]
    ada_sent = wait_for_delivery(stack, ada, date, ada_channel, "sent")
    assert ada_sent["attempts"] == 2 and ada_sent["reason"] is None and ada_sent["at"] is not None, ada_sent

    # Two hours on, nothing else goes out: bob's endpoint had one POST in all, ada's two.
    set_clock(stack, operator, due + LEASE + timedelta(hours=2, minutes=1))
    courier_caught_up(stack, carol, barrier, catcher)
    assert len(catcher.requests(path="/hook/bob")) == 1, catcher.summary()
    assert len(catcher.requests(path="/hang-first/ada")) == 2, catcher.summary()
    [bob_final] = deliveries(stack, bob, date)
    assert (bob_final["state"], bob_final["attempts"]) == ("sent", 1), bob_final
    [ada_final] = deliveries(stack, ada, date)
    assert (ada_final["state"], ada_final["attempts"]) == ("sent", 2), ada_final

    # Bob's POST: its headers, its body, and a signature made with his channel's secret.
    headers = bob_post["headers"]
    assert headers["content-type"] == "application/json" and headers["sous-event"] == "reminder", headers
    assert headers["sous-delivery"] and headers["sous-delivery"] != ada_first["headers"]["sous-delivery"], headers
    assert signature_verifies(bob_post, bob_hook["secret"]), headers["sous-signature"]
    assert not signature_verifies(bob_post, ada_hook["secret"])
    with stack.client("notifier", session=bob) as notifier:
        log = notifier.call("reminders.list", {"limit": 30})
    [entry] = [entry for entry in log["entries"] if str(entry["date"]) == date]
    assert entry["outcome"] == "sent", entry
    body = reminder_body(bob_post)
    assert (body["event"], body["user"], body["date"], body["url"]) == ("reminder", log["user"], date, f"{WEB_URL}/diary"), body
    assert body["title"] and body["body"], body
    assert body.get("kcal") == entry.get("kcal") and body.get("kcalGoal") == entry.get("kcalGoal"), (body, entry)
    assert entry.get("kcalGoal") is not None, f"the tracker was up, yet the reminder went without the day's goal: {entry}"
    assert set(body) <= {"event", "user", "date", "title", "body", "url", "kcal", "kcalGoal"}, body
    ada_body = reminder_body(ada_retry)
    assert (ada_body["event"], ada_body["date"]) == ("reminder", date) and ada_body["user"] != body["user"], ada_body


def test_a_redirect_is_not_followed_and_a_gone_endpoint_is_switched_off(setup):
    stack, catcher = setup
    cy = stack.register("cy@example.org", name="Cy")
    dan = stack.register("dan@example.org", name="Dan")
    redirecting = add_webhook(stack, cy, f"{catcher.origin}/redirect/x?to=http%3A%2F%2F10.0.0.1%2F", "redirects")["channel"]["id"]
    gone = add_webhook(stack, dan, f"{catcher.origin}/status/410/x", "gone")["channel"]["id"]

    # A redirect (here to a private address) is not followed: the delivery waits for a retry.
    delivery = try_channel(stack, cy, redirecting)
    assert (delivery["channel"], delivery["kind"], delivery["state"], delivery["attempts"]) == (redirecting, "webhook", "pending", 1), delivery
    assert "redirect" in (delivery["reason"] or ""), delivery
    asked = catcher.take(path="/redirect/x")
    assert asked["status"] == 302 and asked["query"] == "to=http%3A%2F%2F10.0.0.1%2F" and asked["headers"]["sous-event"] == "test", asked
    with stack.client("notifier", session=cy) as notifier:
        [channel] = notifier.call("reminders.channels")["channels"]
    assert channel["id"] == redirecting and channel["enabled"] is True, channel

    # 410 Gone fails for good and switches the channel off; a dead endpoint held nobody back.
    delivery = try_channel(stack, dan, gone)
    assert (delivery["channel"], delivery["state"], delivery["attempts"]) == (gone, "failed", 1), delivery
    assert "410" in (delivery["reason"] or "") and delivery["at"] is not None, delivery
    assert catcher.take(path="/status/410/x")["status"] == 410
    with stack.client("notifier", session=dan) as notifier:
        listed = notifier.call("reminders.channels")
    [channel] = listed["channels"]
    assert channel["id"] == gone and channel["enabled"] is False and "410" in (channel["disabledReason"] or ""), listed
    assert listed["mailConfigured"] is False and listed["pushKey"], listed
    assert len(catcher.requests(path="/redirect/x")) == 1, catcher.summary()


def test_bad_channels_are_refused_naming_the_field(setup):
    stack, catcher = setup
    eve = stack.register("eve@example.org", name="Eve")
    refusals = [
        ({"kind": "ntfy", "address": "bad topic!"}, "address"),
        ({"kind": "webhook", "address": "https://10.0.0.1/x"}, "address"),
        ({"kind": "carrier-pigeon", "address": f"{catcher.origin}/hook/pigeon"}, "kind"),
    ]
    with stack.client("notifier", session=eve) as notifier:
        for body, field in refusals:
            with pytest.raises(SousError) as refused:
                notifier.call("reminders.addChannel", body, write=True)
            assert (refused.value.code, refused.value.field) == ("badRequest", field), (body, refused.value)
        assert notifier.call("reminders.channels")["channels"] == []
    assert catcher.requests() == []
