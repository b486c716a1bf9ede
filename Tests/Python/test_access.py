"""No method returns or changes another user's data: a test generated from the method list.

Ada fills every service with data marked by a unique string, her household's plan and list
included. Then Bob, signed in as himself and a member of another household (Dan's), calls every
`user` and `household` method that docs/PROTOCOL.md lists (ContractTests keeps that list equal
to what the services serve) with every recorded request body of the fuzz corpus, and with those
bodies rewritten to name Ada's ids. Every answer must be an error or free of Ada's data, and
Ada's rows in every database (her household's included) must be exactly as before. Then every
`friend` method is walked as Dan, who is not Ada's friend, and as Cara, a friend Ada shares
nothing with (she shares with Eve, so there is something to leak): each request naming Ada is
refused, and no answer names her. A method added without seeds fails the test, so none can be
forgotten.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import uuid
from pathlib import Path

import msgpack
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_client import SousError, pack  # noqa: E402
from sous_stack import REPO_ROOT, SERVICES, running_stack  # noqa: E402,F401 (running_stack is the `stack` fixture)

CORPUS = REPO_ROOT / "Tests" / "FuzzTests" / "Corpus"
# These act on the caller's own session or account (Bob would sign himself out); their
# cross-user form, ending someone else's session, is account.endSession, which is walked.
# Leaving moves Bob out of Dan's household, which the rest of the walk needs him in; what it
# could reach of anyone else's is walked through household.remove and household.join.
OWN_SESSION_ONLY = {"account.logout", "account.password", "account.delete", "household.leave"}
ID_KEYS = {"id", "ids", "recipe", "entry", "item", "items", "lines", "session", "code", "user", "friend", "template"}


def methods_by_access() -> dict:
    text = (REPO_ROOT / "docs" / "PROTOCOL.md").read_text()
    index = text[text.index("## Method index"):]
    methods = {}
    columns = {}
    for line in index.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| method |"):
            columns = {name: position for position, name in enumerate(cells)}
        elif line.startswith("| `"):
            methods[cells[0].strip("`")] = (cells[columns["kind"]], cells[columns["access"]])
    return methods


def service_of(method: str) -> str:
    area = method.split(".")[0]
    return {
        "ingredients": "catalog", "recipes": "catalog", "catalog": "catalog",
        "profile": "planner", "plan": "planner", "account": "planner", "planner": "planner", "household": "planner",
        "friends": "planner", "progress": "tracker",
        "groceries": "groceries", "pantry": "groceries",
        "diary": "tracker", "drinks": "tracker", "goals": "tracker", "foods": "tracker", "products": "tracker",
        "journal": "tracker", "gluten": "tracker", "tracker": "tracker",
        "reminders": "notifier", "notifier": "notifier",
    }[area]


def seeds(method: str) -> list:
    bodies = []
    for path in sorted(CORPUS.glob(f"{method}--*.msgpack")):
        try:
            bodies.append(msgpack.unpackb(path.read_bytes(), raw=False, timestamp=3, strict_map_key=False))
        except Exception:
            continue  # a deliberately broken seed: the fuzz test's business
    return bodies


def aimed_at(body, ada_ids: list) -> list:
    """`body` with each id-like field replaced by each of Ada's ids of a fitting type."""
    if not isinstance(body, dict):
        return []
    variants = []
    for key, value in body.items():
        if key not in ID_KEYS:
            continue
        for target in ada_ids:
            if isinstance(value, list):
                candidate = [target] if isinstance(target, str) or not value or isinstance(value[0], int) else None
            elif isinstance(value, bool):
                candidate = None
            elif isinstance(value, int) and isinstance(target, int):
                candidate = target
            elif isinstance(value, str) and isinstance(target, str):
                candidate = target
            else:
                candidate = None
            if candidate is not None:
                variants.append(dict(body, **{key: candidate}))
    return variants


