"""Attacks on the real executables, from another language: a write whose reply is lost in a
crash (the process really exits between the commit and the reply) is applied once when retried
after a restart, and a flood that disconnects does not take a service down.

Build first (`swift build`), then `python -m pytest Tests/Python/test_hardening.py`.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousClient, SousError, pack, request_frames  # noqa: E402
from test_journey import free_ports, log_tail  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 30
EXIT_AFTER_COMMIT = 86


class Service:
    """One service executable on free loopback ports; its peers point at nothing."""

    def __init__(self, name: str, work: Path):
        self.name = name
        self.work = work
        requests, events = free_ports(2)
        self.endpoint = f"tcp://127.0.0.1:{requests}"
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("SOUS_")}
        self.env.update({
            "SOUS_DATA_DIR": str(work / "data"),
            "SOUS_LOG_LEVEL": "info",
            f"SOUS_{name.upper()}_ENDPOINT": self.endpoint,
            f"SOUS_{name.upper()}_EVENTS": f"tcp://127.0.0.1:{events}",
            "SOUS_TIMEOUT_MS": "1000",
        })
        for peer in ("catalog", "planner", "groceries", "tracker", "notifier"):
            if peer != name:
                self.env[f"SOUS_{peer.upper()}_ENDPOINT"] = "tcp://127.0.0.1:9"
        self.process = None

    @property
    def log(self) -> Path:
        return self.work / f"{self.name}.log"

    def start(self, **extra_env: str) -> None:
        bin_dir = Path(os.environ.get("SOUS_BIN_DIR") or REPO_ROOT / ".build" / "debug")
        with open(self.log, "ab") as log_file:
            self.process = subprocess.Popen(
                [str(bin_dir / f"sous-{self.name}"), "serve"], env={**self.env, **extra_env},
                stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, cwd=self.work,
            )
        give_up_at = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < give_up_at:
            if self.process.poll() is not None:
                pytest.fail(f"sous-{self.name} exited with {self.process.returncode} while starting:\n{log_tail(self.log)}")
            with SousClient(self.endpoint, timeout_ms=500, retries=0) as probe:
                try:
                    probe.call("health")
                    return
                except SousError:
                    continue
        pytest.fail(f"sous-{self.name} did not answer health:\n{log_tail(self.log)}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


@pytest.fixture
def services(tmp_path):
    started = []

    def make(name: str) -> Service:
        service = Service(name, tmp_path)
        started.append(service)
        return service

    yield make
    for service in started:
        service.stop()


def exchange(endpoint: str, frames: list, timeout_ms: int) -> list | None:
    context = zmq.Context.instance()
    socket = context.socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    try:
        socket.connect(endpoint)
        socket.send_multipart(frames)
        if not socket.poll(timeout_ms, zmq.POLLIN):
            return None
        return socket.recv_multipart()
    finally:
        socket.close()


def test_a_write_retried_after_a_crash_between_commit_and_reply_is_applied_once(services):
    tracker = services("tracker")
    # The tracker exits right after diary.add commits, before it replies.
    tracker.start(SOUS_TEST_EXIT_AFTER_COMMIT="diary.add")
    today = datetime.date.today().isoformat()
    body = {"date": today, "meal": "lunch", "grams": 120, "food": "Crash bread",
            "per100g": {"kcal": 250, "carbohydrates": 45, "protein": 9, "fat": 3}}
    key = "crash-retry-1"
    frames = request_frames("diary.add", request_id="first", user="ada", idempotency_key=key, raw_body=pack(body))
    assert exchange(tracker.endpoint, frames, timeout_ms=10_000) is None, "the tracker answered instead of dying"
    assert tracker.process.wait(timeout=20) == EXIT_AFTER_COMMIT

    tracker.start()
    with SousClient(tracker.endpoint, timeout_ms=10_000, retries=0) as client:
        entry = client.call("diary.add", body, user="ada", write=True, idempotency_key=key)
        assert entry["food"] == "Crash bread"
        day = client.call("diary.list", {"date": today}, user="ada")
        assert [e["id"] for e in day["entries"]] == [entry["id"]], "the write was applied once"
        again = client.call("diary.add", body, user="ada", write=True, idempotency_key=key)
        assert again == entry, "the same reply is replayed"
        changed = dict(body, grams=121)
        with pytest.raises(SousError) as refused:
            client.call("diary.add", changed, user="ada", write=True, idempotency_key=key)
        assert refused.value.code == "conflict" and refused.value.field == "header.idempotencyKey"


def test_floods_that_disconnect_leave_the_service_serving(services):
    catalog = services("catalog")
    catalog.start()
    with SousClient(catalog.endpoint, timeout_ms=10_000, retries=0) as client:
        with pytest.raises(SousError) as huge:
            client.call("recipes.search", {"page": 2**62})
        assert huge.value.code == "badRequest" and huge.value.field == "page"
    request = request_frames("recipes.search", request_id="flood", raw_body=pack({"query": "soup"}))
    context = zmq.Context.instance()
    for _ in range(4):
        socket = context.socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.SNDHWM, 0)
        socket.connect(catalog.endpoint)
        for _ in range(5000):
            socket.send_multipart(request)
        assert socket.poll(30_000, zmq.POLLIN), "no reply at all to the flood"
        socket.close()
    assert catalog.process.poll() is None, f"the catalog died:\n{log_tail(catalog.log)}"
    with SousClient(catalog.endpoint, timeout_ms=10_000, retries=0) as client:
        # health has its own lane: it answers even while the searches the flood left run out.
        assert client.call("health")["service"] == "catalog"
