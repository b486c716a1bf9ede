"""A real SMTP server on 127.0.0.1 for the Swift mail tests (aiosmtpd).

A Swift test starts this script as a child process, reads the first stdout line
`{"port": N}`, and then sends mail to 127.0.0.1:N with its real SMTP client. Every
accepted message is reported as one JSON line on stdout:
`{"from": ..., "to": [...], "data": <raw message>, "tls": bool, "auth": user or null}`.
The script exits when its stdin is closed (the test closes the pipe) or on SIGTERM.

    --port N                          0 (default) picks a free port
    --tls-mode starttls|implicit|none with --cert/--key (PEM) unless none
    --user U --password P             require AUTH PLAIN/LOGIN before MAIL FROM
    --refuse S / --defer S / --stall S  (repeatable) RCPT TO containing S gets
                                      550 / 451 / no answer at all
"""

import argparse
import asyncio
import json
import logging
import os
import signal
import ssl
import sys
import threading
import warnings
import weakref

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

REFUSED = "550 5.1.1 mailbox unavailable"
DEFERRED = "451 4.3.0 try again later"


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Handler:
    def __init__(self, args):
        self.args = args
        self.never = asyncio.Event()  # never set: a stalled RCPT waits forever

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname  # the 5-argument hook must do this itself
        if self.args.user is None:  # no credentials configured: don't offer AUTH
            responses = [r for r in responses if not r[4:].startswith("AUTH")]
        return responses

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if any(s in address for s in self.args.stall):
            await self.never.wait()
        if any(s in address for s in self.args.refuse):
            return REFUSED
        if any(s in address for s in self.args.defer):
            return DEFERRED
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        content = envelope.original_content or b""
        emit({
            "from": envelope.mail_from,
            "to": list(envelope.rcpt_tos),
            "data": content.decode("utf-8", errors="replace"),
            "tls": server.transport.get_extra_info("ssl_object") is not None,
            "auth": session.auth_data if session.authenticated else None,
        })
        return "250 2.0.0 OK: queued"


def make_authenticator(user, password):
    def authenticate(server, session, envelope, mechanism, auth_data):
        if (isinstance(auth_data, LoginPassword)
                and auth_data.login == user.encode()
                and auth_data.password == password.encode()):
            return AuthResult(success=True, auth_data=user)
        return AuthResult(success=False, handled=False)  # -> 535 5.7.8
    return authenticate


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Loopback SMTP catcher for the Swift tests.")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--tls-mode", choices=["starttls", "implicit", "none"], default="starttls")
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--user")
    p.add_argument("--password")
    for name in ("refuse", "defer", "stall"):
        p.add_argument(f"--{name}", action="append", default=[], metavar="SUBSTRING")
    args = p.parse_args(argv)
    if args.tls_mode != "none" and not (args.cert and args.key):
        p.error("--cert and --key are required unless --tls-mode none")
    if (args.user is None) != (args.password is None):
        p.error("--user and --password go together")
    return args


async def serve(args):
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def watch_stdin():  # blocking reads in a thread; EOF means the test is done
        try:  # os.read, not sys.stdin: a buffered read would block interpreter exit
            while os.read(0, 65536):
                pass
        except OSError:
            pass
        loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=watch_stdin, daemon=True).start()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)

    context = None
    if args.tls_mode != "none":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
    handler = Handler(args)
    auth = args.user is not None
    protocols = weakref.WeakSet()  # open connections, dropped on shutdown

    def factory():
        smtp = SMTP(
            handler,
            hostname="localhost",
            decode_data=False,
            enable_SMTPUTF8=True,
            tls_context=context if args.tls_mode == "starttls" else None,
            require_starttls=False,
            auth_required=auth,
            # aiosmtpd counts only STARTTLS as "TLS": with implicit TLS (or no TLS)
            # auth_require_tls=True would hide AUTH and answer it with 538.
            auth_require_tls=args.tls_mode == "starttls",
            authenticator=make_authenticator(args.user, args.password) if auth else None,
            auth_exclude_mechanism=None if auth else ["PLAIN", "LOGIN"],  # -> 504
            loop=loop,
        )
        protocols.add(smtp)
        return smtp

    server = await loop.create_server(
        factory, host="127.0.0.1", port=args.port,
        ssl=context if args.tls_mode == "implicit" else None)
    emit({"port": server.sockets[0].getsockname()[1]})
    try:
        await stop.wait()
    finally:
        server.close()
        for smtp in list(protocols):  # drop open (e.g. stalled) connections
            if smtp.transport is not None:
                smtp.transport.abort()
        await server.wait_closed()


def main(argv=None):
    args = parse_args(argv)
    logging.getLogger("mail.log").setLevel(logging.ERROR)  # aiosmtpd is chatty
    warnings.filterwarnings("ignore", module="aiosmtpd")
    try:
        asyncio.run(serve(args))
    except BrokenPipeError:  # the test stopped reading stdout
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