def ada_rows(stack: Stack, user: str) -> dict:
    """Every row of every table with a user, owner or household column that belongs to `user` (a
    person alone is in the household whose id is their user id)."""
    rows = {}
    for service in SERVICES:
        connection = sqlite3.connect(f"file:{stack.data_dir(service) / (service + '.sqlite')}?mode=ro", uri=True)
        try:
            tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
            for table in tables:
                if table == "sous_idempotency":
                    continue  # Ada's own retries are remembered there; Bob cannot touch them
                columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]
                for column in ("user", "owner", "household"):
                    if column in columns:
                        found = sorted(connection.execute(f'SELECT * FROM "{table}" WHERE "{column}" = ?', (user,)).fetchall(), key=repr)
                        rows[f"{service}.{table}.{column}"] = found
        finally:
            connection.close()
    return rows


def test_no_user_method_returns_or_changes_another_users_data(stack):
    marker = f"ADA-SECRET-{uuid.uuid4().hex[:12]}"
    ada_token = stack.register("ada@example.org", name="Ada")
    bob_token = stack.register("bob@example.org", name="Bob")
    dan_token = stack.register("dan@example.org", name="Dan")
    ada = {service: stack.client(service, session=ada_token) for service in SERVICES}
    bob = {service: stack.client(service, session=bob_token) for service in SERVICES}
    dan = stack.client("planner", session=dan_token)
    try:
        ada_user = ada["planner"].call("account.whoami")["account"]["user"]
        # Bob lives with Dan: a member of another household than Ada's.
        code = dan.call("household.invite", {}, write=True)["code"]
        assert bob["planner"].call("household.join", {"code": code}, write=True)["members"][1]["user"] != ada_user
        # Ada's data, in every service, each piece carrying the marker where it can.
        ids: list = []
        recipe = ada["catalog"].call("recipes.create", {"name": marker, "summary": marker}, write=True)
        ids.append(recipe["id"])
        ada["catalog"].call("recipes.edit", {"id": "tomato-lentil-soup", "changes": {"name": marker}}, write=True)
        ada["catalog"].call("recipes.favorite", {"id": recipe["id"]}, write=True)
        ada["catalog"].call("recipes.favoriteForHousehold", {"id": recipe["id"]}, write=True)
        # A line Ada told an import the meaning of: remembered for her and her household.
        line = f"1 {marker} dragonfruit"
        document = json.dumps({"@type": "Recipe", "name": marker, "recipeIngredient": [line]})
        imported = ada["catalog"].call("recipes.import", {"document": document, "mappings": {line: "1 banana"}}, write=True)
        ids += [recipe["id"] for recipe in imported["imported"]]
        ada["planner"].call("plan.add", {"id": recipe["id"]}, write=True)
        # A repeating week template holding the marked recipe (its name is in the template): Bob
        # must neither see, apply nor change it by its name.
        week = ada["planner"].call("plan.get")
        ada["planner"].call("plan.put", {"date": week["today"], "slot": 1, "recipe": recipe["id"]}, write=True)
        template = f"Ada's week {uuid.uuid4().hex[:8]}"
        ada["planner"].call("plan.saveTemplate", {"name": template}, write=True)
        ada["planner"].call("plan.repeatTemplate", {"template": template, "everyWeeks": 2}, write=True)
        ids.append(template)
        # A calendar feed: Bob's plan.feed makes or stops only his own.
        ada["planner"].call("plan.feed", {"on": True}, write=True)
        pantry = ada["groceries"].call("pantry.add", {"ingredient": "potato", "quantity": 1, "location": marker}, write=True)
        ids += [item["id"] for item in pantry["items"]]
        ada["groceries"].call("pantry.staple", {"ingredient": "salt", "staple": True}, write=True)
        grocery = ada["groceries"].call("groceries.addItem", {"text": marker, "count": 1, "withList": True}, write=True)["list"]
        ids += [line["id"] for group in grocery["categories"] for line in group["lines"]]
        entry = ada["tracker"].call("diary.add", {"meal": "lunch", "grams": 100, "food": marker,
                                                   "per100g": {"kcal": 100, "carbohydrates": 10, "protein": 5, "fat": 2}}, write=True)
        food = ada["tracker"].call("foods.create", {"name": marker, "meals": ["snack"], "grams": 50,
                                                     "per100g": {"kcal": 100, "carbohydrates": 10, "protein": 5, "fat": 2}}, write=True)
        journal = ada["tracker"].call("journal.add", {"title": marker, "description": marker}, write=True)
        ids += [entry["id"], food["id"], journal["id"], ada["planner"].call("account.whoami")["session"]["id"], ada_user]
        # Ada's user id names her as a member (household.remove, .transfer), and her household.
        # An invitation to Ada's household that Bob's calls must not be able to use or see.
        ids.append(ada["planner"].call("household.invite", {}, write=True)["invitation"]["id"])
        before = ada_rows(stack, ada_user)
        assert sum(len(rows) for rows in before.values()) >= 8, before

        walked, unseeded = 0, []
        for method, (kind, access) in sorted(methods_by_access().items()):
            if access not in ("user", "household") or method in OWN_SESSION_ONLY:
                continue
            bodies = seeds(method)
            if not bodies:
                unseeded.append(method)
                continue
            client = bob[service_of(method)]
            for body in bodies + [variant for body in bodies for variant in aimed_at(body, ids)]:
                walked += 1
                try:
                    reply = client.call(method, body, write=kind.startswith("write"), timeout_ms=10_000)
                except SousError as error:
                    assert error.code != "internal", f"{method} {body}: {error}"
                    continue
                leaked = pack(reply)
                assert marker.encode() not in leaked, f"Bob's {method} {body} returned Ada's data: {reply}"
                if ada_user.encode() not in pack(body):  # a reply may echo an id the request gave
                    assert ada_user.encode() not in leaked, f"Bob's {method} {body} named Ada: {reply}"
        assert not unseeded, f"user methods without fuzz seeds (add some, see make_corpus.py): {unseeded}"
        assert walked > 300, walked
        assert ada_rows(stack, ada_user) == before, "Bob's calls changed Ada's data"

        # Friends: Eve sees Ada's progress; Cara is a friend Ada shares nothing with; Dan is no friend.
        ada["tracker"].call("diary.add", {"meal": "dinner", "grams": 100, "food": marker,
                                          "per100g": {"kcal": 100, "carbohydrates": 10, "protein": 5, "fat": 2}}, write=True)
        friends = {}
        for name in ("eve", "cara"):
            token = stack.register(f"{name}@example.org", name=name.title())
            friends[name] = {service: stack.client(service, session=token) for service in ("planner", "tracker")}
            ada["planner"].call("friends.request", {"email": f"{name}@example.org"}, write=True)
            request = friends[name]["planner"].call("friends.requests")["received"][0]
            friends[name]["planner"].call("friends.answer", {"id": request["id"], "accept": True}, write=True)
        eve_user = friends["eve"]["planner"].call("account.whoami")["account"]["user"]
        ada["planner"].call("friends.share", {"user": eve_user, "share": True}, write=True)
        assert friends["eve"]["tracker"].call("progress.summary", {"friend": ada_user})["logged"], "Eve, who is shared with, sees Ada"
        dan_tracker = stack.client("tracker", session=dan_token)
        friends_walked = 0
        try:
            for method, (kind, access) in sorted(methods_by_access().items()):
                if access != "friend":
                    continue
                bodies = seeds(method)
                assert bodies, f"friend method {method} has no fuzz seeds"
                for client in (dan_tracker, friends["cara"]["tracker"]):
                    for body in bodies + [dict(body, friend=ada_user) for body in bodies if isinstance(body, dict)]:
                        friends_walked += 1
                        try:
                            reply = client.call(method, body, timeout_ms=10_000)
                        except SousError as error:
                            assert error.code != "internal", f"{method} {body}: {error}"
                            continue
                        assert body.get("friend") != ada_user, f"{method} {body} read Ada's share without it: {reply}"
                        assert ada_user.encode() not in pack(reply), f"{method} {body} named Ada: {reply}"
        finally:
            dan_tracker.close()
            for clients in friends.values():
                for client in clients.values():
                    client.close()
        assert friends_walked > 10, friends_walked
    finally:
        for client in list(ada.values()) + list(bob.values()) + [dan]:
            client.close()
