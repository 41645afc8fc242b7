"""Where an RLlib run runs: which Ray it joins or starts, whether that Ray can hold the run, what it was.

:func:`start_ray` joins the cluster the config's ``address`` names, else the one
``RAY_ADDRESS`` names (Ray's own variable, honoured as Ray documents it), else starts a
new local Ray of its own with as many CPUs as the run reserves. That last one is asked
for explicitly (``address="local"``): a bare ``ray.init`` would join whatever cluster
last started on the machine and then refuse the CPU count. A local run that reserves
more CPUs than the machine has is refused as a cluster too small for it is
(:func:`check_local_cpus`), unless its config says ``oversubscribe`` (``--oversubscribe``).

A cluster is checked before ``ray.init`` joins it, as every pipeline's is
(:mod:`training.framework.ray_cluster`: one line naming the address and what to check).

:func:`check_resources` compares what the run reserves (CPUs and GPUs of each env runner
and learner) with the cluster, so that a run the cluster cannot hold is one line naming
the numbers rather than actors that wait forever for a CPU. :func:`cluster_facts` is what
``metadata.json`` records: Ray's version, the address, every node with its CPUs and
GPUs, and the node each env runner runs on.
"""

from __future__ import annotations

import math
from typing import Any

from training.framework.ray_cluster import check_local_processes, cluster_address, join, node_resources
from training.framework.schema import ConfigError
from training.pipelines.rllib.config import RLlibConfig

#: CPUs a local Ray declares beyond those the run reserves: the driver's own tasks.
DRIVER_CPUS = 1


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

    cluster = cluster_address(config.address)
    if cluster is not None:
        return join(*cluster)
    check_local_cpus(config)
    ray.init(address="local", num_cpus=math.ceil(reserved(config)["CPU"][0]) + DRIVER_CPUS, include_dashboard=False)
    return "local"


def check_local_cpus(config: RLlibConfig) -> None:
    """A ConfigError where a local run reserves more CPUs than this process may use (its affinity),
    unless the config asks to ``oversubscribe``: Ray would be told of CPUs that are not there, and
    the env runners would share the cores at a fraction of their speed."""
    needed, reason = reserved(config)["CPU"]
    check_local_processes(needed, reason, config.oversubscribe, "workers or the CPUs per worker or learner")


def check_resources(config: RLlibConfig, where: str, nodes: list[dict[str, Any]]) -> None:
    """A ConfigError naming the numbers if the cluster's ``nodes``
    (:func:`~training.framework.ray_cluster.alive_nodes`) cannot hold the run: too few CPUs or GPUs
    in all, or an env runner or learner larger than any node."""
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
