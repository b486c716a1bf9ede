"""Two replicas of every service on one PostgreSQL, and `kill -9` of one replica of each in turn.

- Writes: client threads add grocery items and diary entries, each write with its own
  idempotency key, retried with that key on no reply, `unavailable` or `timeout` as
  docs/PROTOCOL.md ("Client rules", "Idempotency") says. While they run, one replica of each
  service is killed in turn (then the other replica of each), each restarted once some writes
  were acknowledged without it. Afterwards every acknowledged write is there (0 lost) and no
  write is there twice (0 duplicates): each write has a text of its own, so its occurrences
  can be counted.
- Reminders: 30 active users, every process's manual clock moved to the reminders' due instant
  and one notifier replica killed right after; after it restarts and the clocks move past the
  claim lease, every user has exactly one `sent` (or `skipped`) reminder for the day in the
  shared log, no reminder went out twice on the wire, and the notifier read each day's diary
  status from the tracker replicas (which ran throughout).

Needs PostgreSQL's server (`initdb` under /usr/lib/postgresql/*/bin, as
deploy/postgres-test-server.sh finds it); skipped without it. `SOUS_BIN_DIR` names the folder
with the executables (default: .build/debug).
"""

from __future__ import annotations

import collections
import datetime
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousError, read_server_key  # noqa: E402
from sous_stack import SERVICES, PostgresServer, ReplicaStack, postgres_available  # noqa: E402

pytestmark = pytest.mark.skipif(not postgres_available(), reason="PostgreSQL's server is not installed (initdb under /usr/lib/postgresql/*/bin)")

UTC = datetime.timezone.utc
START = datetime.datetime(2026, 1, 15, 17, 0, tzinfo=UTC)
DAY = START.date()
#: Diary entries are spread over this many days (ending on DAY), far below the per-day quota.
DIARY_DAYS = 10

#: Client threads, each writing for a user of its own.
LOAD_THREADS = 12
ATTEMPT_MS = 1500
#: A write is given up (and counted as unacknowledged) after this long of retrying.
WRITE_GIVE_UP_SECONDS = 40
#: Acknowledged writes to wait for before the first kill, after each kill and after each restart.
ACKS_PER_PHASE = 15
PHASE_SECONDS = 60
#: Which replica of each service is killed, in this order: one of each service in turn, then
#: the other one of each.
KILLS = [(service, 1) for service in SERVICES] + [(service, 2) for service in SERVICES]

REMINDER_USERS = 30
DUE = datetime.datetime.combine(DAY, datetime.time(19, 0), tzinfo=UTC)
REMINDERS_SECONDS = 60


@pytest.fixture
def replicas(tmp_path, capsys):
    """A private PostgreSQL and two replicas of each service on it, every clock manual at START."""
    server = PostgresServer()
    stack = None
    try:
        url = server.start()
        stack = ReplicaStack(tmp_path, url, replicas=2, SOUS_CLOCK="manual:" + START.strftime("%Y-%m-%dT%H:%M:%SZ"))
        stack.start_all()
        yield stack
    finally:
        try:
            if stack is not None:
                stopping = time.monotonic()
                codes = stack.stop_all()
                unclean = {f"{service}-{replica}": code for (service, replica), code in codes.items() if code != 0}
                with capsys.disabled():
                    print(f"\nreplicas stopped in {time.monotonic() - stopping:.1f} s; not cleanly: {unclean or 'none'}")
        finally:
            server.stop()


# MARK: Writes under kill -9


