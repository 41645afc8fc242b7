"""The front door to a Ray cluster, the same for every pipeline that runs on one (RLlib, expert iteration).

:func:`cluster_address` says which cluster a run joins: the config's ``address``
(``--address``), else ``RAY_ADDRESS`` (Ray's own variable, honoured as Ray documents it);
None means the run stays on this machine. :func:`join` checks that cluster before
``ray.init`` joins it (:func:`check_reachable`), because ``ray.init`` retries an address
where nothing answers for minutes, waits about 40 s on a port that accepts TCP but is not
Ray before it says so, and reports a cluster that refuses the driver's token as a traceback
ending in ``ConnectionError``. The address ("auto" resolved as Ray resolves it) must name a
host that resolves, its port must accept a connection and answer as a gRPC server does
(HTTP/2) within :data:`CONNECT_TIMEOUT_S` each, and Ray's GCS there must accept the
driver's authentication. Each failure is one line naming the address, where it came from,
the address Ray connects to for it where that differs (Ray reads ``127.0.0.1`` as this
machine's network address) and what to check.

:func:`check_local_processes` is the local counterpart: a run that asks for more worker
processes than this process may use CPUs is refused unless it says ``oversubscribe``.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

from training.framework.schema import ConfigError

#: Seconds the cluster's GCS port has to accept a TCP connection, and then to answer as a gRPC server,
#: before the address is reported unreachable or not Ray's (``ray.init`` itself retries for minutes).
CONNECT_TIMEOUT_S = 5.0

#: Ray's token authentication: the mode variable, and where a driver finds the token (ray.io's
#: "Token authentication" page).
AUTH_MODE_VARIABLE = "RAY_AUTH_MODE"
TOKEN_SOURCES = "RAY_AUTH_TOKEN, a file named by RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token"

#: What an HTTP/2 client sends first (RFC 9113, section 3.4): the connection preface and an empty
#: SETTINGS frame. A gRPC server, Ray's GCS among them, answers with a SETTINGS frame of its own.
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
HTTP2_SETTINGS = 4  #: the SETTINGS frame's type, the fourth byte of its nine-byte header


def cluster_address(address: str | None) -> tuple[str, str] | None:
    """The cluster to join and where its address came from: the config's ``address`` (or
    ``--address``), else ``RAY_ADDRESS``; None: the run stays on this machine."""
    if address:
        return address, "--address or the config's address"
    if os.environ.get("RAY_ADDRESS"):
        return os.environ["RAY_ADDRESS"], "RAY_ADDRESS"
    return None


def join(address: str, source: str) -> str:
    """Join the cluster at ``address`` (from ``source``, in words) once :func:`check_reachable` passes;
    the GCS address joined (``host:port``, also where it was given as "auto")."""
    import ray  # noqa: PLC0415 (Ray is an optional extra: pip install -e ".[ray]")

    ray.init(address=check_reachable(address, source))  # the cluster checked, not "auto" resolved anew
    return ray.get_runtime_context().gcs_address


def local_cpus() -> int:
    """The CPUs this process may run on (its affinity, where the system tells it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def check_local_processes(needed: float, reason: str, oversubscribe: bool, lower: str) -> None:
    """A ConfigError where a local run reserves ``needed`` CPUs (``reason``, in words) but this process
    may use fewer, unless it asks to ``oversubscribe``: its processes would share the cores at a
    fraction of their speed. ``lower`` names what to lower."""
    has = local_cpus()
    if needed > has and not oversubscribe:
        raise ConfigError(
            f"the run reserves {needed:g} CPUs ({reason}), but this machine has {has}; lower {lower}, "
            f"join a cluster (--address), or pass --oversubscribe to share {has} CPUs"
        )


def check_reachable(address: str, source: str) -> str:
    """The ``host:port`` that ``address`` (from ``source``, in words) names, once its host resolves,
    its port accepts a connection and answers as a gRPC server, and Ray's GCS there accepts this
    driver's authentication; else a ConfigError saying which of these failed and what to check."""
    from ray._private.services import canonicalize_bootstrap_address  # noqa: PLC0415 (Ray: optional, as above)

    try:  # "auto" as ray.init resolves it: RAY_ADDRESS, else the cluster last started on this machine
        bootstrap = canonicalize_bootstrap_address(address)
    except (ValueError, ConnectionError) as error:
        raise ConfigError(f"the Ray address {address} ({source}): {error}") from None
    host, _, port = bootstrap.rpartition(":")
    host = host.strip("[]")
    rewritten = "" if bootstrap == address else f"; Ray connects to {bootstrap} for it"
    if address.rpartition(":")[0] in ("127.0.0.1", "localhost") and host not in ("127.0.0.1", "localhost"):
        rewritten += f", as it reads {address.rpartition(':')[0]} as this machine's network address"
    given = f"the Ray address {address} ({source}{rewritten})"
    try:
        socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise ConfigError(f"{given}: the host {host!r} does not resolve ({error.strerror}); check its name") from None
    try:
        connection = socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S)
    except OSError as error:
        raise ConfigError(
            f"{given}: nothing accepts a connection on port {port} of {host} within {CONNECT_TIMEOUT_S:g} s "
            f"({error.strerror or error}); check that the cluster's head runs there (ray status --address "
            f"{bootstrap}), that {port} is its GCS port (ray start --head --port) and that no firewall closes it"
        ) from None
    with connection:
        if not answers_as_grpc(connection):
            raise ConfigError(
                f"{given}: port {port} of {host} accepts connections but does not answer as Ray's GCS (a gRPC "
                f"server) within {CONNECT_TIMEOUT_S:g} s; check that {port} is the cluster's GCS port "
                "(ray start --head --port), not another service's"
            )
    check_authentication(bootstrap, given)
    return bootstrap


