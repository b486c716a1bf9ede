#!/usr/bin/env python3
"""Checks the Kubernetes manifests in deploy/kubernetes offline; prints one line per problem and
exits 1 if there is any (0 when all is well, 2 when it cannot run at all).

    python3 deploy/kubernetes/check.py              # what deploy/test.sh runs
    python3 deploy/kubernetes/check.py --dir COPY   # another copy of the folder

What it holds the manifests to (the facts come from this repository: README.md, deploy/Dockerfile,
deploy/postgres.Dockerfile and its entrypoint, Shared/Client/Services.swift and
Shared/Runtime/Storage/SousDatabase.swift; nothing is fetched, no cluster is needed):
  - every file parses (YAML, the generator's env file); kustomization.yaml lists every manifest,
    namespace `sous`; every object is of a kind this deployment uses;
  - each of the five services (Shared/Client/Services.swift) has a StatefulSet of 2 or more
    replicas and a headless Service with its two ports, named `requests` and `events`;
  - every SOUS_* variable a container gets is in README.md's configuration table;
  - every Sous process gets the endpoint lists of all five services, and each list names
    exactly the pods that exist: replicas x headless Service x port;
  - the BIND variables, containerPorts and Service ports agree; probes run `sous-<service>
    check` at the pod's own port; commands are executables deploy/Dockerfile builds; pods run
    as the image's uid, not root, with a read-only root filesystem;
  - every Secret and ConfigMap a volume or a variable names (and the key it names) is in the
    manifests or among those make-secrets.py generates; the key files reach SOUS_DATA_DIR with
    mode 0600 and the public keys SOUS_KEYS_DIR; the database URL reaches every service;
  - the in-cluster PostgreSQL (if listed) is the image deploy/postgres.Dockerfile builds, set up
    as deploy/postgres-entrypoint.sh reads it, matches the URL make-secrets.py writes and allows
    enough connections for every replica;
  - make-secrets.py, run into a temporary folder, writes valid keys: 40-character Z85 CURVE
    secrets whose public halves (zmq.curve_public) are the ConfigMap's, a 128-hex-digit Ed25519
    key whose public half is sessions.pub;
  - no misspelt field in the Services, StatefulSets, pods and containers;
  - `kubectl kustomize` builds the folder, if kubectl is installed (it is optional).
Needs PyYAML and pyzmq; make-secrets.py also needs `cryptography` or PyNaCl (without either,
that one step is reported as skipped).
"""

import argparse
import base64
import hashlib
import importlib.util
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

KINDS = {"Namespace": "v1", "ConfigMap": "v1", "Service": "v1", "StatefulSet": "apps/v1", "PodDisruptionBudget": "policy/v1"}
NOT_MANIFESTS = {"kustomization.yaml", "secrets.yaml"}
Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
LOOPBACK = ("127.0.0.1", "localhost")
# The fields of the Kubernetes API objects these manifests use (core/v1, apps/v1): a misspelt
# field would otherwise be dropped without a word by a client that does not validate.
FIELDS = {
    "StatefulSetSpec": "minReadySeconds ordinals persistentVolumeClaimRetentionPolicy podManagementPolicy replicas "
    "revisionHistoryLimit selector serviceName template updateStrategy volumeClaimTemplates",
    "ServiceSpec": "allocateLoadBalancerNodePorts clusterIP clusterIPs externalIPs externalName externalTrafficPolicy "
    "healthCheckNodePort internalTrafficPolicy ipFamilies ipFamilyPolicy loadBalancerClass loadBalancerIP "
    "loadBalancerSourceRanges ports publishNotReadyAddresses selector sessionAffinity sessionAffinityConfig "
    "trafficDistribution type",
    "PodSpec": "activeDeadlineSeconds affinity automountServiceAccountToken containers dnsConfig dnsPolicy "
    "enableServiceLinks ephemeralContainers hostAliases hostIPC hostNetwork hostPID hostUsers hostname "
    "imagePullSecrets initContainers nodeName nodeSelector os overhead preemptionPolicy priority "
    "priorityClassName readinessGates resourceClaims resources restartPolicy runtimeClassName schedulerName "
    "schedulingGates securityContext serviceAccount serviceAccountName setHostnameAsFQDN shareProcessNamespace "
    "subdomain terminationGracePeriodSeconds tolerations topologySpreadConstraints volumes",
    "PodSecurityContext": "appArmorProfile fsGroup fsGroupChangePolicy runAsGroup runAsNonRoot runAsUser "
    "seLinuxChangePolicy seLinuxOptions seccompProfile supplementalGroups supplementalGroupsPolicy sysctls "
    "windowsOptions",
    "Container": "args command env envFrom image imagePullPolicy lifecycle livenessProbe name ports readinessProbe "
    "resizePolicy resources restartPolicy securityContext startupProbe stdin stdinOnce terminationMessagePath "
    "terminationMessagePolicy tty volumeDevices volumeMounts workingDir",
    "SecurityContext": "allowPrivilegeEscalation appArmorProfile capabilities privileged procMount "
    "readOnlyRootFilesystem runAsGroup runAsNonRoot runAsUser seLinuxOptions seccompProfile windowsOptions",
    "Probe": "exec failureThreshold grpc httpGet initialDelaySeconds periodSeconds successThreshold tcpSocket "
    "terminationGracePeriodSeconds timeoutSeconds",
    "VolumeMount": "mountPath mountPropagation name readOnly recursiveReadOnly subPath subPathExpr",
    "ContainerPort": "containerPort hostIP hostPort name protocol",
    "ServicePort": "appProtocol name nodePort port protocol targetPort",
}
FIELDS = {kind: set(names.split()) for kind, names in FIELDS.items()}

problems = []
# Where a ConfigMap is written: a problem in a shared value is reported there, once.
ORIGINS = {}


def problem(where, text):
    line = f"{where}: {text}"
    if line not in problems:
        problems.append(line)


def where_set(container_where, source):
    """A variable's problem is the container's, or that of the ConfigMap all containers share."""
    if source.startswith("ConfigMap ") and " key " not in source:
        name = source[len("ConfigMap ") :]
        return ORIGINS.get(name, f"ConfigMap {name}")
    return f"{container_where} ({source})"


# --------------------------------------------------------------------------------------------
# Facts from the repository