class WriteLoad:
    """Client threads writing until told to stop; every write has a unique text and key."""

    def __init__(self, stack: ReplicaStack, tokens: list):
        self.stack = stack
        self.tokens = tokens
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acked_changed = threading.Condition(self.lock)
        #: key → (user index, kind, text, date or None)
        self.attempted: dict = {}
        self.acknowledged: set = set()
        self.retries = 0
        #: retries per method
        self.retried = collections.Counter()
        #: key → attempts made
        self.attempts = collections.Counter()
        #: what happened when, for failure messages: (seconds since the start, event)
        self.timeline: list = []
        self.started = time.monotonic()
        #: (key, error) for writes answered with an error that is not to be retried
        self.refused: list = []
        #: keys given up after WRITE_GIVE_UP_SECONDS without an answer
        self.given_up: list = []
        self.errors_seen = collections.Counter()
        self.threads = [threading.Thread(target=self.run, args=(number,), name=f"load-{number}", daemon=True) for number in range(LOAD_THREADS)]
        self.crashed: list = []

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=WRITE_GIVE_UP_SECONDS + 10)
        stuck = [thread.name for thread in self.threads if thread.is_alive()]
        assert not stuck, f"load threads did not finish: {stuck}"
        assert not self.crashed, f"a load thread failed: {self.crashed}"

    def mark(self, event: str) -> None:
        with self.lock:
            self.timeline.append((time.monotonic() - self.started, f"{event} ({len(self.acknowledged)} acknowledged so far)"))

    def wait_for_acks(self, count: int, what: str) -> None:
        """Waits until `count` more writes than now are acknowledged (polling with a deadline)."""
        with self.lock:
            target = len(self.acknowledged) + count
            give_up_at = time.monotonic() + PHASE_SECONDS
            while len(self.acknowledged) < target:
                remaining = give_up_at - time.monotonic()
                if remaining <= 0 or self.crashed:
                    pytest.fail(
                        f"{what}: only {len(self.acknowledged)} of {target} writes acknowledged within {PHASE_SECONDS} s "
                        f"(errors {dict(self.errors_seen)}, crashed {self.crashed})\n{self.stack.log_tails()}"
                    )
                self.acked_changed.wait(timeout=min(remaining, 1.0))

    def run(self, number: int) -> None:
        try:
            groceries = self.stack.client("groceries", timeout_ms=ATTEMPT_MS)
            tracker = self.stack.client("tracker", timeout_ms=ATTEMPT_MS)
            with groceries, tracker:
                sequence = 0
                while not self.stop.is_set():
                    sequence += 1
                    user = number % len(self.tokens)
                    key = f"w{number}-{sequence}-{uuid.uuid4().hex[:8]}"
                    if sequence % 2:
                        text = f"item {key}"
                        record = (user, "item", text, None)
                        client, method, body = groceries, "groceries.addItem", {"text": text}
                    else:
                        text = f"food {key}"
                        date = (DAY - datetime.timedelta(days=sequence % DIARY_DAYS)).isoformat()
                        record = (user, "entry", text, date)
                        client, method = tracker, "diary.add"
                        body = {"date": date, "meal": "snack", "grams": 50, "food": text,
                                "per100g": {"kcal": 100, "carbohydrates": 10, "protein": 5, "fat": 2}}
                    with self.lock:
                        self.attempted[key] = record
                    self.write(client, method, body, key, self.tokens[user])
        except BaseException as error:  # noqa: BLE001 (reported by finish)
            self.crashed.append(f"{threading.current_thread().name}: {error!r}")

    def write(self, client, method: str, body: dict, key: str, token: str) -> None:
        """One logical write: the same key on every attempt, a new request id each time."""
        first_sent = time.monotonic()
        give_up_at = first_sent + WRITE_GIVE_UP_SECONDS
        first = True
        while True:
            with self.lock:
                self.attempts[key] += 1
                if not first:
                    self.retries += 1
                    self.retried[method] += 1
                    if self.attempts[key] == 2:
                        self.timeline.append((first_sent - self.started, f"{method} {key} sent, later retried"))
            first = False
            try:
                client.call(method, body, session=token, write=True, idempotency_key=key)
            except SousError as error:
                with self.lock:
                    self.errors_seen[error.code] += 1
                if error.code not in ("unavailable", "timeout"):
                    with self.lock:
                        self.refused.append((key, method, str(error)))
                    return
                if time.monotonic() >= give_up_at:
                    with self.lock:
                        self.given_up.append((key, method, str(error)))
                    return
                if error.code != "unavailable" or "did not answer" not in error.message:
                    # The service answered "later": back off a little (an attempt that got no
                    # reply has already waited its timeout).
                    time.sleep(0.1)
                continue
            with self.lock:
                self.acknowledged.add(key)
                self.acked_changed.notify_all()
            return


