"""The whole journey: the five real executables as processes on loopback ports the OS hands
out, each with its own temporary data folder, driven through the `sous` binary only (the test
harness itself only starts and kills processes, and moves the notifier's test clock).

    python -m pytest Tests/Python/test_journey.py

`SOUS_BIN_DIR` names the folder with the executables (default: .build/debug).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousClient, SousError  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVICES = ["catalog", "planner", "groceries", "tracker", "notifier"]
STARTUP_SECONDS = 30
COMMAND_SECONDS = 60
USER = "journey-ada"


def free_ports(count: int) -> list:
    """Ports the OS hands out right now on 127.0.0.1 (held together so they are distinct)."""
    probes = []
    try:
        for _ in range(count):
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            probe.bind(("127.0.0.1", 0))
            probes.append(probe)
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def log_tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class Stack:
    """The five services as processes, and the `sous` CLI pointed at them."""

    def __init__(self, bin_dir: Path, work: Path):
        self.bin_dir = bin_dir
        self.work = work
        ports = free_ports(2 * len(SERVICES))
        self.endpoints = {}
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("SOUS_")}
        for index, service in enumerate(SERVICES):
            requests = f"tcp://127.0.0.1:{ports[2 * index]}"
            events = f"tcp://127.0.0.1:{ports[2 * index + 1]}"
            self.endpoints[service] = (requests, events)
            prefix = f"SOUS_{service.upper()}"
            self.env[f"{prefix}_ENDPOINT"] = requests
            self.env[f"{prefix}_EVENTS"] = events
        self.env["SOUS_USER"] = USER
        self.env["SOUS_LOG_LEVEL"] = "info"
        self.env["SOUS_TIMEOUT_MS"] = "5000"
        self.processes: dict = {}

    def log(self, service: str) -> Path:
        return self.work / f"{service}.log"

    def start(self, service: str) -> None:
        requests, events = self.endpoints[service]
        env = dict(self.env)
        env["SOUS_DATA_DIR"] = str(self.work / service)
        env[f"SOUS_{service.upper()}_BIND"] = requests
        env[f"SOUS_{service.upper()}_EVENTS_BIND"] = events
        if service == "notifier":
            # The notifier's clock starts at the real time and only moves through `clock.set`.
            env["SOUS_CLOCK"] = "manual"
        executable = self.bin_dir / f"sous-{service}"
        if not executable.is_file():
            pytest.fail(f"{executable} does not exist: build first (swift build) or set SOUS_BIN_DIR")
        with open(self.log(service), "ab") as log_file:
            self.processes[service] = subprocess.Popen(
                [str(executable), "serve"], env=env, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, cwd=self.work
            )

    def wait_healthy(self, service: str) -> None:
        requests, _ = self.endpoints[service]
        give_up_at = time.monotonic() + STARTUP_SECONDS
        problem = "no attempt"
        while time.monotonic() < give_up_at:
            process = self.processes[service]
            if process.poll() is not None:
                pytest.fail(f"sous-{service} exited with {process.returncode} while starting:\n{log_tail(self.log(service))}")
            with SousClient(requests, timeout_ms=500, retries=0) as probe:
                try:
                    report = probe.call("health")
                    assert report["service"] == service
                    return
                except SousError as error:
                    problem = str(error)
        pytest.fail(f"sous-{service} did not answer health within {STARTUP_SECONDS} s ({problem}):\n{log_tail(self.log(service))}")

    def kill9(self, service: str) -> None:
        process = self.processes.pop(service)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def stop_all(self) -> dict:
        codes = {}
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for service, process in self.processes.items():
            try:
                codes[service] = process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                codes[service] = "did not stop within 20 s of SIGTERM"
        return codes

    def sous(self, *arguments: str, expect: int = 0) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [str(self.bin_dir / "sous"), *arguments], env=self.env, capture_output=True, text=True, timeout=COMMAND_SECONDS
        )
        assert result.returncode == expect, (
            f"sous {' '.join(arguments)} exited {result.returncode}, expected {expect}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
        return result

    def sous_json(self, *arguments: str):
        return json.loads(self.sous(*arguments, "--json").stdout)

    def set_notifier_clock(self, instant: datetime) -> None:
        """The test-only clock control (`clock.set`, a manual-clock service only)."""
        with SousClient(self.endpoints["notifier"][0], timeout_ms=5000, retries=0) as client:
            client.call("clock.set", {"now": instant}, write=True)


@pytest.fixture
def stack(tmp_path):
    bin_dir = Path(os.environ.get("SOUS_BIN_DIR") or REPO_ROOT / ".build" / "debug")
    stack = Stack(bin_dir, tmp_path)
    try:
        for service in SERVICES:
            stack.start(service)
        for service in SERVICES:
            stack.wait_healthy(service)
        yield stack
    finally:
        codes = stack.stop_all()
    bad = {service: code for service, code in codes.items() if code != 0}
    assert not bad, f"services did not stop cleanly: {bad}\n" + "\n".join(f"--- {s}\n{log_tail(stack.log(s))}" for s in bad)


def first_product_code() -> str:
    products = json.loads((REPO_ROOT / "Services/Tracker/TrackerService/Seed/products.json").read_text())["products"]
    return products[0]["code"]


def test_a_users_week(stack: Stack):
    rome = ZoneInfo("Europe/Rome")
    today = datetime.now(rome).date()
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
        assert "Waiting for reminders" in waiting, waiting
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