def answers_as_grpc(connection: socket.socket) -> bool:
    """Whether the server on ``connection`` answers an HTTP/2 preface with a SETTINGS frame (as every
    gRPC server does) within :data:`CONNECT_TIMEOUT_S`."""
    try:
        connection.sendall(HTTP2_PREFACE)
        header = b""
        while len(header) < 9:
            received = connection.recv(9 - len(header))
            if not received:
                return False
            header += received
    except OSError:  # a timeout, or a reset
        return False
    return header[3] == HTTP2_SETTINGS


def check_authentication(bootstrap: str, given: str) -> None:
    """A ConfigError where the GCS at ``bootstrap`` refuses this driver's authentication, or where
    ``RAY_AUTH_MODE=token`` is set without a token (Ray then aborts the whole process)."""
    import ray  # noqa: PLC0415 (Ray: optional, as above)
    from ray._raylet import GcsClient  # noqa: PLC0415 (the client ray.init connects with; no public one)

    token_mode = os.environ.get(AUTH_MODE_VARIABLE, "").lower() == "token"
    token = f"the cluster's token (ray get-auth-token on its head) as {TOKEN_SOURCES}"
    if token_mode and not has_token():
        raise ConfigError(f"{given}: {AUTH_MODE_VARIABLE}=token is set but no token; give {token}")
    try:
        GcsClient(address=bootstrap)
    except ray.exceptions.AuthenticationError:
        if token_mode:
            raise ConfigError(f"{given}: the cluster refuses this driver's token; give {token}") from None
        raise ConfigError(
            f"{given}: the cluster refuses this driver, it uses token authentication; "
            f"set {AUTH_MODE_VARIABLE}=token and give {token}"
        ) from None
    except Exception as error:  # noqa: BLE001 (Ray raises its own RpcError types; ray.init reports the rest)
        raise ConfigError(
            f"{given}: port {bootstrap.rpartition(':')[2]} accepts connections but Ray's GCS does not answer there "
            f"({error}); check that it is the cluster's GCS port (ray start --head --port)"
        ) from None


def has_token() -> bool:
    """Whether this process has a Ray token where Ray looks for one (:data:`TOKEN_SOURCES`)."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH")
    return Path(path or "~/.ray/auth_token").expanduser().is_file()


def alive_nodes() -> list[dict[str, Any]]:
    """The cluster's live nodes, as ``ray.nodes()`` describes them."""
    import ray  # noqa: PLC0415 (Ray: joined or started already)

    return [node for node in ray.nodes() if node["Alive"]]


def node_resources(node: dict[str, Any]) -> dict[str, Any]:
    """One node of ``ray.nodes()`` as a run's metadata records it."""
    resources = node["Resources"]
    return {
        "node_id": node["NodeID"],
        "address": node["NodeManagerAddress"],
        "cpus": resources.get("CPU", 0.0),
        "gpus": resources.get("GPU", 0.0),
    }
