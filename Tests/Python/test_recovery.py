"""Password recovery against the real planner process over CURVE, mailing through a real SMTP
server (Tests/Support/mail_catcher.py, aiosmtpd with STARTTLS): the mailed code, the operator's
code, guessing slowed down per address, a code queued before a kill -9 still mailed, and
email confirmation at registration (`SOUS_VERIFY_EMAIL=on`)."""

from __future__ import annotations

import base64
import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sous_client import SousError, sign_in
from sous_stack import PASSWORD, REPO_ROOT, Stack

CATCHER = REPO_ROOT / "Tests" / "Support" / "mail_catcher.py"
NEW_PASSWORD = "a brand new evening"


class MailCatcher:
    """The SMTP server in a child process; its accepted mails arrive on a queue."""

    def __init__(self, work: Path):
        pytest.importorskip("aiosmtpd")
        cert, key = work / "mail-cert.pem", work / "mail-key.pem"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
             "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
            check=True, capture_output=True,
        )
        self.cert = cert
        self.process = subprocess.Popen(
            [sys.executable, str(CATCHER), "--tls-mode", "starttls", "--cert", str(cert), "--key", str(key)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        self.port = json.loads(self.process.stdout.readline())["port"]
        self.mails: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.mails.put(json.loads(line))

    def next_mail(self, timeout: float = 60) -> dict:
        return self.mails.get(timeout=timeout)

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)


def body_text(mail: dict) -> str:
    head, _, body = mail["data"].partition("\r\n\r\n")
    assert "Content-Transfer-Encoding: base64" in head
    return base64.b64decode("".join(body.split("\r\n"))).decode()


def mailed_code(mail: dict) -> str:
    line = next(line for line in body_text(mail).splitlines() if line.startswith("Your code: "))
    return line.removeprefix("Your code: ")


def mail_environment(catcher: MailCatcher, ca_file: Path) -> dict:
    """The planner's settings for mailing through `catcher` over STARTTLS, trusting `ca_file`."""
    return {
        "SOUS_SMTP_URL": f"smtp://localhost:{catcher.port}",
        "SOUS_MAIL_FROM": "Sous <sous@example.org>",
        "SOUS_SMTP_CA_FILE": str(ca_file),
        "SOUS_WEB_URL": "https://sous.example.org",
    }


@pytest.fixture(name="mail_stack")
def mail_stack_fixture(tmp_path):
    catcher = MailCatcher(tmp_path)
    stack = Stack(tmp_path)
    stack.env.update(mail_environment(catcher, catcher.cert))
    stack.start_all(["planner"])
    yield stack, catcher
    stack.assert_stopped_cleanly()
    catcher.stop()


def test_a_mailed_code_resets_the_password_once_and_guessing_is_refused(mail_stack):
    stack, catcher = mail_stack
    stack.register("ada@example.org", name="Ada")
    with stack.client("planner") as planner:
        started = planner.call("account.recover", {"email": "ada@example.org"}, write=True)
        assert started["validMinutes"] == 30
        assert planner.call("account.recover", {"email": "nobody@example.org"}, write=True) == started
        mail = catcher.next_mail()
        assert mail["to"] == ["ada@example.org"] and mail["tls"]
        code = mailed_code(mail)
        assert f"https://sous.example.org/reset?code={code.replace('-', '')}" in body_text(mail)

        done = planner.call("account.reset", {"code": code, "password": NEW_PASSWORD}, write=True)
        assert done == {"email": "ada@example.org", "endedSessions": 1}
        assert "Subject: Your Sous password was changed" in catcher.next_mail()["data"]
        sign_in(planner, "ada@example.org", NEW_PASSWORD)
        with pytest.raises(SousError) as reused:
            planner.call("account.reset", {"code": code, "password": "yet another evening"}, write=True)
        assert reused.value.code == "badRequest" and reused.value.field == "code"

        # Guessing: every wrong code counts against this address; after 20 it is refused.
        refused_at = None
        for attempt in range(1, 26):
            try:
                planner.call("account.reset", {"code": f"AAAAA-{attempt:05d}", "password": NEW_PASSWORD}, write=True)
            except SousError as error:
                if error.code == "rateLimited":
                    refused_at = attempt
                    break
                assert error.code == "badRequest" and error.field == "code"
        assert refused_at is not None and refused_at <= 21, refused_at
    assert "reset with a wrong, used or expired code" in stack.log("planner").read_text()


def test_the_operator_issues_a_code_on_the_machine(mail_stack):
    stack, _ = mail_stack
    stack.register("bob@example.org", name="Bob")
    env = dict(stack.env, SOUS_DATA_DIR=str(stack.data_dir("planner")))
    result = subprocess.run(
        [str(stack.bin_dir / "sous-planner"), "account", "reset-code", "--email", "bob@example.org"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    code = result.stdout.split("Reset code for bob@example.org: ")[1].split(" ")[0]
    unknown = subprocess.run(
        [str(stack.bin_dir / "sous-planner"), "account", "reset-code", "--email", "nobody@example.org"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert unknown.returncode != 0 and "no account has the email" in unknown.stderr
    with stack.client("planner") as planner:
        planner.call("account.reset", {"code": code.lower(), "password": NEW_PASSWORD}, write=True)
        sign_in(planner, "bob@example.org", NEW_PASSWORD)


def test_a_new_account_signs_in_once_its_email_is_confirmed(tmp_path):
    catcher = MailCatcher(tmp_path)
    stack = Stack(tmp_path)
    stack.env.update(mail_environment(catcher, catcher.cert), SOUS_VERIFY_EMAIL="on")
    try:
        stack.start_all(["planner"])
        with stack.client("planner") as planner:
            for email, name in (("ada@example.org", "Ada"), ("bob@example.org", "Bob")):
                account = planner.call("account.register", {"email": email, "password": PASSWORD, "name": name}, write=True)
                assert account["email"] == email and account["emailVerified"] is False, account
            with pytest.raises(SousError) as waiting:
                sign_in(planner, "ada@example.org", PASSWORD)
            assert waiting.value.code == "forbidden" and waiting.value.field == "email"

            mails = {tuple(mail["to"]): mail for mail in (catcher.next_mail(), catcher.next_mail())}
            assert "Subject: Confirm your email for Sous" in mails[("ada@example.org",)]["data"]
            confirmed = planner.call("account.verify", {"code": mailed_code(mails[("ada@example.org",)])}, write=True)
            assert confirmed["email"] == "ada@example.org" and confirmed["emailVerified"] is True
            sign_in(planner, "ada@example.org", PASSWORD)

        # Bob's mail never reached him: the operator confirms him by hand.
        env = dict(stack.env, SOUS_DATA_DIR=str(stack.data_dir("planner")))
        result = subprocess.run(
            [str(stack.bin_dir / "sous-planner"), "account", "confirm", "--email", "bob@example.org"],
            env=env, capture_output=True, text=True, timeout=60,
        )
        assert result.returncode == 0 and "Confirmed bob@example.org" in result.stdout, result.stderr
        with stack.client("planner") as planner:
            sign_in(planner, "bob@example.org", PASSWORD)
        stack.assert_stopped_cleanly()
    finally:
        stack.stop_all()
        catcher.stop()


def test_a_code_queued_before_a_kill_is_mailed_after_the_restart(tmp_path):
    catcher = MailCatcher(tmp_path)
    stack = Stack(tmp_path)
    # A relay whose certificate is not trusted yet: the queued code waits in the outbox.
    stack.env.update(mail_environment(catcher, tmp_path / "not-yet.pem"))
    (tmp_path / "not-yet.pem").write_text(catcher.cert.read_text().replace("MI", "XX", 1))
    try:
        stack.start_all(["planner"])
        stack.register("cy@example.org", name="Cy")
        with stack.client("planner") as planner:
            planner.call("account.recover", {"email": "cy@example.org"}, write=True)
        # Killed once the attempt has failed and its outcome is written (not in the middle of
        # one, which would wait out its 10-minute lease).
        give_up_at = time.monotonic() + 60
        while "delivery failed" not in stack.log("planner").read_text():
            assert time.monotonic() < give_up_at, "the first attempt was never made"
            time.sleep(0.05)  # a poll interval on a log file, not a synchronization
        stack.kill9("planner")
        (tmp_path / "not-yet.pem").write_text(catcher.cert.read_text())
        stack.start_all(["planner"])
        mail = catcher.next_mail(timeout=120)
        assert mail["to"] == ["cy@example.org"]
        code = mailed_code(mail)
        with stack.client("planner") as planner:
            planner.call("account.reset", {"code": code, "password": NEW_PASSWORD}, write=True)
        stack.assert_stopped_cleanly()
    finally:
        stack.stop_all()
        catcher.stop()
