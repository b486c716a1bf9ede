"""Self-test of http_catcher.py: `python3 -m pytest -q Tests/Support/test_http_catcher.py`.

The decryption is checked against RFC 8291's worked example; the server is checked
as a child process, the way the Swift tests use it, with an independent Web Push
sender (RFC 8291 encryption, RFC 8292 VAPID) written here.
"""

import base64
import http.client
import importlib.util
import json
import os
import queue
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

SCRIPT = Path(__file__).resolve().with_name("http_catcher.py")
WAIT = 60  # seconds: the bound on every wait in this file (a hang guard on a busy machine)

# Tests/Support is not a package: load the script as a module by its path.
_spec = importlib.util.spec_from_file_location("http_catcher", SCRIPT)
catcher = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(catcher)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def point(public_key):
    return public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


# --- an independent sender -------------------------------------------------------

def hkdf(salt, ikm, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def encrypt(plaintext, ua_public, auth_secret, rs=4096, sender=None, salt=None):
    """RFC 8291 §3-4 encryption; `rs` small enough splits into several RFC 8188 records."""
    sender = sender or ec.generate_private_key(ec.SECP256R1())
    salt = salt or os.urandom(16)
    as_public = point(sender.public_key())
    ua_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), ua_public)
    ikm = hkdf(auth_secret, sender.exchange(ec.ECDH(), ua_key), b"WebPush: info\x00" + ua_public + as_public, 32)
    cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = int.from_bytes(hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12), "big")
    chunk = rs - 17  # each record: data, one delimiter byte, 16-byte tag
    pieces = [plaintext[i:i + chunk] for i in range(0, len(plaintext), chunk)] or [b""]
    records = b""
    for seq, piece in enumerate(pieces):
        delimiter = b"\x02" if seq == len(pieces) - 1 else b"\x01"
        records += AESGCM(cek).encrypt((nonce ^ seq).to_bytes(12, "big"), piece + delimiter, None)
    return salt + struct.pack(">I", rs) + bytes([len(as_public)]) + as_public + records


def vapid(audience, signer=None, k_of=None, claims=None):
    """An `Authorization: vapid` value signed by `signer`, naming `k_of`'s public key."""
    signer = signer or ec.generate_private_key(ec.SECP256R1())
    k_of = k_of or signer
    body = {"aud": audience, "exp": int(time.time()) + 3600, "sub": "mailto:ops@example.org"}
    body.update(claims or {})
    head = b64url(json.dumps({"typ": "JWT", "alg": "ES256"}).encode())
    payload = b64url(json.dumps(body).encode())
    r, s = decode_dss_signature(signer.sign(f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256())))
    token = f"{head}.{payload}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"
    return f"vapid t={token}, k={b64url(point(k_of.public_key()))}"


# --- RFC 8291 Appendix A ---------------------------------------------------------

RFC_UA_PRIVATE = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
RFC_UA_PUBLIC = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
RFC_AS_PRIVATE = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
RFC_AUTH = "BTBZMqHH6r4Tts7J_aSIgg"
RFC_SALT = "DGv6ra1nlYgDCS1FRnbzlw"
RFC_BODY = (
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
    "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
    "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
)
WATERMELON = b"When I grow up, I want to be a watermelon"


def private_key(b64):
    return ec.derive_private_key(int.from_bytes(unb64url(b64), "big"), ec.SECP256R1())


def test_decrypts_the_rfc_8291_example():
    ua = private_key(RFC_UA_PRIVATE)
    assert b64url(point(ua.public_key())) == RFC_UA_PUBLIC
    assert catcher.decrypt_push(unb64url(RFC_BODY), ua, unb64url(RFC_AUTH)) == WATERMELON


def test_the_sender_here_reproduces_the_rfc_example():
    # So the server tests below rest on an encryptor known to be right.
    body = encrypt(WATERMELON, unb64url(RFC_UA_PUBLIC), unb64url(RFC_AUTH),
                   sender=private_key(RFC_AS_PRIVATE), salt=unb64url(RFC_SALT))
    assert b64url(body) == RFC_BODY


def test_decrypts_several_records_and_refuses_a_truncated_or_altered_body():
    ua = ec.generate_private_key(ec.SECP256R1())
    auth = os.urandom(16)
    message = "ein längerer Text über mehrere Records ".encode() * 5
    body = encrypt(message, point(ua.public_key()), auth, rs=40)
    assert len(body) > 86 + 3 * 40
    assert catcher.decrypt_push(body, ua, auth) == message

    with pytest.raises(catcher.DecryptionError, match="truncated"):
        catcher.decrypt_push(body[:86 + 2 * 40], ua, auth)
    altered = bytearray(body)
    altered[-1] ^= 1
    with pytest.raises(catcher.DecryptionError, match="does not authenticate"):
        catcher.decrypt_push(bytes(altered), ua, auth)
    with pytest.raises(catcher.DecryptionError, match="does not authenticate"):
        catcher.decrypt_push(body, ua, os.urandom(16))


