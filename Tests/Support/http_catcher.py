"""A real HTTP/1.1 server on 127.0.0.1 for the Swift reminder-channel tests.

It stands in for the far end of every channel the notifier speaks HTTP to: an ntfy
server, webhook receivers, and a Web Push service that decrypts what it is sent
(RFC 8291 message encryption over RFC 8188 aes128gcm) and verifies the VAPID
header (RFC 8292), so a test sees the notification as the browser would.

A Swift test starts this script as a child process, reads the first stdout line
`{"port": N}`, and then talks to http://127.0.0.1:N with its real HTTP client
(keep-alive works; every answer but a 204/304 carries Content-Length). Each request the code
under test makes is reported as one JSON line on stdout, written before it is
answered. The script exits when its stdin is closed (the test closes the pipe) or
on SIGTERM, without waiting for requests still in flight.

    --port N   0 (default) picks a free port

Test set-up routes (answered, never reported, so a test can count the lines of
the code under test alone):

    POST /_subscribe    200 {"id": ID, "endpoint": "http://127.0.0.1:N/push/ID",
                             "p256dh": <65-byte uncompressed P-256 key, base64url>,
                             "auth": <16 bytes, base64url>}
                        a browser's push subscription; the server keeps its keys
    POST /_forget/ID    200; later pushes to ID answer 410 (the browser left)

The Web Push service, `POST /push/ID`, answers the first of:

    405  not a POST; 413  a body over 1 MiB (see below)
    410  ID unknown or forgotten
    401  no Authorization header, or one of another scheme than
         `vapid t=<JWT>, k=<key>` (answered with WWW-Authenticate: vapid)
    403  t or k missing, k not an uncompressed P-256 key, or the JWT malformed,
         its header not {"typ": "JWT", "alg": "ES256"}, its r||s signature not
         made by k, or its claims wrong: aud must be http://127.0.0.1:N, exp an
         integer in the next 24 h, sub a mailto: or https: URI
    400  no `Content-Encoding: aes128gcm`, no integer TTL >= 0, a bad Urgency
         or Topic (RFC 8030 §5), or a body that does not decrypt for ID
    201  accepted; empty body, Location: http://127.0.0.1:N/message/<random>

and reports
`{"kind": "push", "id": ID, "path": ..., "status": int, "headers": {lowercased
name: value}, "plaintext": text or null, "error": why it was refused or null,
"vapid": {"aud", "sub", "exp", "k"} once the header verified, else null}`.
The plaintext is the decrypted payload as UTF-8 (invalid bytes replaced).

Any other method and path (ntfy, webhooks):

    /hang/...                 reported, then never answered (the client must time out)
    /hang-first/...           the first request to a path (the query not counted) is
                              reported, then never answered; every later request to the
                              same path is answered 200 as below (a retry that gets through)
    /status/CODE/...          answers CODE (200-599) with a short text body
    /redirect/...?to=URL      302 to URL (percent-decoded)
    anything else             200 {"id": ..., "event": "message"}, as ntfy answers

reported as
`{"kind": "http", "method": ..., "path": <without the query>, "query": <raw query
string>, "status": int, or null for a hang, "headers": {lowercased name: value},
"body": <UTF-8, invalid bytes replaced>, "body_b64": <standard base64 of the body>}`.

Bodies over 1 MiB are answered 413, reported with an empty body (up to 16 MiB
is read and dropped so the connection goes on; beyond, it is closed). Chunked
request bodies are read too. Repeated headers are joined with ", ".
"""

import argparse
import base64
import json
import os
import re
import secrets
import signal
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAX_BODY = 1 << 20
MAX_DRAINED = 16 << 20  # a body over MAX_BODY but up to this is read and dropped
VAPID_MAX_LIFETIME = 24 * 60 * 60  # RFC 8292 §2: exp MUST NOT be more than 24 h ahead

_output = threading.Lock()


