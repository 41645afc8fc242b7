"""Where expert iteration's units run: in this process, in local worker processes, or as Ray tasks.

Every runner takes a unit (:func:`~training.pipelines.expert_iteration.units.play_unit`) with
:meth:`submit` and hands back its result with :meth:`result`; :func:`run_units` keeps up to
:attr:`capacity` units in flight and takes their results in chunk order, so the learner sees
the same positions in the same order whichever runner played them.

* :class:`InProcess` (``workers: 1``): the unit runs when its result is asked for.
* :class:`LocalProcesses` (``workers: N``): a pool of ``N`` spawned processes (no forked copy of
  torch's threads); more than the CPUs this process may use are refused unless the run
  says ``oversubscribe`` (:func:`~training.framework.ray_cluster.check_local_processes`).
* :class:`RayTasks` (``--address``, ``RAY_ADDRESS`` or the config's ``address``): each unit a
  Ray task of one CPU anywhere in the cluster, the generation's plan put in the object store
  once. A task lost with its node is run again elsewhere (Ray's ``max_retries``), and since a
  unit's result depends on nothing but its plan and its chunk, the run ends with the same weights.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from training.framework.progress import Progress
from training.framework.ray_cluster import alive_nodes, check_local_processes, cluster_address, join, node_resources
from training.pipelines.expert_iteration.config import ExpertIterationConfig
from training.pipelines.expert_iteration.units import GenerationPlan, UnitResult, play_unit

#: times Ray runs a unit again after its worker or node died (Ray's ``max_retries`` for tasks)
UNIT_RETRIES = 5


class InProcess:
    """Units played in this process, one at a time."""

    capacity = 1
    where = "this process"
    in_process = True  #: the units' CPU time is the driver's

    def submit(self, plan: GenerationPlan, chunk: int) -> tuple[GenerationPlan, int]:
        return plan, chunk

    def result(self, handle: tuple[GenerationPlan, int]) -> UnitResult:
        return play_unit(*handle)

    def close(self) -> None:
        pass


class LocalProcesses:
    """Units played in ``workers`` local processes. A process that dies (killed, out of memory)
    ends the run with an error naming the unit, where a ``multiprocessing.Pool`` would wait for
    its result forever."""

    in_process = False

    def __init__(self, workers: int):
        self.capacity = 2 * workers  # a unit queued behind each running one: no process waits on the driver
        self.where = f"{workers} local processes"
        self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, plan: GenerationPlan, chunk: int):
        # The pool starts its processes as units are submitted. A terminal's Ctrl-C reaches the whole
        # process group, workers included: a worker killed mid-unit (or while it starts) would break
        # the pool. So each starts with SIGINT blocked (a process inherits the mask), and the driver
        # alone stops the run, after its generation; a signal to the driver meanwhile waits, not lost.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return plan.generation, chunk, self.pool.submit(play_unit, plan, chunk)
        except BrokenProcessPool:
            raise _died(plan.generation, chunk) from None
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def result(self, handle) -> UnitResult:
        generation, chunk, future = handle
        try:
            return future.result()
        except BrokenProcessPool:
            raise _died(generation, chunk) from None

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _died(generation: int, chunk: int) -> RuntimeError:
    return RuntimeError(
        f"a worker process died before unit {chunk} of generation {generation} was played (killed, or out of "
        "memory); the run's last checkpoint is intact: resume it with --resume RUN_DIR"
    )


class RayTasks:
    """Units played as Ray tasks on the cluster joined (:func:`~training.framework.ray_cluster.join`)."""

    in_process = False

    def __init__(self, address: str, source: str):
        import ray  # noqa: PLC0415 (Ray is an optional extra: pip install -e ".[ray]")

        self.ray = ray
        self.address = join(address, source)
        self.nodes = [node_resources(node) for node in alive_nodes()]
        cpus = sum(node["cpus"] for node in self.nodes)
        self.capacity = max(1, int(cpus)) * 2
        self.where = f"the Ray cluster at {self.address} ({len(self.nodes)} nodes, {cpus:g} CPUs)"
        self.task = ray.remote(num_cpus=1, max_retries=UNIT_RETRIES)(play_unit)
        self._plan: tuple[GenerationPlan, Any] | None = None

    def submit(self, plan: GenerationPlan, chunk: int):
        if self._plan is None or self._plan[0] is not plan:  # the plan in the object store once a generation
            self._plan = plan, self.ray.put(plan)
        return self.task.remote(self._plan[1], chunk)

    def result(self, handle) -> UnitResult:
        return self.ray.get(handle)

    def close(self) -> None:
        self._plan = None
        self.ray.shutdown()


def runner_for(config: ExpertIterationConfig):
    """The runner ``config`` asks for: a Ray cluster where an address is given, else ``workers``
    local processes (this process alone for one)."""
    cluster = cluster_address(config.address)
    if cluster is not None:
        return RayTasks(*cluster)
    check_local_processes(config.workers, f"{config.workers} workers", config.oversubscribe, "workers")
    return InProcess() if config.workers == 1 else LocalProcesses(config.workers)


def run_units(runner, plan: GenerationPlan, out_of_time: Callable[[], bool], progress: Progress) -> list[UnitResult]:
    """The generation's units, in chunk order. Once ``out_of_time()`` (and at least one unit is
    done) no further unit starts; those already started are finished and kept, so what is kept
    is always the first units of the generation."""
    results: list[UnitResult] = []
    pending: deque = deque()
    chunks = iter(range(plan.units))
    exhausted = False
    while True:
        while not exhausted and len(pending) < runner.capacity and not (results and out_of_time()):
            chunk = next(chunks, None)
            if chunk is None:
                exhausted = True
                break
            pending.append(runner.submit(plan, chunk))
        if not pending:
            return results
        result = runner.result(pending.popleft())
        results.append(result)
        progress.advance(result.games)
