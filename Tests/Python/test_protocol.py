"""End-to-end protocol tests against the real `sous-catalog` executable, from Python.

They exercise the wire protocol as docs/PROTOCOL.md describes it, with a client that
knows nothing of the Swift code. Build the service first (`swift build`), then:

    python -m pytest Tests/Python

`SOUS_BIN_DIR` names the folder holding `sous-catalog` (default: .build/debug in the
repository root).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import (  # noqa: E402
    KIND_REPLY,
    SousClient,
    SousError,
    parse_reply,
    protocol_frame,
    request_frames,
    unpack,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 20
SHUTDOWN_SECONDS = 15


def free_port_pair() -> tuple:
    """Two distinct TCP ports that are free on 127.0.0.1 right now."""
    sockets = []
    try:
        for _ in range(2):
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            probe.bind(("127.0.0.1", 0))
            sockets.append(probe)
        return tuple(probe.getsockname()[1] for probe in sockets)
    finally:
        for probe in sockets:
            probe.close()


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def wait_until_healthy(process: subprocess.Popen, endpoint: str, log: Path) -> None:
    """Asks `health` with short per-try timeouts until it answers, for STARTUP_SECONDS at most."""
    give_up_at = time.monotonic() + STARTUP_SECONDS
    last_problem = "no attempt made"
    while time.monotonic() < give_up_at:
        if process.poll() is not None:
            pytest.fail(f"sous-catalog exited with code {process.returncode} while starting:\n{log_tail(log)}")
        with SousClient(endpoint, timeout_ms=500, retries=0) as probe:
            try:
                report = probe.call("health")
            except SousError as error:
                # No answer yet, or an answer too late for the probe's deadline: try again.
                if error.code not in ("unavailable", "timeout"):
                    pytest.fail(f"health failed while sous-catalog was starting: {error}\n{log_tail(log)}")
                last_problem = str(error)
                continue
        if report.get("database", {}).get("status") != "ok":
            pytest.fail(f"sous-catalog is up but not healthy: {report!r}\n{log_tail(log)}")
        return
    pytest.fail(f"sous-catalog did not become healthy within {STARTUP_SECONDS} s ({last_problem}):\n{log_tail(log)}")


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """A running sous-catalog on free TCP ports, and a client connected to it.

    At teardown the service gets SIGTERM and must exit with code 0 within SHUTDOWN_SECONDS.
    """
    bin_dir = Path(os.environ.get("SOUS_BIN_DIR") or REPO_ROOT / ".build" / "debug")
    executable = bin_dir / "sous-catalog"
    if not executable.is_file():
        pytest.fail(f"{executable} does not exist: build it (swift build) or set SOUS_BIN_DIR")
    work = tmp_path_factory.mktemp("catalog")
    data_dir = work / "data"
    log = work / "sous-catalog.log"
    port, events_port = free_port_pair()
    endpoint = f"tcp://127.0.0.1:{port}"
    command = [
        str(executable),
        "--bind", endpoint,
        "--events-bind", f"tcp://127.0.0.1:{events_port}",
        "--data-dir", str(data_dir),
        "--log-level", "warning",
    ]
    with open(log, "wb") as log_file:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, cwd=work)
    client = None
    try:
        wait_until_healthy(process, endpoint, log)
        client = SousClient(endpoint, timeout_ms=5000, retries=1)
        yield client
    finally:
        if client is not None:
            client.close()
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=SHUTDOWN_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=SHUTDOWN_SECONDS)
            pytest.fail(f"sous-catalog did not exit within {SHUTDOWN_SECONDS} s of SIGTERM:\n{log_tail(log)}")
    assert code == 0, f"sous-catalog exited with code {code} after SIGTERM:\n{log_tail(log)}"


def test_health(catalog):
    report = catalog.call("health")
    assert report["service"] == "catalog"
    assert report["protocolVersion"] == 1
    assert report["database"]["status"] == "ok"
    assert isinstance(report["version"], str) and report["version"]
    assert report["uptimeSeconds"] >= 0


def test_ingredient_search(catalog):
    reply = catalog.call("ingredients.search", {"query": "tom", "limit": 5})
    ingredients = reply["ingredients"]
    assert isinstance(ingredients, list) and 0 < len(ingredients) <= 5
    for ingredient in ingredients:
        assert isinstance(ingredient, dict)
        assert {"id", "name", "nutrition"} <= ingredient.keys()
        assert isinstance(ingredient["nutrition"], dict) and "kcal" in ingredient["nutrition"]
    assert any("Tomato" in ingredient["name"] for ingredient in ingredients), [i["name"] for i in ingredients]


def test_unknown_ingredient_is_not_found(catalog):
    with pytest.raises(SousError) as raised:
        catalog.call("ingredients.get", {"ids": ["no-such-ingredient"]})
    assert raised.value.code == "notFound"
    assert "no-such-ingredient" in raised.value.message


def test_limit_out_of_range_is_a_bad_request_naming_the_field(catalog):
    with pytest.raises(SousError) as raised:
        catalog.call("ingredients.search", {"query": "x", "limit": 500})
    assert raised.value.code == "badRequest"
    assert raised.value.field == "limit"


def test_create_and_read_a_recipe(catalog):
    candidates = catalog.call("ingredients.search", {"query": "bread", "limit": 20})["ingredients"]
    assert candidates, "the catalog has no bread"
    # Prefer bread that is counted in pieces; otherwise give the quantity in grams.
    bread = next((i for i in candidates if i.get("gramsPerPiece") is not None), candidates[0])
    quantity, unit = (2, "piece") if bread.get("gramsPerPiece") is not None else (60, "g")
    draft = {
        "name": "Py Toast",
        "summary": "Toast from Python",
        "servings": 1,
        "prepMinutes": 2,
        "cookMinutes": 3,
        "ingredients": [{"ingredient": bread["id"], "quantity": quantity, "unit": unit}],
        "steps": [{"description": "Toast it.", "minutes": 3, "type": "cooking", "ingredients": [bread["id"]]}],
        "equipment": ["stove"],
        "dishTypes": ["breakfast"],
    }
    created = catalog.call("recipes.create", draft, user="py", write=True)
    assert created["name"] == "Py Toast"
    assert created["origin"] == "custom"
    assert isinstance(created["id"], str) and created["id"]

    fetched = catalog.call("recipes.get", {"id": created["id"]}, user="py")
    assert fetched["id"] == created["id"]
    assert fetched["name"] == "Py Toast"
    assert [line["ingredient"] for line in fetched["ingredients"]] == [bread["id"]]


def test_wrong_protocol_version_gets_an_error_reply(catalog):
    context = zmq.Context.instance()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    try:
        dealer.connect(catalog.endpoint)
        dealer.send_multipart(request_frames("health", {}, request_id="bad-version", version=9))
        assert dealer.poll(5000, zmq.POLLIN), "no reply to a request with a wrong version byte"
        frames = dealer.recv_multipart(zmq.NOBLOCK)
    finally:
        dealer.close(linger=0)
    assert frames[1] == protocol_frame(KIND_REPLY)
    header, body = parse_reply(frames)
    assert header["status"] == "error"
    error = unpack(body)
    assert error["code"] == "badRequest"
    assert error["field"] == "version"
    # The service goes on answering.
    assert catalog.call("health")["service"] == "catalog"
