"""A client that knows nothing but `describe` builds a request for every method.

For every service, the test asks `describe` (no session needed), then for every method a user
may call builds a body from the published shapes alone: the required fields of each object,
the first value of each enumeration, sample strings, numbers, dates, times and bytes. Every
such request must decode on the server: whatever it answers (a result, `notFound`, a
`badRequest` about a value), it is never a complaint about the body's shape. This is what a
client in another language does with `describe`.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousError  # noqa: E402
from sous_stack import SERVICES, running_stack  # noqa: E402,F401 (running_stack is the `stack` fixture)

# They act on the caller's own session or account: building them blindly would sign the
# test user out or delete them.
OWN_SESSION_ONLY = {"account.logout", "account.password", "account.delete"}
# What the runtime says when a body does not decode (docs/PROTOCOL.md, "Errors").
SHAPE_COMPLAINTS = ("missing field", "expected ", "Cannot initialize", "is not a date in the form", "is not a time")


def sample(shape: dict, types: dict):
    kind = shape["kind"]
    if kind == "object":
        fields = types[shape["type"]]["fields"]
        return {field["name"]: sample(field["shape"], types) for field in fields if field["required"]}
    if kind == "enum":
        return shape["values"][0]
    if kind == "array":
        return []
    if kind == "map":
        return {}
    return {
        "string": "sample",
        "int": 1,
        "float": 1.5,
        "bool": False,
        "bytes": b"\xff\xd8\xff\xe0sample",
        "timestamp": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc),
        "date": "2026-01-01",
        "time": "12:00",
    }[kind]


def test_every_request_built_from_describe_alone_decodes(stack):
    token = stack.register("describe@example.org", name="Describe")
    checked = 0
    for service in SERVICES:
        with stack.client(service) as anonymous:
            description = anonymous.call("describe")
        assert description["service"] == service and description["protocolVersion"] == 3
        types = {entry["name"]: entry for entry in description["types"]}
        assert "describe" in {method["name"] for method in description["methods"]}
        with stack.client(service, session=token) as client:
            for method in description["methods"]:
                if method["access"] != "user" or method["name"] in OWN_SESSION_ONLY:
                    continue
                body = sample(method["request"], types)
                try:
                    client.call(method["name"], body, write=method["write"], timeout_ms=30_000)
                except SousError as error:
                    assert error.code != "internal", f"{method['name']} {body}: {error}"
                    assert not (error.code == "badRequest" and any(text in error.message for text in SHAPE_COMPLAINTS)), (
                        f"{method['name']}: the body built from describe did not decode: {body} → {error}"
                    )
                checked += 1
    assert checked > 70, checked