def read_back(stack: ReplicaStack, tokens: list) -> collections.Counter:
    """How often each (user, kind, text) occurs in the users' grocery lists and diaries."""
    found = collections.Counter()
    with stack.client("groceries", timeout_ms=10_000, retries=2) as groceries, stack.client("tracker", timeout_ms=10_000, retries=2) as tracker:
        for user, token in enumerate(tokens):
            grocery_list = groceries.call("groceries.list", session=token)
            for group in grocery_list["categories"]:
                for line in group["lines"]:
                    found[(user, "item", line["name"])] += 1
            for back in range(DIARY_DAYS):
                date = (DAY - datetime.timedelta(days=back)).isoformat()
                day = tracker.call("diary.list", {"date": date}, session=token)
                for entry in day["entries"]:
                    found[(user, "entry", entry["food"])] += 1
    return found


def test_acknowledged_writes_survive_kill9_of_each_service_replica_exactly_once(replicas: ReplicaStack, capsys):
    started = time.monotonic()
    tokens = [replicas.register(f"load-{number}@example.org", name=f"Load {number}") for number in range(LOAD_THREADS)]
    load = WriteLoad(replicas, tokens)
    load.start()
    kills = 0
    try:
        load.wait_for_acks(ACKS_PER_PHASE, "before the first kill")
        for service, replica in KILLS:
            replicas.kill9(service, replica)
            kills += 1
            load.mark(f"kill -9 {service}-{replica}")
            load.wait_for_acks(ACKS_PER_PHASE, f"after kill -9 of {service}-{replica}")
            replicas.start(service, replica)
            replicas.wait_healthy(service, replica)
            load.mark(f"{service}-{replica} restarted and healthy")
            load.wait_for_acks(ACKS_PER_PHASE, f"after {service}-{replica} restarted")
    finally:
        load.finish()

    found = read_back(replicas, tokens)
    texts = {key: (user, kind, text) for key, (user, kind, text, _) in load.attempted.items()}
    lost = sorted(key for key in load.acknowledged if found[texts[key]] == 0)
    duplicated = sorted(key for key in texts if found[texts[key]] > 1)
    strangers = sorted(entry for entry in found if entry not in set(texts.values()))
    unacknowledged_present = sum(1 for key in texts if key not in load.acknowledged and found[texts[key]] == 1)
    with capsys.disabled():
        print(
            f"\nreplicas: {len(load.attempted)} writes attempted, {len(load.acknowledged)} acknowledged, {load.retries} retries "
            f"{dict(load.retried)}, {kills} kills, lost {len(lost)}, duplicates {len(duplicated)}; "
            f"{len(load.given_up)} given up ({unacknowledged_present} of those applied anyway), {len(load.refused)} refused; "
            f"errors retried {dict(load.errors_seen)}; {time.monotonic() - started:.1f} s"
        )

    def described(keys) -> str:
        return "\n".join(
            f"  {texts[key]} found {found[texts[key]]}x, {load.attempts[key]} attempts, acknowledged: {key in load.acknowledged}"
            for key in keys[:10]
        )

    timeline = "\n".join(f"  {at:7.2f} s  {event}" for at, event in sorted(load.timeline))
    assert not lost, f"{len(lost)} acknowledged writes are missing:\n{described(lost)}\ntimeline:\n{timeline}"
    assert not duplicated, f"{len(duplicated)} writes applied more than once:\n{described(duplicated)}\ntimeline:\n{timeline}"
    assert not strangers, f"rows nobody wrote: {strangers[:10]}"
    assert not load.refused, f"writes refused with an error that is not to be retried: {load.refused[:10]}"
    assert not load.given_up, f"writes never acknowledged within {WRITE_GIVE_UP_SECONDS} s of retrying: {load.given_up[:10]}"


