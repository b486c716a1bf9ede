"""The web app (`sous-web serve`) as a process in front of a `sous_stack.Stack`, for the browser
tests: started on a loopback port of its own, stopped with SIGTERM, and restarted on the SAME
port (a browser that lost the server must find it again where it was).

`SOUS_BIN_DIR` names the folder with the executables (read only through `sous_stack.bin_dir()`).
"""

from __future__ import annotations

import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import pytest

import sous_stack
from sous_stack import SERVICES, Stack, bin_dir, free_ports, log_tail

WEB_STARTUP_SECONDS = 30
WEB_STOP_SECONDS = 10
CHECK_SECONDS = 10


class WebApp:
    """One `sous-web serve` process. Its data folder (where it keeps web.key, the cookie secret)
    survives a restart, so browsers stay signed in across it."""

    def __init__(self, stack: Stack, work: Path):
        self.stack = stack
        self.work = work
        self.data_dir = work / "web"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = free_ports(1)[0]
        self.log = work / "web.log"
        self.process: Optional[subprocess.Popen] = None
        self.env = dict(stack.env)
        self.env["SOUS_WEB_BIND"] = f"127.0.0.1:{self.port}"
        self.env["SOUS_DATA_DIR"] = str(self.data_dir)
        self.env["SOUS_KEYS_DIR"] = str(stack.keys)
        for service in SERVICES:
            self.env[f"SOUS_{service.upper()}_ENDPOINT"] = stack.endpoints[service][0]
        self.executable = bin_dir() / "sous-web"
        self.stop_seconds = WEB_STOP_SECONDS
        #: How the last stop went: "sigterm" (exited on it), "sigkill" (had to be killed), or how it
        #: had ended before.
        self.last_stop = ""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def start(self) -> None:
        if not self.executable.exists():
            pytest.fail(f"{self.executable} does not exist: build, then deploy/link-services.sh {self.executable.parent}")
        with open(self.log, "ab") as log_file:
            log_file.write(f"---- started at {time.strftime('%H:%M:%S')}\n".encode())
            log_file.flush()
            self.process = subprocess.Popen(
                [str(self.executable), "serve"], env=self.env, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                cwd=self.work,
            )
        self.wait_healthy()

    def wait_healthy(self) -> None:
        """Until `sous-web check` (GET /healthz) says yes; each check is itself bounded."""
        give_up_at = time.monotonic() + WEB_STARTUP_SECONDS
        while time.monotonic() < give_up_at:
            if self.process.poll() is not None:
                pytest.fail(f"sous-web exited with {self.process.returncode} while starting:\n{log_tail(self.log)}")
            check = subprocess.run(
                [str(self.executable), "check", "--timeout-ms", "1000"], env=self.env, capture_output=True, text=True, timeout=CHECK_SECONDS
            )
            if check.returncode == 0:
                return
            time.sleep(0.1)  # a poll interval while the process starts, not a synchronization
        pytest.fail(f"sous-web did not answer /healthz within {WEB_STARTUP_SECONDS} s:\n{log_tail(self.log)}")

    def stop(self) -> Optional[int]:
        """SIGTERM, then a bounded wait; killed if it does not go (recorded in `last_stop`)."""
        if self.process is None:
            return None
        process, self.process = self.process, None
        if process.poll() is not None:
            # Gone before anyone asked: say so, a test failing after it is explained by it.
            self.last_stop = f"exited with {process.returncode} before it was stopped"
            self._note(f"---- {self.last_stop}")
            return process.returncode
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=self.stop_seconds)
            self.last_stop = "sigterm"
            return code
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
            self.last_stop = "sigkill"
            self._note(f"---- killed: still running {self.stop_seconds} s after SIGTERM")
            return None

    def _note(self, line: str) -> None:
        with open(self.log, "ab") as log_file:
            log_file.write(f"{line}\n".encode())

    def restart(self) -> None:
        """Stopped, then started again on the same port with the same cookie secret."""
        self.stop()
        self.start()

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log, lines)


@contextmanager
def started(work: Path, **web_env: str) -> Iterator[WebApp]:
    """The five services and the web app in front of them (with `web_env` added to its
    environment), stopped and checked when the block ends."""
    with sous_stack.started(work) as stack:
        app = WebApp(stack, work)
        app.env.update(web_env)
        try:
            app.start()
            yield app
        finally:
            app.stop()


@pytest.fixture(scope="module")
def web_app(tmp_path_factory):
    """The five services and the web app in front of them, for every test of a module."""
    with started(tmp_path_factory.mktemp("web")) as app:
        yield app
