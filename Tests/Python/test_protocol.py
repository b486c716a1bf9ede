"""End-to-end protocol tests against the real `sous-catalog` executable, from Python.

They exercise the wire protocol as docs/PROTOCOL.md describes it, with a client that
knows nothing of the Swift code. Build the service first (`swift build`), then:

    python -m pytest Tests/Python

`SOUS_BIN_DIR` names the folder holding the executables (default: .build/debug in the
repository root).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import (  # noqa: E402
    KIND_REPLY,
    SousClient,
    SousError,
    pack,
    parse_reply,
    protocol_prefix,
    read_server_key,
    request_frames,
    unpack,
)
from sous_stack import Stack  # noqa: E402


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """A running sous-catalog (and the planner, where accounts live) on free TCP ports, and a
    client of the catalog signed in as a fresh account.

    At teardown the services get SIGTERM and must exit with code 0 within 20 s.
    """
    stack = Stack(tmp_path_factory.mktemp("protocol"))
    client = None
    try:
        stack.start_all(["planner", "catalog"])
        token = stack.register("py@example.org")
        client = stack.client("catalog", session=token, timeout_ms=5000, retries=1)
        client.events_endpoint = stack.endpoints["catalog"][1]
        client.log = stack.log("catalog")
        yield client
    finally:
        if client is not None:
            client.close()
        stack.assert_stopped_cleanly()


def test_health(catalog):
    report = catalog.call("health")
    assert report["service"] == "catalog"
    assert report["protocolVersion"] == 3
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
    created = catalog.call("recipes.create", draft, write=True)
    assert created["name"] == "Py Toast"
    assert created["origin"] == "custom"
    assert isinstance(created["id"], str) and created["id"]

    fetched = catalog.call("recipes.get", {"id": created["id"]})
    assert fetched["id"] == created["id"]
    assert fetched["name"] == "Py Toast"
    assert [line["ingredient"] for line in fetched["ingredients"]] == [bread["id"]]


def test_wrong_protocol_version_gets_an_error_reply(catalog):
    frames = catalog.exchange_raw(request_frames("health", {}, request_id="bad-version", version=9), timeout_ms=5000)
    assert frames is not None, "no reply to a request with a wrong version byte"
    assert bytes(frames[1])[:6] == protocol_prefix(KIND_REPLY)
    header, body = parse_reply(frames)
    assert header["status"] == "error"
    error = unpack(body)
    assert error["code"] == "badRequest"
    assert error["field"] == "version"
    # The service goes on answering.
    assert catalog.call("health")["service"] == "catalog"


# MARK: Who may call what


def test_a_plaintext_client_gets_no_answer(catalog):
    """CURVE is mandatory: a client without it never completes the handshake, and the service
    logs the refusals in one line (not one per reconnection attempt)."""
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    try:
        dealer.connect(catalog.endpoint)
        dealer.send_multipart(request_frames("health", {}, request_id="plain"))
        assert not dealer.poll(2000, zmq.POLLIN), "a plaintext client got an answer"
    finally:
        dealer.close(linger=0)
    assert catalog.call("health")["service"] == "catalog"
    log = catalog.log.read_text(errors="replace")
    assert log.count("refused connections: no CURVE") == 1, log[-2000:]


def test_user_methods_need_a_session_and_ignore_claimed_users(catalog):
    with SousClient(catalog.endpoint, server_key=catalog.server_key, timeout_ms=5000, retries=0) as anonymous:
        assert anonymous.call("health")["service"] == "catalog", "public methods need no session"
        with pytest.raises(SousError) as refused:
            anonymous.call("recipes.mine")
        assert refused.value.code == "unauthorized" and refused.value.field == "header.session"
        with pytest.raises(SousError) as forged:
            anonymous.call("recipes.mine", session="eyJ1c2VyIjoiYWRhIn0.c2lnbmF0dXJl")
        assert forged.value.code == "unauthorized" and forged.value.field == "header.session"
        # A client naming the user it wants to be is refused, not believed.
        frames = request_frames("recipes.mine", request_id="claim", header={
            "method": "recipes.mine", "id": "claim", "session": None, "onBehalfOf": "ada", "deadline": None, "idempotencyKey": None,
        })
        header, body = parse_reply(anonymous.exchange_raw(frames, timeout_ms=5000))
        error = unpack(body)
        assert header["status"] == "error" and error["code"] == "unauthorized" and error["field"] == "header.onBehalfOf"


def test_only_operators_change_the_shared_catalog(catalog):
    tomato = catalog.call("ingredients.get", {"ids": ["tomato"]})["ingredients"][0]
    changed = dict(tomato, nutrition=dict(tomato["nutrition"], kcal=900))
    with pytest.raises(SousError) as refused:
        catalog.call("ingredients.import", {"source": "py", "ingredients": [changed]}, write=True)
    assert refused.value.code == "forbidden"
    assert catalog.call("ingredients.get", {"ids": ["tomato"]})["ingredients"][0]["nutrition"]["kcal"] == tomato["nutrition"]["kcal"]


def test_the_event_bus_refuses_clients(catalog):
    """Only Sous services' keys may subscribe: a client subscribing gets nothing, even while
    events are published."""
    sub = zmq.Context.instance().socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    public, secret = zmq.curve_keypair()
    sub.curve_serverkey = catalog.server_key
    sub.curve_publickey = public
    sub.curve_secretkey = secret
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    try:
        sub.connect(catalog.events_endpoint)
        for _ in range(5):
            catalog.call("recipes.search", {"query": "soup"})  # activity events
        assert not sub.poll(2000, zmq.POLLIN), "a client received events from the service bus"
    finally:
        sub.close(linger=0)
