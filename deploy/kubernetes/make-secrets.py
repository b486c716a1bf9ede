#!/usr/bin/env python3
"""Generates the key material of a Sous deployment on Kubernetes and writes it as one YAML file.

    python3 deploy/kubernetes/make-secrets.py secrets.yaml
    kubectl apply -f deploy/kubernetes/namespace.yaml   # the namespace first
    kubectl apply -f secrets.yaml                       # then these, then `kubectl apply -k deploy/kubernetes`

The file holds, in namespace `sous` (--namespace to change):
  Secret sous-<service>-keys   one per service: <service>.curve, the service's long-term CURVE
                               secret key (40 Z85 characters); the planner's also sessions.key,
                               the Ed25519 key sessions are signed with (128 hex digits: the
                               32-byte seed then the 32-byte public key, libsodium's layout)
  ConfigMap sous-public-keys   <service>.pub for the five services and sessions.pub: what each
                               service would publish in SOUS_KEYS_DIR itself
  Secret sous-database         SOUS_DATABASE_URL (postgres://sous:PASSWORD@postgres:5432/sous,
                               or --database-url) and SOUS_POSTGRES_PASSWORD (the same password,
                               for the in-cluster server: deploy/postgres-entrypoint.sh)

Every replica of a service gets the same key files. Generate them once and keep the file out of
git: running this again makes new keys, and a new sessions.key ends every session.

Needs pyzmq (CURVE keys: zmq.curve_keypair) and, for the Ed25519 key, `cryptography` or else
PyNaCl:  python3 -m pip install pyzmq cryptography   (or: pyzmq pynacl)
deploy/kubernetes/check.py imports this file for these names and runs it to check what it writes.
"""

import argparse
import base64
import json
import os
import secrets
import sys
import urllib.parse

SERVICES = ("catalog", "planner", "groceries", "tracker", "notifier")
NAMESPACE = "sous"
PUBLIC_KEYS_CONFIGMAP = "sous-public-keys"
DATABASE_SECRET = "sous-database"
# The in-cluster server (postgres.yaml): the role and database deploy/postgres-entrypoint.sh
# creates, the Service's name and port.
DATABASE_USER = "sous"
DATABASE_NAME = "sous"
DATABASE_HOST = "postgres"
DATABASE_PORT = 5432
# Exit status when neither Ed25519 library is importable (check.py reports it as skipped).
EXIT_NO_ED25519 = 3


def key_secret_name(service):
    return f"sous-{service}-keys"


def key_files(service):
    """The files a service reads from SOUS_DATA_DIR (Shared/Runtime/Identity/Keyring.swift)."""
    return [f"{service}.curve"] + (["sessions.key"] if service == "planner" else [])


# Every object this script writes, with its keys: check.py treats these as defined.
SECRET_KEYS = {key_secret_name(service): key_files(service) for service in SERVICES}
SECRET_KEYS[DATABASE_SECRET] = ["SOUS_DATABASE_URL", "SOUS_POSTGRES_PASSWORD"]
CONFIGMAP_KEYS = {PUBLIC_KEYS_CONFIGMAP: [f"{service}.pub" for service in SERVICES] + ["sessions.pub"]}


class MissingLibrary(Exception):
    pass


def curve_keypair():
    """(public, secret): 40-character Z85 texts."""
    try:
        import zmq
    except ImportError:
        raise MissingLibrary("pyzmq is needed for the CURVE keys: python3 -m pip install pyzmq")
    public, secret = zmq.curve_keypair()
    return public.decode("ascii"), secret.decode("ascii")


def ed25519_keypair(library=None):
    """(seed, public): 32 bytes each, with `cryptography` if importable, else PyNaCl."""
    if library in (None, "cryptography"):
        try:
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        except ImportError:
            if library == "cryptography":
                raise MissingLibrary("the cryptography package is not installed: python3 -m pip install cryptography")
        else:
            key = Ed25519PrivateKey.generate()
            seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
            public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            return seed, public
    try:
        import nacl.signing
    except ImportError:
        raise MissingLibrary(
            "the Ed25519 session key needs the cryptography package or PyNaCl: python3 -m pip install cryptography"
        )
    key = nacl.signing.SigningKey.generate()
    return bytes(key), bytes(key.verify_key)