# MARK: Reminders exactly once


def reminder_subscriber(stack: ReplicaStack) -> zmq.Socket:
    """A SUB on both notifier replicas' event sockets for `reminder.` topics. The event bus only
    lets in the services' own keys, so it borrows the groceries' key pair from its data folder
    (the test owns the deployment)."""
    secret = (stack.data_dir("groceries") / "groceries.curve").read_text().strip().encode()
    socket = zmq.Context.instance().socket(zmq.SUB)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RECONNECT_IVL, 100)
    socket.curve_serverkey = read_server_key(stack.keys, "notifier")
    socket.curve_secretkey = secret
    socket.curve_publickey = zmq.curve_public(secret)
    socket.setsockopt(zmq.SUBSCRIBE, b"reminder.")
    for replica in stack.replica_numbers:
        socket.connect(stack.endpoints[("notifier", replica)][1])
    return socket


def drain(socket: zmq.Socket, wire: collections.Counter) -> None:
    """Counts every reminder message waiting on `socket` per topic (user); never blocks."""
    while socket.poll(0, zmq.POLLIN):
        frames = socket.recv_multipart(zmq.NOBLOCK)
        topic = bytes(frames[0]).rstrip(b"\0").decode()
        wire[topic.removeprefix("reminder.")] += 1


def set_every_clock(stack: ReplicaStack, instant: datetime.datetime, operator: str, services=SERVICES) -> None:
    for service, replica in stack.all_replicas(services):
        if (service, replica) in stack.processes:
            stack.set_clock(service, replica, instant, operator)


