"""The web app behind a proxy serves many people from one address. The planner's limits per
address (20 failed sign-ins in 10 minutes) must count each person, not the web app: one person
guessing passwords must not lock everyone else out of signing in.

Real processes: the five services and `sous-web serve` with SOUS_WEB_TRUST_PROXY=1, so the
X-Forwarded-For a test sends stands for the proxy's word. The web app publishes its key
(`<keys>/web.pub`) on start; the planner trusts the address it names only from that key.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

from sous_stack import PASSWORD
from web_stack import WebApp, started

HTTP_SECONDS = 30
ADDRESS_FAILURES = 20  # LoginThrottle.addressFailures


@pytest.fixture
def web_behind_proxy(tmp_path: Path):
    with started(tmp_path, SOUS_WEB_TRUST_PROXY="1") as app:
        yield app


def sign_in(app: WebApp, email: str, password: str, address: str) -> requests.Response:
    """GET the sign-in page for its form token, then POST the form, both as a browser at `address`."""
    browser = requests.Session()
    browser.headers["X-Forwarded-For"] = address
    page = browser.get(app.url("/signin"), timeout=HTTP_SECONDS)
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    return browser.post(
        app.url("/signin"),
        data={"csrf": token.group(1), "email": email, "password": password, "next": "/week"},
        allow_redirects=False,
        timeout=HTTP_SECONDS,
    )


def test_one_persons_failures_lock_out_only_that_person(web_behind_proxy: WebApp):
    app = web_behind_proxy
    assert (app.stack.keys / "web.pub").exists(), app.log_tail()
    app.stack.register("ada@example.org")
    for attempt in range(ADDRESS_FAILURES):
        failed = sign_in(app, f"nobody{attempt}@example.org", "a wrong guess", "198.51.100.7")
        assert failed.status_code == 401, (attempt, failed.status_code, failed.text[:300])

    refused = sign_in(app, "ada@example.org", PASSWORD, "198.51.100.7")
    assert refused.status_code == 429, refused.text[:300]

    elsewhere = sign_in(app, "ada@example.org", PASSWORD, "203.0.113.9")
    assert elsewhere.status_code == 303, (elsewhere.status_code, elsewhere.text[:300], app.log_tail())
    assert "sous_session" in elsewhere.headers.get("Set-Cookie", "")
