"""`sous-server all`: the five services in one process, each on its own loopback ports, driven
through the `sous` binary: every service answers as itself, the calls between them (over
ZeroMQ, as between processes) and the events the notifier follows work, and SIGTERM stops the
whole process cleanly.

    python -m pytest Tests/Python/test_all_in_one.py

`SOUS_BIN_DIR` names the folder with the executables (default: .build/debug).
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_stack import PASSWORD, SERVICES  # noqa: E402
from test_journey import Journey  # noqa: E402


class OneProcess(Journey):
    """The five services as one `sous-server all` process, with one data folder and one log."""

    def all_in_one_env(self) -> dict:
        """One data folder; each service binds the endpoints the stack gave it."""
        env = dict(self.env, SOUS_DATA_DIR=str(self.work / "data"))
        for service in SERVICES:
            env[f"SOUS_{service.upper()}_BIND"], env[f"SOUS_{service.upper()}_EVENTS_BIND"] = self.endpoints[service]
        return env

    def start_all_in_one(self) -> None:
        with open(self.log("all"), "ab") as log_file:
            self.processes["all"] = subprocess.Popen(
                [str(self.bin_dir / "sous-server"), "all"], env=self.all_in_one_env(), stdin=subprocess.DEVNULL, stdout=log_file,
                stderr=subprocess.STDOUT, cwd=self.work,
            )

    def log(self, service: str) -> Path:
        return self.work / "all.log"

    def process(self, service: str) -> subprocess.Popen:
        return self.processes["all"]


@pytest.fixture
def one_process(tmp_path):
    stack = OneProcess(tmp_path)
    try:
        stack.start_all_in_one()
        for service in SERVICES:
            stack.wait_healthy(service)  # each answers `health` naming itself
        yield stack
    finally:
        stack.assert_stopped_cleanly()


def test_the_five_in_one_process_serve_and_call_each_other(one_process: OneProcess):
    stack = one_process
    status = stack.sous_json("status")
    assert sorted(row["service"] for row in status) == sorted(SERVICES) and all(row["up"] for row in status), status

    stack.sous("register", "--email", "one-process@example.org", "--name", "Ada", stdin=PASSWORD + "\n")
    stack.sous_json("profile", "set", "--people", "2", "--time-zone", "Europe/Rome")  # planner
    recipe = stack.sous_json("recipes", "search", "--page-size", "5")["recipes"][0]["id"]  # catalog, with the planner's profile
    stack.sous("plan", "put", "today", "lunch", recipe)  # planner → catalog
    stack.sous("groceries", "add-recipe", recipe)  # groceries → catalog and planner
    groceries = stack.sous_json("groceries", "show")
    assert [entry["recipe"] for entry in groceries["recipes"]] == [recipe] and groceries["total"] > 0, groceries
    cooked = stack.sous_json("plan", "cooked", "today", "lunch")  # planner → tracker → catalog
    assert cooked["logged"] is True, cooked
    summary = stack.sous_json("diary", "summary")
    assert summary["totals"]["kcal"] > 0, summary
    # The notifier heard the other services' activity events and scheduled a reminder.
    assert stack.sous_json("reminders", "next")["status"] == "scheduled"


def test_a_service_that_cannot_start_is_named_and_stops_the_process(tmp_path):
    stack = OneProcess(tmp_path)
    requests = stack.endpoints["groceries"][0]
    host, port = requests.removeprefix("tcp://").rsplit(":", 1)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind((host, int(port)))
        taken.listen()
        result = subprocess.run(
            [str(stack.bin_dir / "sous-server"), "all"], env=stack.all_in_one_env(), stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=60,
        )
    assert result.returncode == 1, result
    assert "the groceries service could not start" in result.stderr and port in result.stderr, result.stderr
