"""Where an RLlib run runs: which Ray it joins or starts, whether that Ray can hold the run, what it was.

:func:`start_ray` joins the cluster the config's ``address`` names, else the one
``RAY_ADDRESS`` names (Ray's own variable, honoured as Ray documents it), else starts a
new local Ray of its own with as many CPUs as the run reserves. That last one is asked
for explicitly (``address="local"``): a bare ``ray.init`` would join whatever cluster
last started on the machine and then refuse the CPU count. A local run that reserves
more CPUs than the machine has is refused as a cluster too small for it is
(:func:`check_local_cpus`), unless its config says ``oversubscribe`` (``--oversubscribe``).

A cluster is checked before ``ray.init`` joins it (:func:`check_reachable`), because
``ray.init`` retries an address where nothing answers for minutes and reports a cluster
that refuses the driver's token as a traceback ending in ``ConnectionError``: the address
("auto" resolved as Ray resolves it) must name a host that resolves, its port must accept
a connection within :data:`CONNECT_TIMEOUT_S`, and Ray's GCS there must accept the
driver's authentication. Each failure is one line naming the address, where it came from
and what to check.

:func:`check_resources` compares what the run reserves (CPUs and GPUs of each env runner
and learner) with the cluster, so that a run the cluster cannot hold is one line naming
the numbers rather than actors that wait forever for a CPU. :func:`cluster_facts` is what
``metadata.json`` records: Ray's version, the address, every node with its CPUs and
GPUs, and the node each env runner runs on.
"""

from __future__ import annotations

import math
import os
import socket
from pathlib import Path
from typing import Any

from training.framework.schema import ConfigError
from training.pipelines.rllib.config import RLlibConfig

#: CPUs a local Ray declares beyond those the run reserves: the driver's own tasks.
DRIVER_CPUS = 1

#: Seconds the cluster's GCS port has to accept a TCP connection before the address is reported
#: unreachable (``ray.init`` itself retries for minutes).
CONNECT_TIMEOUT_S = 5.0

#: Ray's token authentication: the mode variable, and where a driver finds the token (ray.io's
#: "Token authentication" page).
AUTH_MODE_VARIABLE = "RAY_AUTH_MODE"
TOKEN_SOURCES = "RAY_AUTH_TOKEN, a file named by RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token"


def cluster_address(config: RLlibConfig) -> str | None:
    """The cluster to join: the config's ``address``, else ``RAY_ADDRESS``; None: a new local Ray."""
    return config.address or os.environ.get("RAY_ADDRESS") or None


def reserved(config: RLlibConfig) -> dict[str, tuple[float, str]]:
    """The CPUs and GPUs the run reserves, each with where the count comes from: its env runners,
    its learner actors, and with ``learners: 0`` the driver's learner's GPUs (on the driver's machine)."""
    gpu_learners = config.learners or 1
    return {
        "CPU": (
            config.workers * config.cpus_per_worker + config.learners * config.cpus_per_learner,
            f"{config.workers} workers x {config.cpus_per_worker:g} + {config.learners} learners x "
            f"{config.cpus_per_learner:g}",
        ),
        "GPU": (
            config.workers * config.gpus_per_worker + gpu_learners * config.gpus_per_learner,
            f"{config.workers} workers x {config.gpus_per_worker:g} + {gpu_learners} learners x "
            f"{config.gpus_per_learner:g}",
        ),
    }


def start_ray(config: RLlibConfig) -> str:
    """Join or start Ray for ``config``; where it runs: the address of the cluster joined
    (``host:port``, also where it was given as "auto"), or "local"."""
    import ray  # noqa: PLC0415 (Ray is an optional extra: pip install -e ".[rllib]")

    address = cluster_address(config)
    if address:
        source = "--address or the config's address" if config.address else "RAY_ADDRESS"
        ray.init(address=check_reachable(address, source))  # the cluster checked, not "auto" resolved anew
        return ray.get_runtime_context().gcs_address
    check_local_cpus(config)
    ray.init(address="local", num_cpus=math.ceil(reserved(config)["CPU"][0]) + DRIVER_CPUS, include_dashboard=False)
    return "local"