def emit(obj):
    line = json.dumps(obj) + "\n"
    with _output:  # handler threads write concurrently; a line must not interleave
        try:
            sys.stdout.write(line)
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):  # the test stopped reading: nothing left to do
            os._exit(0)


def stop(*_):
    # Take the output lock so no half-written line is left behind, but don't wait
    # forever on a writer stuck on a full pipe.
    _output.acquire(timeout=2)
    os._exit(0)  # not sys.exit: hanging handler threads must not hold the exit up


# --- base64url ---------------------------------------------------------------

_B64URL = re.compile(r"[A-Za-z0-9_-]*")


def b64url_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text):
    """Unpadded base64url only: padding or the standard alphabet are a sender's bug
    (RFC 7515 §2, RFC 8292 §3.2), so they are refused rather than tolerated."""
    if not _B64URL.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError(f"not unpadded base64url: {text[:40]!r}")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def uncompressed_point(public_key):
    return public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


# --- RFC 8291 / RFC 8188 decryption -------------------------------------------

class DecryptionError(ValueError):
    pass


def _hkdf(salt, ikm, info, length):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def decrypt_push(body, ua_private, auth_secret):
    """The plaintext of a Web Push message body, as the browser holding `ua_private`
    (an EllipticCurvePrivateKey) and `auth_secret` would decrypt it.

    Raises DecryptionError saying what is wrong.
    """
    # RFC 8188 §2.1 header: salt(16) | rs(uint32) | idlen(1) | keyid(idlen)
    if len(body) < 21:
        raise DecryptionError(f"body of {len(body)} bytes is shorter than the aes128gcm header")
    salt = body[:16]
    (rs,) = struct.unpack(">I", body[16:20])
    idlen = body[20]
    if rs < 18:  # RFC 8188 §2.1: a tag plus a delimiter must fit
        raise DecryptionError(f"record size {rs} is below 18")
    if idlen != 65:  # RFC 8291 §4: keyid is the sender's uncompressed P-256 key
        raise DecryptionError(f"keyid is {idlen} bytes, not the 65-byte sender public key")
    if len(body) < 21 + idlen:
        raise DecryptionError("body ends inside the keyid")
    as_public = body[21:21 + idlen]
    try:
        sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), as_public)
    except ValueError as error:
        raise DecryptionError(f"keyid is not a P-256 point: {error}") from None
    content = body[21 + idlen:]
    if not content:
        raise DecryptionError("no records after the header")

    # RFC 8291 §3.4
    ecdh_secret = ua_private.exchange(ec.ECDH(), sender)
    ua_public = uncompressed_point(ua_private.public_key())
    key_info = b"WebPush: info\x00" + ua_public + as_public
    ikm = _hkdf(auth_secret, ecdh_secret, key_info, 32)
    cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = int.from_bytes(_hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12), "big")

    records = [content[i:i + rs] for i in range(0, len(content), rs)]
    aead = AESGCM(cek)
    plaintext = bytearray()
    for seq, record in enumerate(records):
        last = seq == len(records) - 1
        try:  # RFC 8188 §2.3: the record's nonce is NONCE XOR its sequence number
            padded = aead.decrypt((nonce ^ seq).to_bytes(12, "big"), record, None)
        except InvalidTag:
            raise DecryptionError(
                f"record {seq} does not authenticate (wrong subscription keys or auth secret, "
                "or a corrupted body)") from None
        data = padded.rstrip(b"\x00")
        if not data:
            raise DecryptionError(f"record {seq} has no padding delimiter")
        delimiter, expected = data[-1], 2 if last else 1
        if delimiter != expected:
            if last and delimiter == 1:
                raise DecryptionError(f"record {seq} ends with delimiter 0x01: the message is truncated")
            raise DecryptionError(f"record {seq} ends with delimiter {delimiter:#04x}, expected {expected:#04x}")
        plaintext += data[:-1]
    return bytes(plaintext)


# --- RFC 8292 VAPID -------------------------------------------------------------

