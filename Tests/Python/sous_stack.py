"""Sous services as real processes for the Python tests: free loopback ports, one data folder
per service, one shared keys folder (where each service publishes its CURVE public key and the
planner its session key), and clients that sign in the way docs/PROTOCOL.md describes.

`SOUS_BIN_DIR` names the folder with the executables (default: .build/debug).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator, Optional

import pytest

from sous_client import SousClient, SousError, read_server_key, sign_in

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVICES = ["catalog", "planner", "groceries", "tracker", "notifier"]
STARTUP_SECONDS = 30
STOP_SECONDS = 20
PASSWORD = "a long test passphrase"


def ephemeral_port_start() -> int:
    """The lowest port the kernel picks for a connection's own end or a bind to port 0."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


_PORTS_GIVEN: set = set()


def free_ports(count: int) -> list:
    """Distinct loopback ports free now, below the kernel's ephemeral range, none given twice.

    A port the OS picked for a bind to port 0 comes from the range it also gives every outgoing
    connection its own end from: between the probe closing it and the service binding it, a client
    connecting anywhere can take it ("Address already in use"). Below that range only an explicit
    bind takes a port, and this process never hands one out twice.
    """
    low = ephemeral_port_start()
    first = 10_000 if low > 12_000 else 1_024
    candidates = [port for port in random.sample(range(first, low), min(low - first, 50 * count)) if port not in _PORTS_GIVEN]
    ports = []
    for port in candidates:
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            probe.close()
        ports.append(port)
        _PORTS_GIVEN.add(port)
        if len(ports) == count:
            return ports
    raise RuntimeError(f"no {count} free loopback ports between {first} and {low}")


def log_tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def bin_dir() -> Path:
    return Path(os.environ.get("SOUS_BIN_DIR") or REPO_ROOT / ".build" / "debug")


def serve(
    bin_dir: Path, service: str, base_env: dict, data_dir: Path, requests: str, events: str, log: Path, cwd: Path, extra_env: dict,
    banner: str = "",
) -> subprocess.Popen:
    """Starts `sous-<service> serve` binding `requests` and `events`, its output appended to `log`."""
    env = dict(base_env)
    env["SOUS_DATA_DIR"] = str(data_dir)
    env[f"SOUS_{service.upper()}_BIND"] = requests
    env[f"SOUS_{service.upper()}_EVENTS_BIND"] = events
    env.update(extra_env)
    executable = bin_dir / f"sous-{service}"
    if not executable.is_file():
        pytest.fail(
            f"{executable} does not exist: build first (swift build), link the services to sous-server"
            f" (deploy/link-services.sh {bin_dir}), or set SOUS_BIN_DIR"
        )
    with open(log, "ab") as log_file:
        if banner:
            log_file.write(banner.encode())
            log_file.flush()
        return subprocess.Popen(
            [str(executable), "serve"], env=env, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, cwd=cwd
        )


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
        # Tests never call out: unknown barcodes are not looked up in Open Food Facts.
        self.env["SOUS_OFF"] = "off"
        self.processes: dict = {}

    def log(self, service: str) -> Path:
        return self.work / f"{service}.log"

    def process(self, service: str) -> subprocess.Popen:
        """The process serving `service`."""
        return self.processes[service]

    def data_dir(self, service: str) -> Path:
        return self.work / service

    def start(self, service: str, **extra_env: str) -> None:
        requests, events = self.endpoints[service]
        self.processes[service] = serve(
            self.bin_dir, service, self.env, self.data_dir(service), requests, events, self.log(service), self.work, extra_env
        )

    def client(self, service: str, session: Optional[str] = None, timeout_ms: int = 10_000, retries: int = 0) -> SousClient:
        return SousClient(
            self.endpoints[service][0], server_key=read_server_key(self.keys, service), session=session, timeout_ms=timeout_ms, retries=retries
        )

    def wait_healthy(self, service: str) -> None:
        give_up_at = time.monotonic() + STARTUP_SECONDS
        problem = "no attempt"
        while time.monotonic() < give_up_at:
            process = self.process(service)
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


@contextlib.contextmanager
def started(work: Path, services=SERVICES) -> Iterator[Stack]:
    """A fresh stack of `services`, stopped at the end, and checked to stop cleanly."""
    stack = Stack(work)
    try:
        stack.start_all(services)
        yield stack
        stack.assert_stopped_cleanly()
    finally:
        stack.stop_all()