def check_local_cpus(config: RLlibConfig) -> None:
    """A ConfigError where a local run reserves more CPUs than this process may use (its affinity),
    unless the config asks to ``oversubscribe``: Ray would be told of CPUs that are not there, and
    the env runners would share the cores at a fraction of their speed."""
    needed, reason = reserved(config)["CPU"]
    has = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if needed > has and not config.oversubscribe:
        raise ConfigError(
            f"the run reserves {needed:g} CPUs ({reason}), but this machine has {has}; lower workers or the "
            f"CPUs per worker or learner, join a cluster (--address), or pass --oversubscribe to share {has} CPUs"
        )


def check_reachable(address: str, source: str) -> str:
    """The ``host:port`` that ``address`` (from ``source``, in words) names, once its host resolves,
    its port accepts a connection and Ray's GCS there accepts this driver's authentication;
    else a ConfigError saying which of these failed and what to check."""
    from ray._private.services import canonicalize_bootstrap_address  # noqa: PLC0415 (Ray: optional, as above)

    try:  # "auto" as ray.init resolves it: RAY_ADDRESS, else the cluster last started on this machine
        bootstrap = canonicalize_bootstrap_address(address)
    except (ValueError, ConnectionError) as error:
        raise ConfigError(f"the Ray address {address} ({source}): {error}") from None
    given = f"the Ray address {address} ({source}{'' if bootstrap == address else ': ' + bootstrap})"
    host, _, port = bootstrap.rpartition(":")
    host = host.strip("[]")
    try:
        socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise ConfigError(f"{given}: the host {host!r} does not resolve ({error.strerror}); check its name") from None
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as error:
        raise ConfigError(
            f"{given}: nothing accepts a connection on port {port} of {host} within {CONNECT_TIMEOUT_S:g} s "
            f"({error.strerror or error}); check that the cluster's head runs there (ray status --address "
            f"{bootstrap}), that {port} is its GCS port (ray start --head --port) and that no firewall closes it"
        ) from None
    check_authentication(bootstrap, given)
    return bootstrap


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


def check_resources(config: RLlibConfig, where: str, nodes: list[dict[str, Any]]) -> None:
    """A ConfigError naming the numbers if the cluster's ``nodes`` (:func:`alive_nodes`) cannot
    hold the run: too few CPUs or GPUs in all, or an env runner or learner larger than any node."""
    for resource, (needed, reason) in reserved(config).items():
        has = sum(node["Resources"].get(resource, 0.0) for node in nodes)
        if needed > has:
            raise ConfigError(
                f"the run reserves {needed:g} {resource}s ({reason}), but the Ray cluster "
                f"({where}) has {has:g}; lower workers or the {resource}s per worker or learner, or add nodes"
            )
    bundles = {
        "an env runner": (config.workers, {"CPU": config.cpus_per_worker, "GPU": config.gpus_per_worker}),
        "a learner": (config.learners, {"CPU": config.cpus_per_learner, "GPU": config.gpus_per_learner}),
    }
    for name, (count, bundle) in bundles.items():
        if count and not any(all(node["Resources"].get(r, 0.0) >= n for r, n in bundle.items()) for node in nodes):
            raise ConfigError(
                f"{name} reserves {bundle['CPU']:g} CPUs and {bundle['GPU']:g} GPUs, but no node of the Ray "
                f"cluster ({where}) has that much: {[node_resources(node) for node in nodes]}"
            )


def alive_nodes() -> list[dict[str, Any]]:
    """The cluster's live nodes, as ``ray.nodes()`` describes them."""
    import ray  # noqa: PLC0415 (Ray: started by start_ray already)

    return [node for node in ray.nodes() if node["Alive"]]


def node_resources(node: dict[str, Any]) -> dict[str, Any]:
    """One node of ``ray.nodes()`` as metadata records it."""
    resources = node["Resources"]
    return {
        "node_id": node["NodeID"],
        "address": node["NodeManagerAddress"],
        "cpus": resources.get("CPU", 0.0),
        "gpus": resources.get("GPU", 0.0),
    }


def cluster_facts(where: str, nodes: list[dict[str, Any]], env_runner_nodes: list[str]) -> dict[str, Any]:
    """What ``metadata.json`` records of the Ray a session ran on (``env_runner_nodes``: the node id of each
    env runner, the driver's own first)."""
    import ray  # noqa: PLC0415 (Ray: started by start_ray already)

    described = [node_resources(node) for node in nodes]
    return {
        "version": ray.__version__,
        "address": where,
        "nodes": described,
        "cpus": sum(node["cpus"] for node in described),
        "gpus": sum(node["gpus"] for node in described),
        "env_runner_nodes": env_runner_nodes,
    }
