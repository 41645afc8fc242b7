"""Expert iteration on a Ray cluster: the units as Ray tasks on a real multi-node cluster
(``ray.cluster_utils.Cluster``: a head without CPUs and two worker nodes of one CPU each, every node
its own raylet and object store) learn the same weights and log as a local run, also when a worker
node dies in the middle of a generation; a wrong address is one line and exit 2 within 15 s.

Skipped when Ray is not installed (``pip install -e ".[ray]"``); ``make test`` runs it in the Ray venv.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')

from ray.cluster_utils import Cluster  # noqa: E402

from tests.expert_iteration_runs import generation_log, mixed_config, weights_digest  # noqa: E402
from training import train, train_rllib  # noqa: E402
from training.pipelines.expert_iteration.runners import RayTasks  # noqa: E402

QUIET = ["--no-eval", "--no-progress"]
RAY_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d [\d:,]+\s+WARNING ")
#: a dead node is noticed within seconds, not Ray's default half minute
FAST_HEALTH_CHECKS = {
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 500,
    "health_check_failure_threshold": 4,
}


@pytest.fixture
def cluster(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "_system_config": FAST_HEALTH_CHECKS})
    workers = [cluster.add_node(num_cpus=1) for _ in range(2)]
    cluster.wait_for_nodes()
    yield cluster, workers
    if ray.is_initialized():
        ray.shutdown()
    cluster.shutdown()


@pytest.fixture
def local_run(tmp_path):
    """The mixed config's run on this machine, one worker: (config file, its run folder)."""
    config = mixed_config(tmp_path)
    run = tmp_path / "local"
    assert train.main(["--config", str(config), "--run-dir", str(run), "--workers", "1", *QUIET]) == 0
    return config, run


def test_a_run_on_a_two_node_cluster_learns_what_a_local_run_does(cluster, local_run, tmp_path):
    config, local = local_run
    run = tmp_path / "cluster"
    assert train.main(["--config", str(config), "--run-dir", str(run), "--address", cluster[0].address, *QUIET]) == 0
    assert weights_digest(run) == weights_digest(local)
    assert generation_log(run) == generation_log(local)
    assert json.loads((run / "metadata.json").read_text())["units_ran_in"].startswith("the Ray cluster at ")


def test_a_worker_node_killed_mid_generation_changes_nothing(cluster, local_run, tmp_path, monkeypatch):
    """In the second generation, once its first unit is back (the others in flight on both nodes), the
    node the driver is not attached to dies with every process on it; Ray runs its units again on the
    other node."""
    head, workers = cluster
    config, local = local_run
    killed = []
    original = RayTasks.result

    def result_then_kill(self, handle):
        unit = original(self, handle)
        if not killed and self._plan[0].generation == 1:
            driver = ray._private.worker.global_worker.node._raylet_socket_name
            victim = next(node for node in workers if node._raylet_socket_name != driver)
            head.remove_node(victim, allow_graceful=False)
            killed.append(victim)
        return unit

    monkeypatch.setattr(RayTasks, "result", result_then_kill)
    run = tmp_path / "cluster"
    assert train.main(["--config", str(config), "--run-dir", str(run), "--address", head.address, *QUIET]) == 0
    assert killed
    assert weights_digest(run) == weights_digest(local)
    assert generation_log(run) == generation_log(local)


@pytest.fixture
def not_ray():
    """A port that accepts connections and says nothing, as a service that is not Ray does to gRPC (on
    every interface: Ray connects to this machine's network address for 127.0.0.1)."""
    server = socket.socket()
    server.bind(("0.0.0.0", 0))
    server.listen()
    accepted = []
    threading.Thread(target=lambda: accepted.extend(server.accept() for _ in range(8)), daemon=True).start()
    yield server.getsockname()[1]
    server.close()


@pytest.mark.parametrize("command", [train, train_rllib])
def test_a_port_that_is_not_ray_is_one_line_within_15_seconds(command, not_ray, tmp_path, capsys, monkeypatch):
    """It was 47 s of silence for train_rllib.py (Ray waits on the port for its GCS), then the message."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    address = f"127.0.0.1:{not_ray}"
    started = time.monotonic()
    assert command.main(["--env", "invers", "--address", address, "--run-dir", str(tmp_path / "run"), *QUIET]) == 2
    assert time.monotonic() - started < 15
    # RLlib's first import in a process logs warnings of its own (dated, "WARNING"): not this command's output
    (line,) = [line for line in capsys.readouterr().err.splitlines() if not RAY_LOG_LINE.match(line)]
    assert line.startswith(f"error: the Ray address {address} (--address or the config's address")
    assert "accepts connections but does not answer as Ray's GCS (a gRPC server) within 5 s" in line
    assert not (tmp_path / "run").exists() and not ray.is_initialized()


def test_an_address_ray_rewrites_says_so(tmp_path, capsys, monkeypatch):
    """Ray reads 127.0.0.1 as this machine's network address: the message says which address it tried."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = ["--env", "invers", "--address", f"127.0.0.1:{port}", "--run-dir", str(tmp_path / "run"), *QUIET]
    assert train.main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    from ray._private.services import canonicalize_bootstrap_address  # noqa: PLC0415 (beside its one use)

    rewritten = canonicalize_bootstrap_address(f"127.0.0.1:{port}")
    said = f"Ray connects to {rewritten} for it, as it reads 127.0.0.1 as this machine's network address"
    assert (said in line) == (rewritten != f"127.0.0.1:{port}")
    assert "nothing accepts a connection on port" in line


def test_a_run_set_trains_its_seeds_as_ray_tasks_and_matches_one_trained_here(cluster, tmp_path):
    """``train.py --seeds ... --address``: each seed's run is a Ray task on some node, whose run
    folder comes back to the driver; the same seed gives the same network as a run trained here."""
    from tests.test_turn_value import tiny_config  # noqa: PLC0415 (a helper of the test-extra suite)

    head, _ = cluster
    config = tiny_config(tmp_path, "six_hundred")
    run_set = tmp_path / "set"
    assert (
        train.main(["--config", str(config), "--seeds", "5", "6", "--address", head.address, "--run-dir", str(run_set)])
        == 0
    )
    here = tmp_path / "here"
    assert (
        train.main(["--config", str(config), "--seed", "6", "--run-dir", str(here), "--no-eval", "--no-progress"]) == 0
    )
    assert (run_set / "seed6" / "value.pt").read_bytes() == (here / "value.pt").read_bytes()
    assert "| seed 5 |" in (run_set / "report.md").read_text() and (run_set / "seed5.log").is_file()