def read_services():
    """{service: request port} from SousService (the events port is the next one)."""
    path = ROOT / "Shared/Client/Services.swift"
    text = path.read_text()
    cases = re.search(r"enum SousService\b[^{]*\{\s*case ([a-z, ]+)\n", text)
    ports = dict(re.findall(r"case \.([a-z]+): (\d+)", text))
    if not cases:
        problem(path.relative_to(ROOT), "cannot find the services of enum SousService")
        return {}
    services = {}
    for name in (part.strip() for part in cases.group(1).split(",")):
        if name not in ports:
            problem(path.relative_to(ROOT), f"no default port for {name}")
        else:
            services[name] = int(ports[name])
    return services


def documented_variables(services):
    """Every SOUS_* name README.md's configuration table documents, SOUS_<SERVICE>_... and the
    `SOUS_PLANNER_…` row (the catalog's variables for each other service) expanded."""
    path = ROOT / "README.md"
    text = path.read_text()
    section = text.split("\n## Configuration", 1)[-1].split("\n## ", 1)[0]
    names, prefixes = set(), []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        for token in re.findall(r"`([^`]+)`", line.split("|")[1]):
            if token.endswith("…"):
                prefixes.append(token[:-1])
            elif token.startswith("SOUS_"):
                names.add(token)
    expanded = set()
    for name in names:
        if "<SERVICE>" in name:
            expanded |= {name.replace("<SERVICE>", service.upper()) for service in services}
        else:
            expanded.add(name)
    catalog = [name[len("SOUS_CATALOG_") :] for name in expanded if name.startswith("SOUS_CATALOG_")]
    for prefix in prefixes:
        expanded |= {prefix + suffix for suffix in catalog}
    if len(expanded) < 10:
        problem("README.md", "cannot read the configuration table (## Configuration, rows | `SOUS_...` |)")
    return expanded


def dockerfile_facts():
    """(uid of the image's user, executables the image stages (links included), PATH has /opt/sous/bin)."""
    path = ROOT / "deploy/Dockerfile"
    text = path.read_text()
    uid = re.search(r"useradd\b[^\n]*--uid (\d+)", text)
    products = re.search(r"for product in ([^;]+);", text)
    path_line = re.search(r"\bPATH=(\S+)", text)
    if not uid:
        problem("deploy/Dockerfile", "cannot find the uid of `useradd --uid N`")
    if not products:
        problem("deploy/Dockerfile", "cannot find the staged executables (`for product in ...;`)")
    if not path_line or "/opt/sous/bin" not in path_line.group(1).split(":"):
        problem("deploy/Dockerfile", "PATH does not hold /opt/sous/bin, where the executables are staged")
    staged = set(products.group(1).split()) if products else set()
    if "sous-server" in staged:
        # deploy/stage-binaries.sh links sous-<service> to it for every service it serves.
        staged |= {f"sous-{service}" for service in served_services()}
    return (int(uid.group(1)) if uid else None), staged


def served_services():
    """The services `sous-server` runs: the cases of SousService (Shared/Client/Services.swift)."""
    path = ROOT / "Shared/Client/Services.swift"
    cases = re.search(r"enum SousService\b[^{]*\{\s*case ([a-z, ]+)\n", path.read_text())
    if not cases:
        problem(str(path.relative_to(ROOT)), "cannot find `enum SousService { case ... }`")
        return []
    return [name.strip() for name in cases.group(1).split(",")]


def connections_per_replica():
    path = ROOT / "Shared/Runtime/Storage/SousDatabase.swift"
    found = re.search(r"postgresConnections = (\d+)", path.read_text())
    if not found:
        problem("Shared/Runtime/Storage/SousDatabase.swift", "cannot find postgresConnections")
        return 0
    return int(found.group(1))