def check_database_url(url):
    """Raises ValueError unless `url` is a postgres:// URL with a user and a database."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql") or not parts.username or not parts.path.strip("/"):
        raise ValueError("must look like postgres://USER:PASSWORD@HOST:5432/DATABASE")


def generate(namespace=NAMESPACE, database_url=None, ed25519_library=None):
    """The Secrets and the ConfigMap, as Kubernetes objects (dicts), with fresh keys."""
    objects = []
    public_keys = {}
    for service in SERVICES:
        public, secret = curve_keypair()
        files = {f"{service}.curve": secret + "\n"}
        public_keys[f"{service}.pub"] = public + "\n"
        if service == "planner":
            seed, public_session = ed25519_keypair(ed25519_library)
            files["sessions.key"] = (seed + public_session).hex() + "\n"
            public_keys["sessions.pub"] = public_session.hex() + "\n"
        objects.append(secret_object(key_secret_name(service), namespace, service, files))
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": PUBLIC_KEYS_CONFIGMAP, "namespace": namespace, "labels": labels("keys")},
            "data": public_keys,
        }
    )
    password = secrets.token_hex(24)
    if database_url is None:
        database_url = f"postgres://{DATABASE_USER}:{password}@{DATABASE_HOST}:{DATABASE_PORT}/{DATABASE_NAME}"
    check_database_url(database_url)
    objects.append(
        secret_object(DATABASE_SECRET, namespace, "database", {"SOUS_DATABASE_URL": database_url, "SOUS_POSTGRES_PASSWORD": password})
    )
    return objects


def labels(component):
    return {"app.kubernetes.io/name": "sous", "app.kubernetes.io/component": component}


def secret_object(name, namespace, component, files):
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace, "labels": labels(component)},
        "type": "Opaque",
        "data": {key: base64.b64encode(value.encode()).decode("ascii") for key, value in files.items()},
    }


def render(objects):
    """YAML without PyYAML: every scalar as a JSON string, which YAML reads as is."""
    lines = ["# Generated by deploy/kubernetes/make-secrets.py. Secret: do not commit. Apply with: kubectl apply -f FILE"]

    def emit(value, indent):
        for key, item in value.items():
            if isinstance(item, dict):
                lines.append(f"{' ' * indent}{key}:")
                emit(item, indent + 2)
            else:
                lines.append(f"{' ' * indent}{json.dumps(key)}: {json.dumps(item)}" if indent else f"{key}: {json.dumps(item)}")

    for item in objects:
        lines.append("---")
        emit(item, 0)
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("output", help="the YAML file to write (created with mode 0600)")
    parser.add_argument("--namespace", default=NAMESPACE, help=f"namespace of the objects (default {NAMESPACE})")
    parser.add_argument(
        "--database-url",
        help="an external PostgreSQL instead of the in-cluster one: postgres://USER:PASSWORD@HOST:5432/DATABASE "
        "(?sslmode=require for TLS); the user must be allowed to create schemas in that database",
    )
    parser.add_argument("--ed25519", choices=("cryptography", "pynacl"), help="which library makes the session key (default: cryptography if importable, else PyNaCl)")
    parser.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists (new keys: every session ends)")
    options = parser.parse_args(argv)

    if options.database_url is not None:
        try:
            check_database_url(options.database_url)
        except ValueError as error:
            parser.error(f"--database-url {error}")
    if os.path.exists(options.output) and not options.force:
        print(f"make-secrets.py: {options.output} exists; keep it (it holds the deployment's keys) or pass --force for new ones", file=sys.stderr)
        return 1
    try:
        objects = generate(options.namespace, options.database_url, options.ed25519)
    except MissingLibrary as error:
        print(f"make-secrets.py: {error}", file=sys.stderr)
        return EXIT_NO_ED25519
    text = render(objects)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (0 if options.force else os.O_EXCL)
    descriptor = os.open(options.output, flags, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    os.chmod(options.output, 0o600)
    print(f"wrote {options.output}: {len(objects) - 1} Secrets and ConfigMap {PUBLIC_KEYS_CONFIGMAP} in namespace {options.namespace}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
