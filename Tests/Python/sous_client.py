"""A minimal Sous client in Python, written from docs/PROTOCOL.md alone.

It needs only ``pyzmq`` (built with CURVE, as the wheels are) and ``msgpack``::

    from sous_client import SousClient, SousError, read_server_key, sign_in

    keys = "data/keys"                      # where the services publish their public keys
    planner = SousClient("tcp://127.0.0.1:7201", server_key=read_server_key(keys, "planner"))
    token = sign_in(planner, "ada@example.org", "a long passphrase", device="script")
    with SousClient("tcp://127.0.0.1:7101", server_key=read_server_key(keys, "catalog"), session=token) as catalog:
        print(catalog.call("health")["service"])
        try:
            catalog.call("ingredients.get", {"ids": ["nope"]})
        except SousError as error:
            print(error.code, error.message, error.field)

Every connection is CURVE-encrypted: the client makes itself a key pair and authenticates
the server by the public key the service published (``<keys>/<service>.pub``). Who the
client is comes from the session token ``account.login`` returns, sent in every header.

Calls follow the Lazy Pirate pattern: one DEALER socket per client, a timeout per
attempt, and after a timeout the socket is closed and a fresh one connected (a late
reply would otherwise arrive on the old one). Writes carry an idempotency key that stays
the same across the attempts of one call, so the server applies a retried write once.

A client object is not thread-safe: give each thread its own.
"""

from __future__ import annotations

import itertools
import time
import uuid
from typing import Any, Optional, Sequence, Union

import msgpack
import zmq

__all__ = [
    "SIGNATURE",
    "PROTOCOL_VERSION",
    "KIND_REQUEST",
    "KIND_REPLY",
    "KIND_EVENT",
    "MAX_TOKEN_BYTES",
    "MAX_MESSAGE_BYTES",
    "SousError",
    "SousClient",
    "read_server_key",
    "sign_in",
    "protocol_prefix",
    "pack",
    "unpack",
    "request_header",
    "request_frames",
    "parse_reply",
    "parse_event",
]

SIGNATURE = b"SOUS"
PROTOCOL_VERSION = 3
KIND_REQUEST = 1
KIND_REPLY = 2
KIND_EVENT = 3
#: Longest request id and idempotency key a server accepts, in UTF-8 bytes.
MAX_TOKEN_BYTES = 128
#: Largest message a server accepts; larger ones make libzmq drop the connection.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024


class SousError(Exception):
    """An error reply from a service (or ``unavailable`` / ``internal`` raised locally).

    ``code`` is one of badRequest, notFound, conflict, quotaExceeded, unauthorized, forbidden,
    rateLimited, unavailable, timeout, internal (or a newer code this client does not know yet); ``field`` names
    the offending input for badRequest, as a dotted path such as "steps.2.minutes".
    """

    def __init__(self, code: str, message: str, field: Optional[str] = None):
        super().__init__(f"{code}: {message}" + (f" (field {field})" if field else ""))
        self.code = code
        self.message = message
        self.field = field


# MARK: MessagePack


def pack(value: Any) -> bytes:
    """MessagePack as Sous writes it: str as str, bytes as bin, tz-aware datetimes as
    the timestamp extension (-1), ints in their smallest format, floats as float64."""
    return msgpack.packb(value, use_bin_type=True, datetime=True)


def unpack(data: bytes) -> Any:
    """Reads one MessagePack value (no trailing bytes); timestamps become UTC datetimes."""
    return msgpack.unpackb(data, raw=False, timestamp=3)


# MARK: Frames


def protocol_prefix(kind: int, version: int = PROTOCOL_VERSION) -> bytes:
    """The 6 bytes every message starts with: b"SOUS", version byte, kind byte."""
    return SIGNATURE + bytes([version, kind])


def message(kind: int, header: Any, raw_body: bytes, version: int = PROTOCOL_VERSION) -> bytes:
    """One message frame: the protocol prefix, the MessagePack header, the body, back to back."""
    return protocol_prefix(kind, version) + pack(header) + raw_body