class Refused(Exception):
    """A request the push service turns down, with the status it answers."""

    def __init__(self, status, reason, drained=False):
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.drained = drained  # the request's body was read: the connection can go on


def parse_vapid_header(value):
    """`vapid t=<JWT>, k=<key>` -> (t, k); raises Refused 401 when no VAPID
    credentials are presented at all, 403 when they are incomplete."""
    if not value:
        raise Refused(401, "no Authorization header")
    scheme, _, rest = value.strip().partition(" ")
    if scheme.lower() != "vapid":
        raise Refused(401, f"Authorization scheme is {scheme!r}, not vapid")
    params = {}
    for part in rest.split(","):
        name, eq, val = part.strip().partition("=")
        if eq:
            params[name.strip().lower()] = val.strip().strip('"')
    missing = [name for name in ("t", "k") if not params.get(name)]
    if missing:
        raise Refused(403, f"vapid Authorization lacks {' and '.join(missing)}")
    return params["t"], params["k"]


def verify_vapid(value, audience, now=None):
    """Checks an Authorization header value against RFC 8292 for a push to `audience`
    (the endpoint's origin); returns {"aud", "sub", "exp", "k"} or raises Refused."""
    token, key_text = parse_vapid_header(value)
    now = time.time() if now is None else now

    try:
        point = b64url_decode(key_text)
        if len(point) != 65:  # RFC 8292 §3.2: the uncompressed form, not a compressed one
            raise ValueError(f"{len(point)} bytes, not 65")
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError as error:
        raise Refused(403, f"k is not an uncompressed P-256 public key: {error}") from None

    parts = token.split(".")
    if len(parts) != 3:
        raise Refused(403, f"t has {len(parts)} dot-separated parts, not 3")
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except (ValueError, UnicodeDecodeError) as error:
        raise Refused(403, f"JWT does not decode: {error}") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise Refused(403, "JWT header or claims are not JSON objects")
    if header.get("alg") != "ES256" or header.get("typ") != "JWT":
        raise Refused(403, f"JWT header is {header}, not typ JWT with alg ES256")
    # JWS ES256 (RFC 7518 §3.4) signs with raw r||s, not the DER cryptography expects.
    if len(signature) != 64:
        raise Refused(403, f"JWT signature is {len(signature)} bytes, not the 64 of r||s")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        key.verify(der, f"{parts[0]}.{parts[1]}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise Refused(403, "JWT signature does not verify with k") from None

    aud, exp, sub = claims.get("aud"), claims.get("exp"), claims.get("sub")
    if aud != audience:
        raise Refused(403, f"aud is {aud!r}, not {audience!r}")
    if not isinstance(exp, int) or isinstance(exp, bool):
        raise Refused(403, f"exp is {exp!r}, not an integer")
    if exp <= now:
        raise Refused(403, f"exp {exp} has passed (now {int(now)})")
    if exp > now + VAPID_MAX_LIFETIME:
        raise Refused(403, f"exp {exp} is more than 24 h ahead (now {int(now)})")
    if not isinstance(sub, str) or not sub.startswith(("mailto:", "https:")):
        raise Refused(403, f"sub is {sub!r}, not a mailto: or https: URI")
    return {"aud": aud, "sub": sub, "exp": exp, "k": key_text}


_TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")


def check_push_headers(headers):
    """The RFC 8030 / 8188 headers a push service insists on; raises Refused 400."""
    encoding = (headers.get("Content-Encoding") or "").strip()
    if encoding.lower() != "aes128gcm":
        raise Refused(400, f"Content-Encoding is {encoding!r}, not aes128gcm")
    ttl = headers.get("TTL")
    if ttl is None or not ttl.strip().isdigit():  # isdigit: no sign, so >= 0
        raise Refused(400, f"TTL is {ttl!r}, not an integer >= 0")
    urgency = headers.get("Urgency")
    if urgency is not None and urgency.strip() not in ("very-low", "low", "normal", "high"):
        raise Refused(400, f"Urgency is {urgency!r}")
    topic = headers.get("Topic")
    if topic is not None and not _TOPIC.fullmatch(topic.strip()):
        raise Refused(400, f"Topic is {topic!r}, not 1-32 base64url characters")


# --- the server -------------------------------------------------------------------

class Subscription:
    def __init__(self):
        self.id = secrets.token_hex(8)
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)


class CatcherServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # never join handler threads: hanging ones never return

    def __init__(self, port):
        super().__init__(("127.0.0.1", port), Handler)
        self.subscriptions = {}
        self.subscriptions_lock = threading.Lock()
        self.never = threading.Event()  # never set: what /hang/ handlers wait on
        self.hung_paths = set()  # /hang-first/ paths whose first request hung
        self.hung_paths_lock = threading.Lock()

    def first_request_to(self, path):
        """True once per path: for the request that hangs, never for the ones after it."""
        with self.hung_paths_lock:
            if path in self.hung_paths:
                return False
            self.hung_paths.add(path)
            return True

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the notifier's clients use it

    def version_string(self):
        return "SousHTTPCatcher/1"

    def log_message(self, format, *args):
        pass  # stdout carries JSON lines only, and stderr noise helps nobody

    def dispatch(self):
        path, _, query = self.path.partition("?")
        try:
            body, failure = self.read_body(), None
        except Refused as refused:
            body, failure = b"", refused
            if not refused.drained:
                self.close_connection = True  # the unread body would be taken for the next request

        if path == "/_subscribe" or path.startswith("/_forget/"):
            self.control(path, failure)
        elif path.startswith("/push/"):
            self.push(path, body, failure)
        else:
            self.plain(path, query, body, failure)

    # Every method goes the same way: the routes, not the method, decide the answer.
    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = dispatch

    def read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self.read_chunked()
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        if not length.strip().isdigit():
            raise Refused(400, f"Content-Length is {length!r}")
        size = int(length)
        if size <= MAX_BODY:
            return self.rfile.read(size)
        # Read a moderately large body away before answering: closing on unread data
        # resets the connection, and the client would see that rather than the 413.
        drained = size <= MAX_DRAINED
        remaining = size if drained else 0
        while remaining > 0:
            chunk = self.rfile.read(min(65536, remaining))
            if not chunk:
                break
            remaining -= len(chunk)
        raise Refused(413, f"body of {size} bytes is over {MAX_BODY}", drained=drained)

    def read_chunked(self):
        body = bytearray()
        while True:
            size_line = self.rfile.readline(1024)
            try:
                size = int(size_line.split(b";")[0].strip(), 16)
            except ValueError:
                raise Refused(400, f"bad chunk size line {size_line!r}") from None
            if size == 0:
                while self.rfile.readline(1024).strip():  # trailer fields, up to the blank line
                    pass
                return bytes(body)
            if len(body) + size > MAX_BODY:
                raise Refused(413, f"chunked body is over {MAX_BODY} bytes")
            body += self.rfile.read(size)
            self.rfile.readline(1024)  # the CRLF after the chunk

    def headers_dict(self):
        joined = {}
        for name, value in self.headers.items():
            name = name.lower()
            joined[name] = f"{joined[name]}, {value}" if name in joined else value
        return joined

    def answer(self, status, body=b"", content_type="text/plain; charset=utf-8", headers=()):
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status in (204, 304):  # no body, and for 204 no Content-Length (RFC 9110 §8.6)
            body = b""
        else:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def control(self, path, failure):
        if failure:
            return self.answer(failure.status, failure.reason)
        if self.command != "POST":
            return self.answer(405, "POST only", headers=[("Allow", "POST")])
        server = self.server
        if path == "/_subscribe":
            subscription = Subscription()
            with server.subscriptions_lock:
                server.subscriptions[subscription.id] = subscription
            reply = {
                "id": subscription.id,
                "endpoint": f"{server.origin}/push/{subscription.id}",
                "p256dh": b64url_encode(uncompressed_point(subscription.private_key.public_key())),
                "auth": b64url_encode(subscription.auth),
            }
            return self.answer(200, json.dumps(reply), "application/json")
        with server.subscriptions_lock:
            server.subscriptions.pop(path[len("/_forget/"):], None)
        return self.answer(200, "forgotten")

    def push(self, path, body, failure):
        sub_id = path[len("/push/"):]
        vapid = plaintext = None
        try:
            if failure:
                raise failure
            if self.command != "POST":
                raise Refused(405, "push messages are POSTed")
            with self.server.subscriptions_lock:
                subscription = self.server.subscriptions.get(sub_id)
            if subscription is None:  # RFC 8030 §7.3: the subscription has expired
                raise Refused(410, f"no subscription {sub_id!r} (never made, or forgotten)")
            vapid = verify_vapid(self.headers.get("Authorization"), self.server.origin)
            check_push_headers(self.headers)
            try:
                plaintext = decrypt_push(body, subscription.private_key, subscription.auth)
            except DecryptionError as error:
                raise Refused(400, f"does not decrypt: {error}") from None
            status, error = 201, None
        except Refused as refused:
            status, error = refused.status, refused.reason

        emit({
            "kind": "push",
            "id": sub_id,
            "path": path,
            "status": status,
            "headers": self.headers_dict(),
            "plaintext": None if plaintext is None else plaintext.decode("utf-8", errors="replace"),
            "error": error,
            "vapid": vapid,
        })
        if status == 201:
            location = f"{self.server.origin}/message/{secrets.token_hex(8)}"
            self.answer(201, headers=[("Location", location)])
        else:
            extra = [("WWW-Authenticate", "vapid")] if status == 401 else []
            if status == 405:
                extra.append(("Allow", "POST"))
            self.answer(status, error, headers=extra)

    def plain(self, path, query, body, failure):
        segments = path.split("/") + [""]  # "/status/500/x" -> ["", "status", "500", "x", ""]
        hang = failure is None and (
            segments[1] == "hang" or (segments[1] == "hang-first" and self.server.first_request_to(path)))
        if failure:
            status, reply, headers, content_type = failure.status, failure.reason, [], "text/plain; charset=utf-8"
        elif hang:
            status = None
        else:
            status, reply, headers, content_type = self.plain_outcome(segments, query)

        emit({
            "kind": "http",
            "method": self.command,
            "path": path,
            "query": query,
            "status": status,
            "headers": self.headers_dict(),
            "body": body.decode("utf-8", errors="replace"),
            "body_b64": base64.b64encode(body).decode("ascii"),
        })
        if hang:
            self.server.never.wait()  # the test's client must give up on its own
            return
        self.answer(status, reply, content_type, headers)

    @staticmethod
    def plain_outcome(segments, query):
        """(status, body, headers, content type) for an ntfy or webhook request."""
        text = "text/plain; charset=utf-8"
        if segments[1] == "status":
            code = segments[2]
            if not (code.isdigit() and 200 <= int(code) <= 599):
                return 400, f"/status/ wants a code from 200 to 599, not {code!r}", [], text
            return int(code), f"status {code} as asked", [], text
        if segments[1] == "redirect":
            target = parse_qs(query).get("to")
            if not target:
                return 400, "/redirect/ wants ?to=<url>", [], text
            return 302, f"redirected to {target[0]}", [("Location", target[0])], text
        reply = json.dumps({"id": secrets.token_hex(6), "event": "message"})
        return 200, reply, [], "application/json"


def watch_stdin():
    try:  # os.read, not sys.stdin: a buffered read would block interpreter exit
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    stop()  # EOF: the test is done with us


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Loopback HTTP catcher (ntfy, webhooks, Web Push) for the Swift tests.")
    p.add_argument("--port", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    server = CatcherServer(args.port)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    emit({"port": server.server_address[1]})
    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
