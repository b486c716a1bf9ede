"""Sous services as real processes for the Python tests: free loopback ports, one data folder
per service, one shared keys folder (where each service publishes its CURVE public key and the
planner its session key), and clients that sign in the way docs/PROTOCOL.md describes.

`SOUS_BIN_DIR` names the folder with the executables (default: .build/debug).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Optional

import pytest

from sous_client import SousClient, SousError, read_server_key, sign_in

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVICES = ["catalog", "planner", "groceries", "tracker", "notifier"]
STARTUP_SECONDS = 30
STOP_SECONDS = 20
PASSWORD = "a long test passphrase"


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


def bin_dir() -> Path:
    return Path(os.environ.get("SOUS_BIN_DIR") or REPO_ROOT / ".build" / "debug")


class Stack:
    """Some or all of the five services as processes; peers not started point at nothing."""

    def __init__(self, work: Path):
        self.bin_dir = bin_dir()
        self.work = work
        self.keys = work / "keys"
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
        self.env["SOUS_KEYS_DIR"] = str(self.keys)
        self.env["SOUS_CONFIG_DIR"] = str(work / "config")
        self.env["SOUS_LOG_LEVEL"] = "info"
        self.env["SOUS_TIMEOUT_MS"] = "5000"
        self.processes: dict = {}

    def log(self, service: str) -> Path:
        return self.work / f"{service}.log"

    def data_dir(self, service: str) -> Path:
        return self.work / service

    def start(self, service: str, **extra_env: str) -> None:
        requests, events = self.endpoints[service]
        env = dict(self.env)
        env["SOUS_DATA_DIR"] = str(self.data_dir(service))
        env[f"SOUS_{service.upper()}_BIND"] = requests
        env[f"SOUS_{service.upper()}_EVENTS_BIND"] = events
        env.update(extra_env)
        executable = self.bin_dir / f"sous-{service}"
        if not executable.is_file():
            pytest.fail(f"{executable} does not exist: build first (swift build) or set SOUS_BIN_DIR")
        with open(self.log(service), "ab") as log_file:
            self.processes[service] = subprocess.Popen(
                [str(executable), "serve"], env=env, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, cwd=self.work
            )

    def client(self, service: str, session: Optional[str] = None, timeout_ms: int = 10_000, retries: int = 0) -> SousClient:
        return SousClient(
            self.endpoints[service][0], server_key=read_server_key(self.keys, service), session=session, timeout_ms=timeout_ms, retries=retries
        )

    def wait_healthy(self, service: str) -> None:
        give_up_at = time.monotonic() + STARTUP_SECONDS
        problem = "no attempt"
        while time.monotonic() < give_up_at:
            process = self.processes[service]
            if process.poll() is not None:
                pytest.fail(f"sous-{service} exited with {process.returncode} while starting:\n{log_tail(self.log(service))}")
            if not (self.keys / f"{service}.pub").exists():
                problem = "no public key published yet"
                time.sleep(0.05)  # a poll interval while the process starts, not a synchronization
                continue
            with self.client(service, timeout_ms=500) as probe:
                try:
                    report = probe.call("health")
                    assert report["service"] == service
                    return
                except SousError as error:
                    problem = str(error)
        pytest.fail(f"sous-{service} did not answer health within {STARTUP_SECONDS} s ({problem}):\n{log_tail(self.log(service))}")

    def start_all(self, services=SERVICES) -> None:
        for service in services:
            self.start(service)
        for service in services:
            self.wait_healthy(service)

    def register(self, email: str, name: str = "Py", password: str = PASSWORD) -> str:
        """Registers an account and returns a session token for it."""
        with self.client("planner") as planner:
            return sign_in(planner, email, password, device="pytest", register_as=name)

    def create_operator(self, email: str = "operator@example.org", password: str = PASSWORD) -> str:
        """Creates an operator on the machine (`sous-planner operator create`, password on
        stdin) and returns a session token for it."""
        env = dict(self.env, SOUS_DATA_DIR=str(self.data_dir("planner")))
        result = subprocess.run(
            [str(self.bin_dir / "sous-planner"), "operator", "create", "--email", email],
            input=password + "\n", env=env, capture_output=True, text=True, timeout=60,
        )
        assert result.returncode == 0, result.stderr
        with self.client("planner") as planner:
            return sign_in(planner, email, password, device="pytest")

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
                codes[service] = process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                codes[service] = f"did not stop within {STOP_SECONDS} s of SIGTERM"
        self.processes = {}
        return codes

    def assert_stopped_cleanly(self) -> None:
        codes = self.stop_all()
        bad = {service: code for service, code in codes.items() if code != 0}
        assert not bad, f"services did not stop cleanly: {bad}\n" + "\n".join(f"--- {s}\n{log_tail(self.log(s))}" for s in bad)


@pytest.fixture(name="stack")
def running_stack(tmp_path):
    """All five services started, stopped cleanly at the end (a test that imports it uses it)."""
    stack = Stack(tmp_path)
    stack.start_all()
    yield stack
    stack.assert_stopped_cleanly()