def split_message(frame: bytes, kind: int) -> tuple:
    """(header, body bytes) of one message frame, its prefix checked: the header is the first
    MessagePack value after the 6 prefix bytes, the body is everything after the header."""
    _check_prefix(frame, kind)
    unpacker = msgpack.Unpacker(raw=False, timestamp=3)
    unpacker.feed(frame[6:])
    try:
        header = unpacker.unpack()
    except Exception as error:  # msgpack raises several exception types
        raise SousError("internal", f"unreadable header: {error}", "header") from None
    return header, frame[6 + unpacker.tell():]


def request_header(
    method: str,
    request_id: str,
    session: Optional[str] = None,
    deadline: Optional[int] = None,
    idempotency_key: Optional[str] = None,
    on_behalf_of: Optional[str] = None,
) -> dict:
    """The request header map, every key present (nil where unset), in the order the
    Swift runtime writes it. ``session`` is the token ``account.login`` returned;
    ``deadline`` is absolute Unix time in milliseconds; ``onBehalfOf`` is for Sous services
    only (anyone else sending it is refused)."""
    return {
        "method": method,
        "id": request_id,
        "session": session,
        "onBehalfOf": on_behalf_of,
        "deadline": deadline,
        "idempotencyKey": idempotency_key,
    }


def request_frames(
    method: str,
    body: Any = None,
    request_id: str = "1",
    session: Optional[str] = None,
    deadline: Optional[int] = None,
    idempotency_key: Optional[str] = None,
    *,
    version: int = PROTOCOL_VERSION,
    kind: int = KIND_REQUEST,
    header: Any = None,
    raw_body: Optional[bytes] = None,
) -> list:
    """The frames a DEALER sends for a request: the empty delimiter, then one message frame
    (protocol prefix, header, body).

    ``body`` None means an empty map (the body of methods that take nothing). For tests
    of damaged requests, ``version`` and ``kind`` change the protocol prefix, ``header``
    replaces the whole header value, and ``raw_body`` sends bytes as the body unencoded.
    """
    if header is None:
        header = request_header(method, request_id, session, deadline, idempotency_key)
    if raw_body is None:
        raw_body = pack({} if body is None else body)
    return [b"", message(kind, header, raw_body, version)]


def parse_reply(frames: Sequence[bytes]) -> tuple:
    """Splits the frames a DEALER received into (header dict, body bytes).

    Raises SousError("internal", ...) when they are not a Sous reply.
    """
    frames = [bytes(frame) for frame in frames]
    if len(frames) != 2 or frames[0] != b"":
        raise SousError("internal", f"a reply is 2 frames (the delimiter, then the message), this one has {len(frames)}")
    header, body = split_message(frames[1], KIND_REPLY)
    if not isinstance(header, dict) or not isinstance(header.get("id"), str) or header.get("status") not in ("ok", "error"):
        raise SousError("internal", f"unexpected reply header {header!r}")
    return header, body


def parse_event(frames: Sequence[bytes]) -> tuple:
    """Splits the frames a SUB socket received into (topic, header dict, decoded body)."""
    frames = [bytes(frame) for frame in frames]
    if len(frames) != 2:
        raise SousError("badRequest", f"an event is 2 frames (the topic, then the message), this one has {len(frames)}", "frames")
    header, body = split_message(frames[1], KIND_EVENT)
    topic = frames[0].decode("utf-8")
    if not isinstance(header, dict) or header.get("topic") != topic:
        raise SousError("badRequest", "event header topic differs from the topic frame", "header.topic")
    return topic, header, unpack(body)


def _check_prefix(frame: bytes, kind: int) -> None:
    if len(frame) < 6 or frame[:4] != SIGNATURE:
        raise SousError("internal", "not a Sous message: bad protocol prefix", "protocol")
    if frame[4] != PROTOCOL_VERSION:
        raise SousError("internal", f"unsupported protocol version {frame[4]}", "version")
    if frame[5] != kind:
        raise SousError("internal", f"expected message kind {kind}, got {frame[5]}", "kind")