def test_each_reminder_is_recorded_once_when_a_notifier_replica_dies_at_the_due_instant(replicas: ReplicaStack, capsys):
    started = time.monotonic()
    wire = collections.Counter()
    subscriber = reminder_subscriber(replicas)
    try:
        operator = replicas.create_operator()
        users = {}
        with replicas.client("planner", timeout_ms=10_000, retries=2) as planner:
            for number in range(REMINDER_USERS):
                token = replicas.register(f"remind-{number}@example.org", name=f"Remind {number}")
                # A planner write: activity, which schedules today's 19:00 UTC reminder.
                profile = planner.call("profile.update", {"timeZone": "UTC", "reminderHour": 19}, session=token, write=True)
                assert profile["timeZone"] == "UTC" and profile["remindersEnabled"], profile
                users[token] = None

        # Every user's reminder is scheduled (the activity events reached the notifiers). PUB/SUB
        # drops an event published before a notifier's subscription finished joining, so a user
        # still waiting after a few seconds is made active again.
        with replicas.client("notifier", timeout_ms=5_000, retries=2) as notifier, \
                replicas.client("planner", timeout_ms=10_000, retries=2) as planner:
            give_up_at = time.monotonic() + REMINDERS_SECONDS
            waiting = set(users)
            write_again_at = time.monotonic() + 3
            while waiting:
                if time.monotonic() > write_again_at:
                    for token in sorted(waiting):
                        planner.call("profile.update", {"timeZone": "UTC", "reminderHour": 19}, session=token, write=True)
                    write_again_at = time.monotonic() + 3
                for token in sorted(waiting):
                    upcoming = notifier.call("reminders.next", session=token)
                    if upcoming["status"] == "scheduled":
                        assert upcoming["dueAt"] == DUE and upcoming["date"] == DAY.isoformat(), upcoming
                        users[token] = upcoming["user"]
                        waiting.discard(token)
                if waiting and time.monotonic() > give_up_at:
                    pytest.fail(f"{len(waiting)} users never got a scheduled reminder:\n{replicas.log_tails(replicas.all_replicas(['notifier']))}")
                if waiting:
                    time.sleep(0.1)  # a poll interval, not a synchronization
        drain(subscriber, wire)
        assert not wire, f"reminders published before they were due: {dict(wire)}"

        # The due instant everywhere (notifiers last), then one notifier dies in the middle of it.
        set_every_clock(replicas, DUE, operator, ["catalog", "planner", "groceries", "tracker"])
        replicas.set_clock("notifier", 2, DUE, operator)
        replicas.set_clock("notifier", 1, DUE, operator)
        replicas.kill9("notifier", 1)
        replicas.start("notifier", 1)
        replicas.wait_healthy("notifier", 1)
        # It restarted with its clock at START: bring it to the due instant too, then move every
        # clock past the claim lease (about 60 s of the service clock) so what the dead one
        # claimed is taken over.
        replicas.set_clock("notifier", 1, DUE, operator)
        set_every_clock(replicas, DUE + datetime.timedelta(minutes=5), operator)
        set_every_clock(replicas, DUE + datetime.timedelta(minutes=10), operator)

        with replicas.client("notifier", timeout_ms=5_000, retries=2) as notifier:
            give_up_at = time.monotonic() + REMINDERS_SECONDS
            logs = {}
            while True:
                drain(subscriber, wire)
                for token, user in users.items():
                    if len([entry for entry in logs.get(user, []) if entry["date"] == DAY.isoformat()]) != 1:
                        logs[user] = notifier.call("reminders.list", {"limit": 30}, session=token)["entries"]
                handled = [user for user in users.values() if any(entry["date"] == DAY.isoformat() for entry in logs[user])]
                if len(handled) == len(users) or time.monotonic() > give_up_at:
                    break
                time.sleep(0.2)  # a poll interval, not a synchronization
            # Anything still on its way out.
            give_up_at = time.monotonic() + 1.0
            while time.monotonic() < give_up_at:
                if subscriber.poll(100, zmq.POLLIN):
                    drain(subscriber, wire)
            for token, user in users.items():
                logs[user] = notifier.call("reminders.list", {"limit": 30}, session=token)["entries"]
    finally:
        subscriber.close(linger=0)

    per_day = {user: collections.Counter(entry["date"] for entry in logs[user]) for user in users.values()}
    missing = sorted(user for user, days in per_day.items() if days[DAY.isoformat()] == 0)
    twice = {user: dict(days) for user, days in per_day.items() if any(count > 1 for count in days.values())}
    other_days = {user: dict(days) for user, days in per_day.items() if set(days) - {DAY.isoformat()}}
    outcomes = collections.Counter(entry["outcome"] for user in users.values() for entry in logs[user])
    on_wire_twice = {user: count for user, count in wire.items() if count > 1}
    blind = sorted(user for user in users.values() for entry in logs[user] if entry["outcome"] == "sent" and entry.get("kcalGoal") is None)
    with capsys.disabled():
        print(
            f"\nreminders: {len(users)} users, {sum(outcomes.values())} log entries {dict(outcomes)}, missing {len(missing)}, "
            f"twice {len(twice)}, published {sum(wire.values())} (to {len(wire)} users, {len(on_wire_twice)} twice), "
            f"{len(blind)} sent without the diary statuses; "
            f"{time.monotonic() - started:.1f} s"
        )
    notifier_logs = replicas.log_tails(replicas.all_replicas(["notifier"]), lines=30)
    assert not missing, f"{len(missing)} of {len(users)} users have no reminder logged for {DAY} after {REMINDERS_SECONDS} s:\n{notifier_logs}"
    assert not twice, f"reminders logged twice for one user-day: {twice}"
    assert not other_days, f"reminders logged for other days: {other_days}"
    assert set(outcomes) <= {"sent", "skipped"}, f"outcomes other than sent/skipped: {dict(outcomes)}\n{notifier_logs}"
    assert not on_wire_twice, f"reminders published more than once: {on_wire_twice}"
    assert set(wire) <= set(users.values()), f"reminders published to users of another test: {set(wire) - set(users.values())}"
    # The tracker ran throughout: the notifier should have read the day's diary statuses
    # (kcal and goal) for every reminder it sent, not fallen back to sending without them.
    assert not blind, (
        f"{len(blind)} reminders were sent without the diary statuses although the tracker was up "
        f"(the notifier's diary.statuses call to the tracker replicas was not answered):\n{notifier_logs}"
    )