def load_make_secrets(folder):
    sys.dont_write_bytecode = True  # no __pycache__ next to the manifests
    spec = importlib.util.spec_from_file_location("make_secrets", folder / "make-secrets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------------
# Manifests


def yaml_error(error):
    mark = getattr(error, "problem_mark", None)
    return f"{getattr(error, 'problem', None) or error} (line {mark.line + 1})" if mark else str(error).replace("\n", " ")


def parse_env_file(path, where):
    data = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.partition("=")
        if not equals or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            problem(f"{where}:{number}", f"not KEY=VALUE: {raw!r}")
        elif key in data:
            problem(f"{where}:{number}", f"{key} is set twice")
        else:
            data[key] = value
    return data


def load_manifests(folder, namespace):
    """(objects as (file, doc), {generated ConfigMap name: data})."""
    path = folder / "kustomization.yaml"
    try:
        kustomization = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        problem("kustomization.yaml", f"does not parse: {yaml_error(error)}")
        return [], {}
    if not isinstance(kustomization, dict) or kustomization.get("kind") != "Kustomization":
        problem("kustomization.yaml", "is not a Kustomization")
        return [], {}
    if kustomization.get("namespace") != namespace:
        problem("kustomization.yaml", f"namespace is {kustomization.get('namespace')!r}, not {namespace!r}")
    resources = kustomization.get("resources") or []
    on_disk = {p.name for p in folder.iterdir() if p.suffix in (".yaml", ".yml")} - NOT_MANIFESTS
    for name in sorted(on_disk - set(resources)):
        problem(name, "is not listed in kustomization.yaml's resources")
    objects = []
    for name in resources:
        file = folder / name
        if not file.is_file():
            problem("kustomization.yaml", f"lists {name}, which is not a file here")
            continue
        try:
            docs = [doc for doc in yaml.safe_load_all(file.read_text()) if doc is not None]
        except yaml.YAMLError as error:
            problem(name, f"does not parse: {yaml_error(error)}")
            continue
        for doc in docs:
            objects.append((name, doc))
    generated = {}
    for generator in kustomization.get("configMapGenerator") or []:
        data = {}
        ORIGINS[generator.get("name")] = f"{', '.join(generator.get('envs') or ['kustomization.yaml'])}: ConfigMap {generator.get('name')}"
        for env in generator.get("envs") or []:
            if (folder / env).is_file():
                data.update(parse_env_file(folder / env, env))
            else:
                problem("kustomization.yaml", f"configMapGenerator {generator.get('name')}: no file {env}")
        for literal in generator.get("literals") or []:
            key, _, value = literal.partition("=")
            data[key] = value
        if generator.get("files"):
            problem("kustomization.yaml", f"configMapGenerator {generator.get('name')}: `files` is not checked; use envs or literals")
        generated[generator.get("name")] = data
    return objects, generated


def index_objects(objects, namespace):
    index = {}
    for file, doc in objects:
        if not isinstance(doc, dict) or not isinstance(doc.get("metadata"), dict) or not doc["metadata"].get("name"):
            problem(file, "an object without kind and metadata.name")
            continue
        kind, name = doc.get("kind"), doc["metadata"]["name"]
        where = f"{file}: {kind}/{name}"
        if kind == "Secret":
            problem(where, "Secrets come from make-secrets.py (kept out of git), not from the manifests")
            continue
        if kind not in KINDS:
            problem(where, f"unexpected kind (expected one of {', '.join(sorted(KINDS))})")
            continue
        if doc.get("apiVersion") != KINDS[kind]:
            problem(where, f"apiVersion {doc.get('apiVersion')!r}, expected {KINDS[kind]}")
        if doc["metadata"].get("namespace") not in (None, namespace):
            problem(where, f"namespace {doc['metadata']['namespace']!r}, expected {namespace!r} (or none: kustomization.yaml sets it)")
        if (kind, name) in index:
            problem(where, f"defined twice (also in {index[(kind, name)][0]})")
        index[(kind, name)] = (file, doc)
        check_object_fields(where, kind, doc)
        if kind == "ConfigMap":
            ORIGINS[name] = f"{file}: ConfigMap/{name}"
    return index


def check_fields(where, kind, value):
    unknown = sorted(set(value or {}) - FIELDS[kind]) if isinstance(value, dict) else []
    if unknown:
        problem(where, f"unknown {kind} field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}")


def check_object_fields(where, kind, doc):
    """Misspelt fields in the parts of a StatefulSet or Service these manifests write."""
    spec = doc.get("spec") or {}
    if kind == "Service":
        check_fields(where, "ServiceSpec", spec)
        for port in spec.get("ports") or []:
            check_fields(where, "ServicePort", port)
    if kind != "StatefulSet":
        return
    check_fields(where, "StatefulSetSpec", spec)
    pod = (spec.get("template") or {}).get("spec") or {}
    check_fields(where, "PodSpec", pod)
    check_fields(where, "PodSecurityContext", pod.get("securityContext"))
    for container in (pod.get("initContainers") or []) + (pod.get("containers") or []):
        cwhere = f"{where}: container {container.get('name')}"
        check_fields(cwhere, "Container", container)
        check_fields(cwhere, "SecurityContext", container.get("securityContext"))
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            check_fields(f"{cwhere}: {probe}", "Probe", container.get(probe))
        for mount in container.get("volumeMounts") or []:
            check_fields(cwhere, "VolumeMount", mount)
        for port in container.get("ports") or []:
            check_fields(cwhere, "ContainerPort", port)


def matches(selector, labels):
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


def image_name(image):
    """`registry/path/sous:tag` -> `sous`."""
    return (image or "").rsplit("/", 1)[-1].split("@")[0].split(":")[0]


class Definitions:
    """The ConfigMaps and Secrets containers may name, with their keys and (where known) values."""

    def __init__(self, index, generated, secrets_module):
        self.configmaps = {name: dict(doc.get("data") or {}) for (kind, name), (_, doc) in index.items() if kind == "ConfigMap"}
        self.configmaps.update(generated)
        self.generated_configmaps = {name: dict.fromkeys(keys) for name, keys in secrets_module.CONFIGMAP_KEYS.items()}
        self.secrets = {name: list(keys) for name, keys in secrets_module.SECRET_KEYS.items()}

    def configmap_keys(self, name):
        if name in self.configmaps:
            return self.configmaps[name]
        return self.generated_configmaps.get(name)

    def check_reference(self, where, kind, name, key=None, optional=False):
        keys = self.configmap_keys(name) if kind == "ConfigMap" else self.secrets.get(name)
        if keys is None:
            if not optional:
                problem(where, f"{kind} {name!r} is neither in the manifests nor made by make-secrets.py")
        elif key is not None and key not in keys:
            problem(where, f"{kind} {name!r} has no key {key!r} (it has {', '.join(sorted(keys))})")


def effective_env(container, definitions, where):
    """{name: (value or None, source)} as the container sees it; checks every reference."""
    env = {}
    for source in container.get("envFrom") or []:
        prefix = source.get("prefix", "")
        if "configMapRef" in source:
            ref = source["configMapRef"]
            definitions.check_reference(where, "ConfigMap", ref.get("name"), optional=ref.get("optional", False))
            for key, value in (definitions.configmap_keys(ref.get("name")) or {}).items():
                env[prefix + key] = (value, f"ConfigMap {ref.get('name')}")
        if "secretRef" in source:
            ref = source["secretRef"]
            definitions.check_reference(where, "Secret", ref.get("name"), optional=ref.get("optional", False))
            for key in definitions.secrets.get(ref.get("name")) or []:
                env[prefix + key] = (None, f"Secret {ref.get('name')}")
    for item in container.get("env") or []:
        name = item.get("name")
        if "value" in item:
            env[name] = (str(item["value"]), "env")
        elif "valueFrom" in item:
            source = item["valueFrom"]
            if "secretKeyRef" in source:
                ref = source["secretKeyRef"]
                definitions.check_reference(where, "Secret", ref.get("name"), ref.get("key"), ref.get("optional", False))
                env[name] = (None, f"Secret {ref.get('name')} key {ref.get('key')}")
            elif "configMapKeyRef" in source:
                ref = source["configMapKeyRef"]
                definitions.check_reference(where, "ConfigMap", ref.get("name"), ref.get("key"), ref.get("optional", False))
                value = (definitions.configmap_keys(ref.get("name")) or {}).get(ref.get("key"))
                env[name] = (value, f"ConfigMap {ref.get('name')} key {ref.get('key')}")
            else:
                env[name] = (None, "fieldRef")
        else:
            env[name] = ("", "env")
    return env


def check_volumes(pod, definitions, where):
    for volume in pod.get("volumes") or []:
        vwhere = f"{where}: volume {volume.get('name')}"
        sources = [volume]
        if "projected" in volume:
            sources = volume["projected"].get("sources") or []
        for source in sources:
            if "secret" in source:
                ref = source["secret"]
                name = ref.get("secretName", ref.get("name"))
                definitions.check_reference(vwhere, "Secret", name, optional=ref.get("optional", False))
                for item in ref.get("items") or []:
                    definitions.check_reference(vwhere, "Secret", name, item.get("key"), ref.get("optional", False))
            if "configMap" in source:
                ref = source["configMap"]
                definitions.check_reference(vwhere, "ConfigMap", ref.get("name"), optional=ref.get("optional", False))
                for item in ref.get("items") or []:
                    definitions.check_reference(vwhere, "ConfigMap", ref.get("name"), item.get("key"), ref.get("optional", False))


def mount_at(container, pod, path):
    """(volumeMount, volume) mounted at `path` in `container`, or (None, None)."""
    for mount in container.get("volumeMounts") or []:
        if mount.get("mountPath", "").rstrip("/") == path.rstrip("/"):
            volume = next((v for v in pod.get("volumes") or [] if v.get("name") == mount.get("name")), None)
            return mount, volume
    return None, None


def security(pod, container, key):
    value = (container.get("securityContext") or {}).get(key)
    return value if value is not None else (pod.get("securityContext") or {}).get(key)


def check_security(where, pod, container, uid):
    if security(pod, container, "runAsNonRoot") is not True:
        problem(where, "securityContext.runAsNonRoot is not true")
    if uid is not None and security(pod, container, "runAsUser") != uid:
        problem(where, f"runs as uid {security(pod, container, 'runAsUser')}, not the image's user {uid} (deploy/Dockerfile)")
    context = container.get("securityContext") or {}
    if context.get("readOnlyRootFilesystem") is not True:
        problem(where, "securityContext.readOnlyRootFilesystem is not true")
    if context.get("allowPrivilegeEscalation") is not False:
        problem(where, "securityContext.allowPrivilegeEscalation is not false")
    resources = container.get("resources") or {}
    for part in ("requests", "limits"):
        missing = [kind for kind in ("cpu", "memory") if kind not in (resources.get(part) or {})]
        if missing:
            problem(where, f"no resources.{part} for {' and '.join(missing)}")


def option(command, flag):
    if flag in command and command.index(flag) + 1 < len(command):
        return command[command.index(flag) + 1]
    return None


def check_service(service, port, index, definitions, facts, expected_lists):
    """The StatefulSet and headless Service of one Sous service, and its containers."""
    uid, products, documented, secrets_module = facts
    found = index.get(("StatefulSet", service))
    if not found:
        problem("manifests", f"no StatefulSet {service!r}")
        return
    file, sts = found
    where = f"{file}: StatefulSet/{service}"
    spec = sts.get("spec") or {}
    pod = ((spec.get("template") or {}).get("spec")) or {}
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if not matches((spec.get("selector") or {}).get("matchLabels"), labels):
        problem(where, "spec.selector.matchLabels does not match the pod template's labels")
    containers = [c for c in pod.get("containers") or [] if c.get("name") == service]
    if len(containers) != 1:
        problem(where, f"needs exactly one container named {service!r}")
        return
    container = containers[0]
    cwhere = f"{where}: container {service}"
    env = effective_env(container, definitions, cwhere)
    executable = f"sous-{service}"
    command = list(container.get("command") or []) + list(container.get("args") or [])
    if command[:2] != [executable, "serve"]:
        problem(cwhere, f"runs {command}, expected [{executable!r}, 'serve', ...]")
    if executable not in products:
        problem(cwhere, f"{executable} is not among the executables deploy/Dockerfile stages ({', '.join(sorted(products))})")
    if image_name(container.get("image")) != "sous":
        problem(cwhere, f"image {container.get('image')!r} is not the Sous image (sous:TAG)")
    check_security(cwhere, pod, container, uid)

    # Ports: what the process binds, what the container declares, what the Service forwards.
    expected_binds = {f"SOUS_{service.upper()}_BIND": port, f"SOUS_{service.upper()}_EVENTS_BIND": port + 1}
    for variable, wanted in expected_binds.items():
        value = env.get(variable, (None,))[0]
        if value != f"tcp://0.0.0.0:{wanted}":
            problem(cwhere, f"{variable} is {value!r}, expected 'tcp://0.0.0.0:{wanted}'")
    for variable in env:
        if re.fullmatch(r"SOUS_[A-Z]+_(EVENTS_)?BIND", variable) and variable not in expected_binds:
            problem(cwhere, f"{variable}: another service's bind address")
    container_ports = {p.get("name"): p.get("containerPort") for p in container.get("ports") or []}
    if container_ports != {"requests": port, "events": port + 1}:
        problem(cwhere, f"containerPorts are {container_ports}, expected requests {port} and events {port + 1} (the BIND ports)")

    replicas = spec.get("replicas", 1)
    if not isinstance(replicas, int) or replicas < 2:
        problem(where, f"replicas is {replicas}, expected 2 or more")
    headless_name = spec.get("serviceName")
    headless = index.get(("Service", headless_name))
    if not headless:
        problem(where, f"serviceName {headless_name!r} names no Service in the manifests")
    else:
        hwhere = f"{headless[0]}: Service/{headless_name}"
        hspec = headless[1].get("spec") or {}
        if hspec.get("clusterIP") != "None":
            problem(hwhere, "is not headless (clusterIP: None): each replica needs an address of its own")
        if hspec.get("publishNotReadyAddresses") is not True:
            problem(hwhere, "publishNotReadyAddresses is not true: replicas starting together would not find each other")
        if not matches(hspec.get("selector"), labels):
            problem(hwhere, f"selector does not select StatefulSet/{service}'s pods")
        for (kind, other), (_, doc) in index.items():
            other_labels = ((((doc.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels")) or {}
            if kind == "StatefulSet" and other != service and matches(hspec.get("selector"), other_labels):
                problem(hwhere, f"selector also selects StatefulSet/{other}'s pods")
        service_ports = {p.get("name"): p for p in hspec.get("ports") or []}
        for name, wanted in (("requests", port), ("events", port + 1)):
            entry = service_ports.get(name)
            if not entry:
                problem(hwhere, f"no port named {name!r} ({wanted})")
            elif entry.get("port") != wanted or entry.get("targetPort", wanted) not in (name, wanted):
                problem(hwhere, f"port {name} is {entry.get('port')} -> {entry.get('targetPort')}, expected {wanted} -> {name}")
        unnamed = [p.get("port") for p in hspec.get("ports") or [] if p.get("name") not in ("requests", "events")]
        if unnamed:
            problem(hwhere, f"ports {unnamed} are not named requests or events")

    # Every process knows every replica of every service.
    for variable, wanted in expected_lists.items():
        value = env.get(variable, (None,))[0]
        if value is None:
            problem(cwhere, f"{variable} is not set: it must list {wanted}")
            continue
        listed = [part.strip() for part in value.split(",") if part.strip()]
        missing = [e for e in wanted.split(",") if e not in listed]
        extra = [e for e in listed if e not in wanted.split(",")]
        if missing or extra or len(listed) != len(set(listed)):
            details = "; ".join(
                part
                for part in (
                    f"missing {', '.join(missing)}" if missing else "",
                    f"no such pod {', '.join(extra)}" if extra else "",
                    "listed twice" if len(listed) != len(set(listed)) else "",
                )
                if part
            )
            problem(where_set(cwhere, env[variable][1]), f"{variable}: {details} (the pods are {wanted})")

    for variable in sorted(env):
        if variable.startswith("SOUS_") and variable not in documented:
            problem(where_set(cwhere, env[variable][1]), f"{variable} is not in README.md's configuration table")
    database = env.get("SOUS_DATABASE_URL") or env.get(f"SOUS_{service.upper()}_DATABASE_URL")
    if not database:
        problem(cwhere, "SOUS_DATABASE_URL is not set: the replicas would each keep a SQLite file of their own")
    elif database[0] is not None:
        problem(cwhere, f"SOUS_DATABASE_URL is written in the manifests ({database[1]}); take it from Secret {secrets_module.DATABASE_SECRET}")

    # Keys: the Secret's files copied (mode 0600) into SOUS_DATA_DIR, public keys in SOUS_KEYS_DIR.
    data_dir = env.get("SOUS_DATA_DIR", (None,))[0]
    keys_dir = env.get("SOUS_KEYS_DIR", (None,))[0]
    data_mount, data_volume = mount_at(container, pod, data_dir or "")
    if not data_dir or not data_mount:
        problem(cwhere, f"SOUS_DATA_DIR ({data_dir!r}) is not a mounted volume")
    keys_mount, keys_volume = mount_at(container, pod, keys_dir or "")
    if not keys_dir or not keys_mount:
        problem(cwhere, f"SOUS_KEYS_DIR ({keys_dir!r}) is not a mounted volume")
    elif (keys_volume or {}).get("configMap", {}).get("name") != secrets_module.PUBLIC_KEYS_CONFIGMAP:
        problem(cwhere, f"SOUS_KEYS_DIR is not ConfigMap {secrets_module.PUBLIC_KEYS_CONFIGMAP}")
    elif keys_mount.get("readOnly") is not True:
        problem(cwhere, "SOUS_KEYS_DIR is not mounted readOnly")
    check_key_copy(where, pod, service, data_volume, uid, secrets_module)

    probes = {name: container.get(name) for name in ("startupProbe", "readinessProbe", "livenessProbe")}
    for name in ("readinessProbe", "livenessProbe"):
        if not probes[name]:
            problem(cwhere, f"no {name}")
    for name, probe in probes.items():
        if not probe:
            continue
        probe_command = (probe.get("exec") or {}).get("command") or []
        if probe_command[:2] != [executable, "check"]:
            problem(cwhere, f"{name} runs {probe_command}, expected [{executable!r}, 'check', ...]")
            continue
        endpoint = option(probe_command, "--endpoint")
        if endpoint is not None and endpoint not in {f"tcp://{host}:{port}" for host in LOOPBACK}:
            problem(cwhere, f"{name} checks {endpoint}, not this pod's own tcp://127.0.0.1:{port}")
        timeout_ms = option(probe_command, "--timeout-ms")
        if timeout_ms is not None and not str(timeout_ms).isdigit():
            problem(cwhere, f"{name}: --timeout-ms {timeout_ms!r} is not a number of milliseconds")
        elif timeout_ms is not None and int(timeout_ms) >= 1000 * probe.get("timeoutSeconds", 1):
            problem(cwhere, f"{name}: --timeout-ms {timeout_ms} is not below timeoutSeconds {probe.get('timeoutSeconds', 1)}")


def check_key_copy(where, pod, service, data_volume, uid, secrets_module):
    """The init container copying Secret sous-<service>-keys into SOUS_DATA_DIR, mode 0600."""
    secret_name = secrets_module.key_secret_name(service)
    files = secrets_module.key_files(service)
    if data_volume is None:
        return
    if "emptyDir" not in data_volume:
        problem(where, f"SOUS_DATA_DIR's volume {data_volume.get('name')!r} is not an emptyDir the key is copied into")
        return
    secret_volumes = [v for v in pod.get("volumes") or [] if (v.get("secret") or {}).get("secretName") == secret_name]
    if len(secret_volumes) != 1:
        problem(where, f"no volume of Secret {secret_name}")
        return
    secret_volume = secret_volumes[0]
    if secret_volume["secret"].get("defaultMode") != 0o400:
        problem(where, f"volume {secret_volume['name']}: defaultMode is not 0400")
    copiers = [
        init
        for init in pod.get("initContainers") or []
        if any(mount.get("name") == secret_volume["name"] for mount in init.get("volumeMounts") or [])
    ]
    if not copiers:
        problem(where, f"no init container copies {', '.join(files)} from Secret {secret_name} into SOUS_DATA_DIR")
    for init in copiers:
        iwhere = f"{where}: initContainer {init.get('name')}"
        check_security(iwhere, pod, init, uid)
        if image_name(init.get("image")) != "sous":
            problem(iwhere, f"image {init.get('image')!r} is not the Sous image")
        secret_mount = next(m for m in init.get("volumeMounts") or [] if m.get("name") == secret_volume["name"])
        data_mount = next((m for m in init.get("volumeMounts") or [] if m.get("name") == data_volume.get("name")), None)
        if not data_mount:
            problem(iwhere, f"does not mount SOUS_DATA_DIR's volume {data_volume.get('name')!r}")
            continue
        # install -m 0600 -t DATA SECRET/FILE...: each file the service reads, only its owner may read.
        command = list(init.get("command") or []) + list(init.get("args") or [])
        wanted = [f"{secret_mount['mountPath'].rstrip('/')}/{name}" for name in files]
        if command[:5] != ["install", "-m", "0600", "-t", data_mount["mountPath"]] or sorted(command[5:]) != sorted(wanted):
            problem(iwhere, f"runs {command}, expected install -m 0600 -t {data_mount['mountPath']} {' '.join(wanted)}")


def check_postgres(index, secrets_module, total_replicas, per_replica):
    """The in-cluster server, when the manifests have one (image sous-postgres, built by
    deploy/postgres.Dockerfile): the URL make-secrets.py writes must reach it. Returns whether
    there is one."""

    def pod_of(doc):
        return ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}

    servers = [
        (name, file, doc)
        for (kind, name), (file, doc) in index.items()
        if kind == "StatefulSet" and any(image_name(c.get("image")) == "sous-postgres" for c in pod_of(doc).get("containers") or [])
    ]
    if not servers:
        return False
    dockerfile, entrypoint = ROOT / "deploy/postgres.Dockerfile", ROOT / "deploy/postgres-entrypoint.sh"
    if not dockerfile.is_file() or not entrypoint.is_file():
        problem("postgres.yaml", "runs image sous-postgres, but deploy/postgres.Dockerfile or deploy/postgres-entrypoint.sh is missing")
        return True
    script = entrypoint.read_text()
    image_pgdata = re.search(r"\bPGDATA=(\S+)", dockerfile.read_text())
    for found, wanted in ((re.search(r"CREATE ROLE (\w+)", script), secrets_module.DATABASE_USER), (re.search(r"CREATE DATABASE (\w+)", script), secrets_module.DATABASE_NAME)):
        if not found or found.group(1) != wanted:
            problem("deploy/postgres-entrypoint.sh", f"does not create {wanted!r}, the user and database of make-secrets.py's SOUS_DATABASE_URL")
    for name, file, sts in servers:
        where = f"{file}: StatefulSet/{name}"
        spec = sts.get("spec") or {}
        pod = pod_of(sts)
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        container = next(c for c in pod.get("containers") or [] if image_name(c.get("image")) == "sous-postgres")
        cwhere = f"{where}: container {container.get('name')}"
        env = {item.get("name"): item for item in container.get("env") or []}
        for variable in sorted(set(env) - {"PGDATA", "PGPORT", "TZ"}):
            if variable not in script:
                problem(cwhere, f"{variable}: deploy/postgres-entrypoint.sh does not read it")
        ref = ((env.get("SOUS_POSTGRES_PASSWORD") or {}).get("valueFrom") or {}).get("secretKeyRef") or {}
        if (ref.get("name"), ref.get("key")) != (secrets_module.DATABASE_SECRET, "SOUS_POSTGRES_PASSWORD"):
            problem(cwhere, f"SOUS_POSTGRES_PASSWORD does not come from Secret {secrets_module.DATABASE_SECRET} key SOUS_POSTGRES_PASSWORD")
        pgdata = str((env.get("PGDATA") or {}).get("value") or (image_pgdata.group(1) if image_pgdata else ""))
        if image_pgdata and pgdata != image_pgdata.group(1):
            problem(cwhere, f"PGDATA {pgdata!r} is not the image's {image_pgdata.group(1)!r} (deploy/postgres.Dockerfile)")
        claims = [t.get("metadata", {}).get("name") for t in spec.get("volumeClaimTemplates") or []]
        mounts = {m.get("mountPath", "").rstrip("/"): m.get("name") for m in container.get("volumeMounts") or []}
        if not any(pgdata.startswith(path + "/") and volume in claims for path, volume in mounts.items()):
            problem(cwhere, f"PGDATA {pgdata!r} is not a subfolder of a volumeClaimTemplate's mount")
        if (container.get("securityContext") or {}).get("readOnlyRootFilesystem") is True and "/run/postgresql" not in mounts:
            problem(cwhere, "the root filesystem is read-only, but /run/postgresql (the server's socket and lock) is not a volume")
        # Runs as the image's user postgres: never root, never more than it has.
        context = container.get("securityContext") or {}
        if security(pod, container, "runAsUser") == 0 or context.get("runAsNonRoot") is False:
            problem(cwhere, "runs as root")
        if context.get("allowPrivilegeEscalation") is not False or context.get("readOnlyRootFilesystem") is not True:
            problem(cwhere, "needs allowPrivilegeEscalation: false and readOnlyRootFilesystem: true")
        for init in pod.get("initContainers") or []:
            added = set(((init.get("securityContext") or {}).get("capabilities") or {}).get("add") or [])
            dropped = ((init.get("securityContext") or {}).get("capabilities") or {}).get("drop") or []
            if security(pod, init, "runAsUser") == 0 and ("ALL" not in dropped or not added <= {"CHOWN", "FOWNER"}):
                problem(f"{where}: initContainer {init.get('name')}", "runs as root with more than CHOWN and FOWNER")
        if not container.get("readinessProbe"):
            problem(cwhere, "no readinessProbe")
        if secrets_module.DATABASE_PORT not in {p.get("containerPort") for p in container.get("ports") or []}:
            problem(cwhere, f"no containerPort {secrets_module.DATABASE_PORT}")
        service = index.get(("Service", secrets_module.DATABASE_HOST))
        if not service or not matches((service[1].get("spec") or {}).get("selector"), labels):
            problem(where, f"no Service {secrets_module.DATABASE_HOST!r} (the URL's host) selects its pods")
        elif secrets_module.DATABASE_PORT not in [p.get("port") for p in service[1]["spec"].get("ports") or []]:
            problem(f"{service[0]}: Service/{secrets_module.DATABASE_HOST}", f"does not serve port {secrets_module.DATABASE_PORT}")
        arguments = " ".join(str(a) for a in list(container.get("args") or []))
        found = re.search(r"max_connections=(\d+)", arguments)
        allowed = int(found.group(1)) if found else 100
        needed = per_replica * total_replicas + 3
        if allowed < needed:
            problem(cwhere, f"max_connections {allowed} < {needed}: {total_replicas} service replicas x {per_replica} connections + 3 reserved")
    return True


# --------------------------------------------------------------------------------------------
# make-secrets.py's output


def ed25519_public(seed):
    """RFC 8032's public key of a 32-byte seed, in plain Python (independent of the library
    make-secrets.py used)."""
    p = 2**255 - 19
    d = -121665 * pow(121666, p - 2, p) % p

    def add(P, Q):
        A, B = (P[1] - P[0]) * (Q[1] - Q[0]) % p, (P[1] + P[0]) * (Q[1] + Q[0]) % p
        C, D = 2 * P[3] * Q[3] * d % p, 2 * P[2] * Q[2] % p
        E, F, G, H = B - A, D - C, D + C, B + A
        return (E * F % p, G * H % p, F * G % p, E * H % p)

    y = 4 * pow(5, p - 2, p) % p
    x2 = (y * y - 1) * pow(d * y * y + 1, p - 2, p) % p
    x = pow(x2, (p + 3) // 8, p)
    if (x * x - x2) % p:
        x = x * pow(2, (p - 1) // 4, p) % p
    if x & 1:
        x = p - x
    point, result = (x, y, 1, x * y % p), (0, 1, 1, 0)
    digest = hashlib.sha512(seed).digest()
    scalar = (int.from_bytes(digest[:32], "little") & ((1 << 254) - 8)) | (1 << 254)
    while scalar:
        if scalar & 1:
            result = add(result, point)
        point = add(point, point)
        scalar >>= 1
    inverse = pow(result[2], p - 2, p)
    x, y = result[0] * inverse % p, result[1] * inverse % p
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def check_make_secrets(folder, secrets_module, namespace, postgres_in_cluster):
    """Runs make-secrets.py into a temporary folder and checks what it wrote. Returns a note."""
    try:
        import zmq
    except ImportError:
        problem("check.py", "pyzmq is missing (python3 -m pip install pyzmq): cannot check make-secrets.py's keys")
        return "make-secrets.py not checked"
    where = "make-secrets.py"
    with tempfile.TemporaryDirectory(prefix="sous-k8s-") as temporary:
        output = Path(temporary) / "secrets.yaml"
        run = subprocess.run([sys.executable, str(folder / "make-secrets.py"), str(output)], capture_output=True, text=True, timeout=120)
        if run.returncode == secrets_module.EXIT_NO_ED25519:
            return f"make-secrets.py skipped: {run.stderr.strip()}"
        if run.returncode != 0 or not output.is_file():
            problem(where, f"exited {run.returncode}: {(run.stderr.strip().splitlines() or [''])[-1]}")
            return "make-secrets.py failed"
        if stat.S_IMODE(output.stat().st_mode) & 0o077:
            problem(where, f"wrote {output.name} readable by others (mode {stat.S_IMODE(output.stat().st_mode):o})")
        written = output.read_bytes()
        again = subprocess.run([sys.executable, str(folder / "make-secrets.py"), str(output)], capture_output=True, text=True, timeout=120)
        if again.returncode == 0 or output.read_bytes() != written:
            problem(where, "run again without --force, it did not refuse to replace its output (the deployment's keys)")
        try:
            docs = [doc for doc in yaml.safe_load_all(output.read_text()) if doc is not None]
        except yaml.YAMLError as error:
            problem(where, f"its output does not parse: {yaml_error(error)}")
            return "make-secrets.py failed"

    objects = {}
    for doc in docs:
        kind, name = doc.get("kind"), (doc.get("metadata") or {}).get("name")
        if (doc.get("metadata") or {}).get("namespace") != namespace:
            problem(where, f"{kind}/{name} is not in namespace {namespace}")
        data = doc.get("data") or {}
        if kind == "Secret":
            try:
                data = {key: base64.b64decode(value, validate=True).decode() for key, value in data.items()}
            except ValueError:
                problem(where, f"Secret/{name}: data is not base64 of UTF-8 text")
                continue
            data.update(doc.get("stringData") or {})
        objects[(kind, name)] = data
    wanted = {("Secret", name): keys for name, keys in secrets_module.SECRET_KEYS.items()}
    wanted.update({("ConfigMap", name): keys for name, keys in secrets_module.CONFIGMAP_KEYS.items()})
    for key in sorted(set(objects) | set(wanted)):
        if key not in objects:
            problem(where, f"wrote no {key[0]}/{key[1]}")
        elif key not in wanted:
            problem(where, f"wrote {key[0]}/{key[1]}, which SECRET_KEYS/CONFIGMAP_KEYS do not name")
        elif sorted(objects[key]) != sorted(wanted[key]):
            problem(where, f"{key[0]}/{key[1]} has keys {sorted(objects[key])}, expected {sorted(wanted[key])}")

    public = objects.get(("ConfigMap", secrets_module.PUBLIC_KEYS_CONFIGMAP), {})
    seen = set()
    for service in secrets_module.SERVICES:
        files = objects.get(("Secret", secrets_module.key_secret_name(service)), {})
        secret = (files.get(f"{service}.curve") or "").strip()
        published = (public.get(f"{service}.pub") or "").strip()
        if len(secret) != 40 or any(c not in Z85 for c in secret):
            problem(where, f"{service}.curve is not 40 Z85 characters")
            continue
        if zmq.curve_public(secret.encode()).decode() != published:
            problem(where, f"{service}.pub is not the public key of {service}.curve (zmq.curve_public)")
        if published in seen:
            problem(where, f"{service}.pub is another service's key too")
        seen.add(published)
    session = (objects.get(("Secret", secrets_module.key_secret_name("planner")), {}).get("sessions.key") or "").strip()
    session_public = (public.get("sessions.pub") or "").strip()
    if not re.fullmatch(r"[0-9a-f]{128}", session):
        problem(where, "sessions.key is not 128 lowercase hex digits")
    elif not re.fullmatch(r"[0-9a-f]{64}", session_public) or session[64:] != session_public:
        problem(where, "sessions.pub is not the last 64 hex digits of sessions.key")
    elif ed25519_public(bytes.fromhex(session[:64])).hex() != session_public:
        problem(where, "sessions.key's public half is not the Ed25519 public key of its seed")

    database = objects.get(("Secret", secrets_module.DATABASE_SECRET), {})
    url = urllib.parse.urlsplit(database.get("SOUS_DATABASE_URL", ""))
    if postgres_in_cluster:
        try:
            port = url.port
        except ValueError:
            port = None
        expected = (secrets_module.DATABASE_USER, secrets_module.DATABASE_HOST, secrets_module.DATABASE_PORT, "/" + secrets_module.DATABASE_NAME)
        if url.scheme != "postgres" or (url.username, url.hostname, port, url.path) != expected:
            problem(where, "SOUS_DATABASE_URL is not postgres://%s:PASSWORD@%s:%d/%s (the in-cluster server)" % (expected[0], expected[1], expected[2], expected[3][1:]))
        elif url.password != database.get("SOUS_POSTGRES_PASSWORD") or len(url.password or "") < 32:
            problem(where, "SOUS_DATABASE_URL's password is not SOUS_POSTGRES_PASSWORD (or is short)")
    return "make-secrets.py output valid"


def check_kubectl(folder, namespace, expected_objects):
    kubectl = shutil.which("kubectl")
    if not kubectl:
        return "kubectl not installed: `kubectl kustomize` skipped"
    try:
        run = subprocess.run([kubectl, "kustomize", str(folder)], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        problem("kubectl kustomize", "did not finish in 120 s")
        return "kubectl kustomize failed"
    if run.returncode != 0:
        message = (run.stderr.strip().splitlines() or ["failed"])[0]
        problem("kubectl kustomize", message.split(' err="', 1)[-1].rstrip('"'))
        return "kubectl kustomize failed"
    docs = [doc for doc in yaml.safe_load_all(run.stdout) if doc]
    elsewhere = [f"{doc.get('kind')}/{doc['metadata'].get('name')}" for doc in docs
                 if doc.get("kind") != "Namespace" and doc.get("metadata", {}).get("namespace") != namespace]
    if elsewhere:
        problem("kubectl kustomize", f"{len(elsewhere)} objects are not in namespace {namespace} ({', '.join(elsewhere[:3])}, ...)")
    if len(docs) != expected_objects:
        problem("kubectl kustomize", f"built {len(docs)} objects, expected {expected_objects}")
    return f"kubectl kustomize ok ({len(docs)} objects)"


# --------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0], epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, default=HERE, help="the manifests folder (default: this script's)")
    parser.add_argument("--no-kubectl", action="store_true", help="skip `kubectl kustomize` even if kubectl is installed")
    options = parser.parse_args()
    folder = options.dir.resolve()

    services = read_services()
    documented = documented_variables(services)
    uid, products = dockerfile_facts()
    per_replica = connections_per_replica()
    try:
        secrets_module = load_make_secrets(folder)
    except Exception as error:  # noqa: BLE001 - any failure to load it is one problem line
        print(f"check.py: make-secrets.py: cannot be imported: {error}", file=sys.stderr)
        return 2
    if set(services) != set(secrets_module.SERVICES):
        problem("make-secrets.py", f"SERVICES {secrets_module.SERVICES} are not SousService's {tuple(services)}")
    namespace = secrets_module.NAMESPACE

    objects, generated = load_manifests(folder, namespace)
    index = index_objects(objects, namespace)
    if ("Namespace", namespace) not in index:
        problem("manifests", f"no Namespace {namespace!r}")
    definitions = Definitions(index, generated, secrets_module)

    # The endpoint lists the pods that exist imply: replicas x headless Service x port.
    expected_lists = {}
    replicas_total = 0
    for service, port in services.items():
        if ("StatefulSet", service) not in index:
            continue  # reported once, below; its lists cannot be known
        spec = index[("StatefulSet", service)][1].get("spec") or {}
        replicas = spec.get("replicas", 1)
        replicas = replicas if isinstance(replicas, int) else 0
        replicas_total += replicas
        headless = spec.get("serviceName", service)
        for suffix, number in (("ENDPOINT", port), ("EVENTS", port + 1)):
            expected_lists[f"SOUS_{service.upper()}_{suffix}"] = ",".join(f"tcp://{service}-{i}.{headless}:{number}" for i in range(replicas))

    facts = (uid, products, documented, secrets_module)
    for service, port in services.items():
        check_service(service, port, index, definitions, facts, expected_lists)

    # References and SOUS_* names in every workload (the ones above and any other).
    for (kind, name), (file, doc) in index.items():
        if kind != "StatefulSet":
            continue
        pod = ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}
        check_volumes(pod, definitions, f"{file}: StatefulSet/{name}")
        for container in (pod.get("initContainers") or []) + (pod.get("containers") or []):
            where = f"{file}: StatefulSet/{name}: container {container.get('name')}"
            env = effective_env(container, definitions, where)
            if name not in services and image_name(container.get("image")) == "sous":
                for variable in sorted(env):
                    if variable.startswith("SOUS_") and variable not in documented:
                        problem(where_set(where, env[variable][1]), f"{variable} is not in README.md's configuration table")
            command = list(container.get("command") or [])
            if image_name(container.get("image")) == "sous" and command and command[0].startswith("sous") and command[0] not in products:
                problem(where, f"{command[0]} is not among the executables deploy/Dockerfile stages")
    for (kind, name), (file, doc) in index.items():
        if kind == "PodDisruptionBudget":
            selector = ((doc.get("spec") or {}).get("selector") or {}).get("matchLabels")
            if not any(
                matches(selector, (((other.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {})
                for (other_kind, _), (_, other) in index.items()
                if other_kind == "StatefulSet"
            ):
                problem(f"{file}: PodDisruptionBudget/{name}", "selects no StatefulSet's pods")
    shared = dict(generated)
    shared.update({name: doc.get("data") or {} for (kind, name), (_, doc) in index.items() if kind == "ConfigMap"})
    for name, data in shared.items():
        for variable in data:
            if variable.startswith("SOUS_") and variable not in documented:
                problem(ORIGINS.get(name, f"ConfigMap {name}"), f"{variable} is not in README.md's configuration table")

    in_cluster = check_postgres(index, secrets_module, replicas_total, per_replica)
    notes = [check_make_secrets(folder, secrets_module, namespace, in_cluster)]
    if not options.no_kubectl:
        notes.append(check_kubectl(folder, namespace, len(objects) + len(generated)))

    where_folder = os.path.relpath(folder, Path.cwd()) if str(folder).startswith(str(Path.cwd())) else str(folder)
    if problems:
        for line in problems:
            print(f"check.py: {line}", file=sys.stderr)
        print(f"check.py: {where_folder}: {len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
        return 1
    replicas = ", ".join(f"{s} x{(index[('StatefulSet', s)][1]['spec'].get('replicas', 1))}" for s in services)
    print(f"check.py: {where_folder} ok: {len(index)} objects + {len(generated)} generated ConfigMap; {replicas}; "
          f"PostgreSQL {'in the cluster' if in_cluster else 'external'}")
    for note in notes:
        print(f"check.py: {note}")
    return 0


if __name__ == "__main__":
    try:
        import yaml
    except ImportError:
        print("check.py: PyYAML is missing: python3 -m pip install pyyaml", file=sys.stderr)
        sys.exit(2)
    sys.exit(main())