def decode_body(header: dict, body: bytes) -> Any:
    """The decoded body of an "ok" reply, or raises the SousError an "error" reply carries."""
    try:
        value = unpack(body)
    except Exception as error:
        raise SousError("internal", f"the reply body could not be read: {error}") from None
    if header["status"] == "ok":
        return value
    if not isinstance(value, dict) or not isinstance(value.get("code"), str):
        raise SousError("internal", "the error reply could not be read")
    return _raise(value)


def _raise(error: dict):
    raise SousError(error["code"], str(error.get("message", "")), error.get("field"))


# MARK: Client


class SousClient:
    """A client of one Sous service (Lazy Pirate over a DEALER socket)."""

    def __init__(
        self,
        endpoint: Union[str, Sequence[str]],
        server_key: Optional[bytes] = None,
        session: Optional[str] = None,
        timeout_ms: int = 3000,
        retries: int = 2,
        context: Optional[zmq.Context] = None,
        send_deadline: bool = True,
    ):
        """``server_key`` is the service's CURVE public key (Z85, see ``read_server_key``):
        required for every endpoint but ``inproc``. ``session`` is the token calls carry
        unless they give another. ``timeout_ms`` is per attempt; ``retries`` are the attempts
        after the first. With ``send_deadline`` each attempt tells the server its absolute
        deadline (now + timeout), so a server that gets to it too late answers ``timeout``.

        ``endpoint`` is one endpoint, or the replicas of one service: a list, or one string with
        commas (as ``SOUS_<NAME>_ENDPOINT`` takes them). With several, the socket connects to
        each with ``ZMQ_IMMEDIATE`` 1, so requests go round robin to the replicas whose
        connection is up, and an attempt that timed out is retried on a fresh socket that
        reaches a live one."""
        endpoints = [part.strip() for part in endpoint.split(",")] if isinstance(endpoint, str) else [str(part).strip() for part in endpoint]
        endpoints = [part for part in endpoints if part]
        if not endpoints:
            raise ValueError("SousClient needs at least one endpoint")
        #: Every endpoint connected to; ``endpoint`` is them joined with commas (one: itself).
        self.endpoints = endpoints
        self.endpoint = ",".join(endpoints)
        self.server_key = server_key
        self.session = session
        # A key pair of the client's own: CURVE needs one; who the user is, the token says.
        self.public_key, self.secret_key = zmq.curve_keypair()
        self.timeout_ms = timeout_ms
        self.retries = max(retries, 0)
        self.send_deadline = send_deadline
        self.context = context or zmq.Context.instance()
        self._instance = uuid.uuid4().hex[:8]
        self._counter = itertools.count(1)
        self._socket: Optional[zmq.Socket] = None

    # Socket handling

    def _connect(self) -> zmq.Socket:
        if self._socket is None:
            socket = self.context.socket(zmq.DEALER)
            socket.setsockopt(zmq.LINGER, 0)
            socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
            socket.setsockopt(zmq.RECONNECT_IVL, 100)
            socket.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)
            if len(self.endpoints) > 1:
                # Round robin only over replicas whose connection is up: a dead one is skipped.
                socket.setsockopt(zmq.IMMEDIATE, 1)
            self.secure(socket)
            for endpoint in self.endpoints:
                socket.connect(endpoint)
            self._socket = socket
        return self._socket

    def secure(self, socket: zmq.Socket) -> None:
        """Makes ``socket`` a CURVE client of this service (before it connects)."""
        if self.server_key is not None:
            socket.curve_serverkey = self.server_key
            socket.curve_publickey = self.public_key
            socket.curve_secretkey = self.secret_key

    def _discard_socket(self) -> None:
        if self._socket is not None:
            self._socket.close(linger=0)
            self._socket = None

    def close(self) -> None:
        self._discard_socket()

    def __enter__(self) -> "SousClient":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def next_request_id(self) -> str:
        """Unique per client (and therefore per socket)."""
        return f"{self._instance}-{next(self._counter)}"

    # Calls

    def call(
        self,
        method: str,
        body: Any = None,
        session: Optional[str] = None,
        write: bool = False,
        timeout_ms: Optional[int] = None,
        idempotency_key: Optional[str] = None,
    ) -> Any:
        """Calls ``method`` with ``body`` (None: an empty map) and returns the decoded reply
        body, or raises SousError: the service's error, ``unavailable`` when no attempt was
        answered, or ``internal`` when the reply was not a readable Sous reply.

        ``write=True`` marks a write: it carries an idempotency key (a fresh one unless
        given), the same on every attempt, so a retry is applied once."""
        attempt_timeout = self.timeout_ms if timeout_ms is None else timeout_ms
        if write and idempotency_key is None:
            idempotency_key = uuid.uuid4().hex
        body_bytes = pack({} if body is None else body)
        attempts = 1 + self.retries
        last_problem = ""
        for _ in range(attempts):
            request_id = self.next_request_id()
            deadline = int(time.time() * 1000) + attempt_timeout if self.send_deadline else None
            frames = request_frames(
                method, request_id=request_id, session=session or self.session, deadline=deadline,
                idempotency_key=idempotency_key, raw_body=body_bytes,
            )
            socket = self._connect()
            give_up_at = time.monotonic() + attempt_timeout / 1000
            if len(self.endpoints) > 1:
                # With ZMQ_IMMEDIATE a send blocks until some replica is connected: wait for
                # that inside the attempt's time, never longer.
                if not socket.poll(max(int((give_up_at - time.monotonic()) * 1000), 0), zmq.POLLOUT):
                    last_problem = f"no replica connected within {attempt_timeout} ms"
                    self._discard_socket()
                    continue
                try:
                    socket.send_multipart(frames, zmq.NOBLOCK)
                except zmq.Again:  # the replica went away between the poll and the send
                    last_problem = "the connected replica went away before the request left"
                    self._discard_socket()
                    continue
            else:
                socket.send_multipart(frames)
            while True:
                remaining_ms = int((give_up_at - time.monotonic()) * 1000)
                if remaining_ms <= 0 or not socket.poll(remaining_ms, zmq.POLLIN):
                    # Lazy Pirate: never reuse a socket whose request went unanswered.
                    last_problem = f"no reply within {attempt_timeout} ms"
                    self._discard_socket()
                    break
                reply = socket.recv_multipart(zmq.NOBLOCK)
                try:
                    header, reply_body = parse_reply(reply)
                except SousError:
                    self._discard_socket()
                    raise
                if header["id"] != request_id:
                    continue  # a stale reply to an earlier request on this socket
                return decode_body(header, reply_body)
        raise SousError(
            "unavailable",
            f"{self.endpoint} did not answer {method} ({attempts} attempts, {last_problem})",
        )

    def exchange_raw(self, frames: Sequence[bytes], timeout_ms: Optional[int] = None) -> Optional[list]:
        """Sends hand-made frames on a throwaway DEALER and returns the frames received,
        or None if nothing arrives in time. For tests of damaged requests."""
        socket = self.context.socket(zmq.DEALER)
        try:
            socket.setsockopt(zmq.LINGER, 0)
            self.secure(socket)
            socket.connect(self.endpoints[0])
            socket.send_multipart(list(frames))
            wait = self.timeout_ms if timeout_ms is None else timeout_ms
            if not socket.poll(wait, zmq.POLLIN):
                return None
            return socket.recv_multipart(zmq.NOBLOCK)
        finally:
            socket.close(linger=0)


# MARK: Keys and sessions


def read_server_key(keys_dir, service: str) -> bytes:
    """The CURVE public key (Z85) ``service`` published as ``<keys_dir>/<service>.pub``."""
    with open(f"{keys_dir}/{service}.pub", "rb") as file:
        key = file.read().strip()
    if len(key) != 40:
        raise SousError("unavailable", f"{keys_dir}/{service}.pub does not hold a 40-character Z85 key")
    return key


def sign_in(planner: "SousClient", email: str, password: str, device: str = "python", register_as: Optional[str] = None) -> str:
    """Signs in at the planner (registering first when ``register_as`` names the account)
    and returns the session token to put in every request header."""
    if register_as is not None:
        planner.call("account.register", {"email": email, "password": password, "name": register_as}, write=True)
    signed_in = planner.call("account.login", {"email": email, "password": password, "device": device}, write=True)
    return signed_in["token"]