def test_vapid_claims_are_checked():
    aud = "http://127.0.0.1:1"
    assert catcher.verify_vapid(vapid(aud), aud)["sub"] == "mailto:ops@example.org"
    now = int(time.time())
    refusals = {
        "aud": {"aud": "http://127.0.0.1:2"},
        "has passed": {"exp": now - 1},
        "24 h": {"exp": now + 25 * 3600},
        "not an integer": {"exp": str(now + 60)},
        "sub": {"sub": "ops@example.org"},
    }
    for reason, claims in refusals.items():
        with pytest.raises(catcher.Refused, match=reason) as refused:
            catcher.verify_vapid(vapid(aud, claims=claims), aud)
        assert refused.value.status == 403
    with pytest.raises(catcher.Refused) as refused:
        catcher.verify_vapid(None, aud)
    assert refused.value.status == 401


# --- the server as a child process ------------------------------------------------

class Catcher:
    """The script running, with its stdout lines collected by a thread."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, str(SCRIPT), "--port", "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()
        self.port = self.next_line()["port"]
        self.origin = f"http://127.0.0.1:{self.port}"

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(json.loads(line))

    def next_line(self):
        return self.lines.get(timeout=WAIT)

    def line(self, **match):
        """The first line not yet taken whose fields have these values."""
        deadline = time.monotonic() + WAIT
        while True:
            for seen in self.seen:
                if all(seen.get(k) == v for k, v in match.items()):
                    self.seen.remove(seen)
                    return seen
            self.seen.append(self.lines.get(timeout=max(0.0, deadline - time.monotonic())))

    def request(self, method, path, body=b"", headers=None, timeout=WAIT, connection=None):
        conn = connection or http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        if connection is None:
            conn.close()
        return response, data

    def subscribe(self):
        response, data = self.request("POST", "/_subscribe")
        assert response.status == 200
        return json.loads(data)

    def push(self, subscription, body, authorization, **headers):
        base = {"Content-Encoding": "aes128gcm", "TTL": "60", "Authorization": authorization}
        base.update(headers)
        path = subscription["endpoint"][len(self.origin):]
        return self.request("POST", path, body, {k: v for k, v in base.items() if v is not None})

    def stop(self):
        self.process.stdin.close()
        return self.process.wait(timeout=WAIT)


@pytest.fixture
def server():
    catcher_process = Catcher()
    try:
        yield catcher_process
    finally:
        if catcher_process.process.poll() is None:
            catcher_process.process.stdin.close()
            try:
                catcher_process.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                catcher_process.process.kill()
                catcher_process.process.wait(timeout=WAIT)


def encrypted_for(subscription, text):
    return encrypt(text.encode(), unb64url(subscription["p256dh"]), unb64url(subscription["auth"]))


def test_subscribe_answers_keys_a_browser_would_give(server):
    subscription = server.subscribe()
    assert subscription["endpoint"] == f"{server.origin}/push/{subscription['id']}"
    assert len(unb64url(subscription["p256dh"])) == 65 and unb64url(subscription["p256dh"])[0] == 4
    assert len(unb64url(subscription["auth"])) == 16


def test_a_push_is_decrypted_and_its_vapid_verified(server):
    subscription = server.subscribe()
    text = "Zeit für den Sauerteig 🍞"
    response, data = server.push(subscription, encrypted_for(subscription, text), vapid(server.origin), Urgency="high")
    assert response.status == 201 and data == b""
    assert response.getheader("Location", "").startswith(f"{server.origin}/message/")
    line = server.line(kind="push", id=subscription["id"])
    assert line["status"] == 201 and line["plaintext"] == text and line["error"] is None
    assert line["path"] == f"/push/{subscription['id']}"
    assert line["headers"]["ttl"] == "60" and line["headers"]["urgency"] == "high"
    assert line["vapid"]["aud"] == server.origin and line["vapid"]["sub"] == "mailto:ops@example.org"


def test_a_jwt_signed_by_another_key_than_k_is_forbidden(server):
    subscription = server.subscribe()
    forged = vapid(server.origin, signer=ec.generate_private_key(ec.SECP256R1()),
                   k_of=ec.generate_private_key(ec.SECP256R1()))
    response, _ = server.push(subscription, encrypted_for(subscription, "x"), forged)
    assert response.status == 403
    line = server.line(kind="push", id=subscription["id"])
    assert line["status"] == 403 and "signature" in line["error"] and line["vapid"] is None
    assert line["plaintext"] is None


def test_missing_vapid_or_headers_are_refused(server):
    subscription = server.subscribe()
    body = encrypted_for(subscription, "x")
    response, _ = server.push(subscription, body, None)
    assert response.status == 401 and response.getheader("WWW-Authenticate") == "vapid"
    response, _ = server.push(subscription, body, vapid("http://127.0.0.1:1"))
    assert response.status == 403
    response, _ = server.push(subscription, body, vapid(server.origin), TTL=None)
    assert response.status == 400
    response, _ = server.push(subscription, body, vapid(server.origin), **{"Content-Encoding": "aesgcm"})
    assert response.status == 400
    statuses = [server.line(kind="push")["status"] for _ in range(4)]
    assert statuses == [401, 403, 400, 400]


def test_a_push_encrypted_for_another_subscription_does_not_decrypt(server):
    mine, other = server.subscribe(), server.subscribe()
    response, _ = server.push(mine, encrypted_for(other, "not for you"), vapid(server.origin))
    assert response.status == 400
    line = server.line(kind="push", id=mine["id"])
    assert line["status"] == 400 and "decrypt" in line["error"] and line["plaintext"] is None
    assert line["vapid"] is not None  # the header was fine; only the body was wrong


def test_a_forgotten_subscription_is_gone(server):
    subscription = server.subscribe()
    response, _ = server.request("POST", f"/_forget/{subscription['id']}")
    assert response.status == 200
    response, _ = server.push(subscription, encrypted_for(subscription, "x"), vapid(server.origin))
    assert response.status == 410
    assert server.line(kind="push", id=subscription["id"])["status"] == 410


def test_ntfy_and_webhook_requests_are_reported(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    try:  # two requests on one connection: keep-alive works
        response, data = server.request("POST", "/sous-reminders?x=1", "Brot backen".encode(),
                                         {"Title": "Sous"}, connection=conn)
        assert response.status == 200 and response.getheader("Content-Type") == "application/json"
        assert json.loads(data)["event"] == "message"
        response, data = server.request("POST", "/status/500/x", b"{}", connection=conn)
        assert response.status == 500
    finally:
        conn.close()
    line = server.line(kind="http", path="/sous-reminders")
    assert line["method"] == "POST" and line["query"] == "x=1" and line["status"] == 200
    assert line["body"] == "Brot backen" and base64.b64decode(line["body_b64"]) == "Brot backen".encode()
    assert line["headers"]["title"] == "Sous"
    assert server.line(kind="http", path="/status/500/x")["status"] == 500


def test_redirect_points_where_asked(server):
    response, _ = server.request("POST", "/redirect/x?to=http%3A%2F%2F10.0.0.1%2F")
    assert response.status == 302 and response.getheader("Location") == "http://10.0.0.1/"
    assert server.line(kind="http", path="/redirect/x")["query"] == "to=http%3A%2F%2F10.0.0.1%2F"


def test_a_hanging_request_blocks_nothing_else(server):
    with pytest.raises(TimeoutError):
        server.request("POST", "/hang/x", b"wait", timeout=1)
    assert server.line(kind="http", path="/hang/x")["status"] is None
    response, _ = server.request("POST", "/after-hang")
    assert response.status == 200
    assert server.line(kind="http", path="/after-hang")["status"] == 200
    # ... and the hanging handler does not hold up the exit either.
    assert server.stop() == 0


def test_hang_first_hangs_the_first_request_to_a_path_and_answers_the_later_ones(server):
    with pytest.raises(TimeoutError):
        server.request("POST", "/hang-first/a", b"one", timeout=1)
    first = server.line(kind="http", path="/hang-first/a")
    assert first["status"] is None and first["body"] == "one"
    for body in (b"two", b"three"):  # a retry, and one more: both answered
        response, data = server.request("POST", "/hang-first/a?retry=1", body)
        assert response.status == 200 and json.loads(data)["event"] == "message"
        line = server.line(kind="http", path="/hang-first/a")
        assert line["status"] == 200 and line["body"] == body.decode() and line["query"] == "retry=1"
    # Each path has a first request of its own.
    with pytest.raises(TimeoutError):
        server.request("POST", "/hang-first/b", b"", timeout=1)
    assert server.line(kind="http", path="/hang-first/b")["status"] is None
    assert server.stop() == 0


def test_an_oversized_body_is_refused_and_the_connection_goes_on(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    try:
        response, _ = server.request("POST", "/big", b"x" * (catcher.MAX_BODY + 1), connection=conn)
        assert response.status == 413
        response, _ = server.request("POST", "/small", b"x", connection=conn)
        assert response.status == 200
    finally:
        conn.close()
    assert server.line(kind="http", path="/big")["status"] == 413


def test_sigterm_ends_it(server):
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=WAIT) == 0