@pytest.fixture(name="stack")
def running_stack(tmp_path):
    """All five services started, stopped cleanly at the end (a test that imports it uses it)."""
    with started(tmp_path) as stack:
        yield stack


# MARK: Replicas on PostgreSQL

POSTGRES_SERVER_SCRIPT = REPO_ROOT / "deploy" / "postgres-test-server.sh"
REPLICA_STARTUP_SECONDS = 90


def postgres_available() -> bool:
    """Whether deploy/postgres-test-server.sh can start a server here (it looks for `initdb`
    under /usr/lib/postgresql/*/bin, Debian's `postgresql` package)."""
    return any(Path(folder, "initdb").is_file() for folder in Path("/usr/lib/postgresql").glob("*/bin"))


class PostgresServer:
    """A private PostgreSQL from deploy/postgres-test-server.sh, in a folder of its own under
    /tmp (short, for the Unix socket's path; as root the server runs as `postgres`, which must
    reach it). `stop` is safe to call more than once."""

    def __init__(self):
        self.dir: Optional[str] = None
        self.url: Optional[str] = None

    def start(self) -> str:
        self.dir = tempfile.mkdtemp(prefix="sous-pg.", dir="/tmp")
        result = subprocess.run(
            [str(POSTGRES_SERVER_SCRIPT), "start", self.dir], capture_output=True, text=True, timeout=120
        )
        if result.returncode != 0:
            self.stop()
            pytest.fail(f"{POSTGRES_SERVER_SCRIPT.name} start failed ({result.returncode}):\n{result.stderr}")
        self.url = result.stdout.strip().splitlines()[-1]
        return self.url

    def stop(self) -> None:
        if self.dir is None:
            return
        subprocess.run([str(POSTGRES_SERVER_SCRIPT), "stop", self.dir], capture_output=True, text=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def log_tail(self, lines: int = 30) -> str:
        return log_tail(Path(self.dir, "server.log"), lines) if self.dir else "(no server)"


class ReplicaStack:
    """`replicas` processes of each of the five services, all on one PostgreSQL database.

    Each replica binds ports of its own; every process and every client is given the
    comma-separated list of all replicas' endpoints (`SOUS_<NAME>_ENDPOINT`, `SOUS_<NAME>_EVENTS`).
    The replicas of one service share one data folder (so one `<service>.curve`, and the
    planner's `sessions.key`); all share the keys folder. A replica is named by its service and
    a number from 1, e.g. ("tracker", 2); its log is `<service>-<n>.log`.
    """

    def __init__(self, work: Path, database_url: str, replicas: int = 2, **extra_env: str):
        self.bin_dir = bin_dir()
        self.work = work
        self.keys = work / "keys"
        self.replicas = replicas
        ports = free_ports(2 * replicas * len(SERVICES))
        #: (service, replica) → (requests endpoint, events endpoint)
        self.endpoints: dict = {}
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("SOUS_")}
        for index, service in enumerate(SERVICES):
            for replica in range(1, replicas + 1):
                base = 2 * (index * replicas + replica - 1)
                self.endpoints[(service, replica)] = (f"tcp://127.0.0.1:{ports[base]}", f"tcp://127.0.0.1:{ports[base + 1]}")
            prefix = f"SOUS_{service.upper()}"
            self.env[f"{prefix}_ENDPOINT"] = ",".join(self.endpoints[(service, r)][0] for r in self.replica_numbers)
            self.env[f"{prefix}_EVENTS"] = ",".join(self.endpoints[(service, r)][1] for r in self.replica_numbers)
        self.env["SOUS_KEYS_DIR"] = str(self.keys)
        self.env["SOUS_CONFIG_DIR"] = str(work / "config")
        self.env["SOUS_LOG_LEVEL"] = "info"
        self.env["SOUS_TIMEOUT_MS"] = "5000"
        self.env["SOUS_DATABASE_URL"] = database_url
        self.env.update(extra_env)
        self.processes: dict = {}

    @property
    def replica_numbers(self) -> range:
        return range(1, self.replicas + 1)

    def all_replicas(self, services=SERVICES) -> list:
        return [(service, replica) for service in services for replica in self.replica_numbers]

    def log(self, service: str, replica: int) -> Path:
        return self.work / f"{service}-{replica}.log"

    def data_dir(self, service: str) -> Path:
        return self.work / service

    def start(self, service: str, replica: int, **extra_env: str) -> None:
        requests, events = self.endpoints[(service, replica)]
        self.processes[(service, replica)] = serve(
            self.bin_dir, service, self.env, self.data_dir(service), requests, events, self.log(service, replica), self.work, extra_env,
            banner=f"---- started at {time.strftime('%H:%M:%S')}\n",
        )

    def client(self, service: str, session: Optional[str] = None, timeout_ms: int = 10_000, retries: int = 0) -> SousClient:
        """A client of every replica of `service` (round robin over those that are up)."""
        return SousClient(
            self.env[f"SOUS_{service.upper()}_ENDPOINT"], server_key=read_server_key(self.keys, service), session=session,
            timeout_ms=timeout_ms, retries=retries,
        )

    def replica_client(self, service: str, replica: int, session: Optional[str] = None, timeout_ms: int = 10_000) -> SousClient:
        """A client of one replica only (health, its clock)."""
        return SousClient(
            self.endpoints[(service, replica)][0], server_key=read_server_key(self.keys, service), session=session,
            timeout_ms=timeout_ms, retries=0,
        )

    def wait_healthy(self, service: str, replica: int, seconds: float = REPLICA_STARTUP_SECONDS) -> dict:
        """Polls `health` on that replica alone until it answers with its database ok."""
        give_up_at = time.monotonic() + seconds
        problem = "no attempt"
        while time.monotonic() < give_up_at:
            process = self.processes[(service, replica)]
            if process.poll() is not None:
                pytest.fail(f"sous-{service} replica {replica} exited with {process.returncode} while starting:\n{log_tail(self.log(service, replica))}")
            if not (self.keys / f"{service}.pub").exists():
                problem = "no public key published yet"
                time.sleep(0.05)  # a poll interval while the process starts, not a synchronization
                continue
            with self.replica_client(service, replica, timeout_ms=500) as probe:
                try:
                    report = probe.call("health")
                    assert report["service"] == service, report
                    if report["database"]["status"] == "ok":
                        return report
                    problem = f"database {report['database']}"
                    time.sleep(0.05)
                except SousError as error:
                    problem = str(error)
        pytest.fail(f"sous-{service} replica {replica} did not become healthy within {seconds} s ({problem}):\n{log_tail(self.log(service, replica))}")

    def start_all(self) -> None:
        """Replica 1 of every service, then (once it is healthy, so the key files exist) the others."""
        for service in SERVICES:
            self.start(service, 1)
        for service in SERVICES:
            self.wait_healthy(service, 1)
        for service, replica in self.all_replicas():
            if replica != 1:
                self.start(service, replica)
        for service, replica in self.all_replicas():
            if replica != 1:
                self.wait_healthy(service, replica)

    def kill9(self, service: str, replica: int) -> None:
        process = self.processes.pop((service, replica))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def register(self, email: str, name: str = "Py", password: str = PASSWORD) -> str:
        with self.client("planner") as planner:
            return sign_in(planner, email, password, device="pytest", register_as=name)

    def create_operator(self, email: str = "operator@example.org", password: str = PASSWORD) -> str:
        """`sous-planner operator create` with the planner's data folder and database, then signs in."""
        env = dict(self.env, SOUS_DATA_DIR=str(self.data_dir("planner")))
        result = subprocess.run(
            [str(self.bin_dir / "sous-planner"), "operator", "create", "--email", email],
            input=password + "\n", env=env, capture_output=True, text=True, timeout=60,
        )
        assert result.returncode == 0, f"sous-planner operator create exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
        with self.client("planner") as planner:
            return sign_in(planner, email, password, device="pytest")

    def set_clock(self, service: str, replica: int, instant, operator_token: str) -> dict:
        """`clock.set` on one replica (each process has its own manual clock)."""
        with self.replica_client(service, replica, session=operator_token) as client:
            return client.call("clock.set", {"now": instant}, write=True)

    def log_tails(self, replicas=None, lines: int = 20) -> str:
        chosen = replicas if replicas is not None else self.all_replicas()
        return "\n".join(f"--- {service}-{replica}\n{log_tail(self.log(service, replica), lines)}" for service, replica in chosen)

    def stop_all(self) -> dict:
        """SIGTERM to every replica, the planners last (the others ask them for session
        revocations while they stop); returns each one's exit code."""
        codes = {}
        for last in (False, True):
            group = {name: process for name, process in self.processes.items() if (name[0] == "planner") == last}
            for process in group.values():
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for name, process in group.items():
                try:
                    codes[name] = process.wait(timeout=STOP_SECONDS)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
                    codes[name] = f"did not stop within {STOP_SECONDS} s of SIGTERM"
        self.processes = {}
        return codes
