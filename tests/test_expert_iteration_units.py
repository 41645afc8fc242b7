"""Expert iteration's units: a unit's positions depend on its plan and its chunk alone, so a run
learns the same weights with one worker or two (the Ray cluster's runs: tests/test_expert_iteration_cluster.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.expert_iteration_runs import MIXED, generation_log, mixed_config, weights_digest
from training import train
from training.framework.config import config_from_dict
from training.framework.ray_cluster import local_cpus
from training.pipelines.expert_iteration.config import ExpertIterationConfig
from training.pipelines.expert_iteration.learner import ExpertIteration
from training.pipelines.expert_iteration.runners import LocalProcesses
from training.pipelines.expert_iteration.units import plan_generation, play_unit

QUIET = ["--no-eval", "--no-progress"]
ROOT = Path(__file__).resolve().parents[1]


def test_a_run_learns_the_same_weights_and_log_with_one_worker_or_two(tmp_path):
    config = str(mixed_config(tmp_path))
    runs = {workers: tmp_path / f"workers{workers}" for workers in (1, 2)}
    for workers, run in runs.items():
        argv = ["--config", config, "--run-dir", str(run), "--workers", str(workers), "--oversubscribe", *QUIET]
        assert train.main(argv) == 0
    assert weights_digest(runs[1]) == weights_digest(runs[2])
    assert generation_log(runs[1]) == generation_log(runs[2])
    assert [entry[3] for entry in generation_log(runs[1])] == ["3"] * 3  # 6 games in units of 2


def same_unit(a, b) -> bool:
    return (
        all(np.array_equal(getattr(a, column), getattr(b, column)) for column in ("observations", "masks", "policies"))
        and np.array_equal(a.values, b.values)
        and a.results == b.results
        and a.games == b.games
    )


def test_a_unit_gives_the_same_positions_whatever_this_process_ran_before(tmp_path):
    """The process keeps agents between units; their generators are reseeded from the unit's
    (seed, generation, chunk), so the order units run in changes nothing."""
    config = config_from_dict(ExpertIterationConfig, MIXED)
    trainer = ExpertIteration(config, tmp_path)
    try:
        plan = plan_generation(config, 0, trainer.stage, trainer.policy, [])
        forwards = [play_unit(plan, chunk) for chunk in range(plan.units)]
        backwards = [play_unit(plan, chunk) for chunk in reversed(range(plan.units))][::-1]
        assert all(same_unit(a, b) for a, b in zip(forwards, backwards, strict=True))
        assert not same_unit(forwards[0], forwards[1])  # chunks are other games
        other = plan_generation(config, 1, trainer.stage, trainer.policy, [])
        assert not same_unit(play_unit(other, 0), forwards[0])  # and so are other generations'
    finally:
        trainer.close()


def test_more_local_workers_than_cpus_are_refused_unless_oversubscribed(tmp_path, capsys):
    workers = local_cpus() + 1
    argv = ["--config", str(mixed_config(tmp_path)), "--run-dir", str(tmp_path / "run"), "--workers", str(workers)]
    assert train.main([*argv, *QUIET]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        f"error: the run reserves {workers} CPUs ({workers} workers), but this machine has {local_cpus()}; lower "
        f"workers, join a cluster (--address), or pass --oversubscribe to share {local_cpus()} CPUs"
    )
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("option", ["--workers 0", "--games-per-unit 0"])
def test_a_non_positive_worker_or_unit_count_is_one_line(tmp_path, capsys, option):
    flag, value = option.split()
    argv = ["--config", str(mixed_config(tmp_path)), "--run-dir", str(tmp_path / "run"), flag, value, *QUIET]
    assert train.main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == f"error: {flag} must be positive, got 0"


def test_ctrl_c_to_the_whole_process_group_stops_a_run_with_workers_and_saves_it(tmp_path):
    """A terminal's Ctrl-C reaches the workers too: they leave it to the driver, which ends the
    generation, saves and exits 130 (a worker killed mid-unit left the driver waiting forever)."""
    run = tmp_path / "run"
    config = mixed_config(tmp_path, generations=200)
    command = [sys.executable, "-u", "training/train.py", "--config", str(config), "--run-dir", str(run)]
    command += ["--workers", "2", "--oversubscribe", "--no-eval"]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while not (run / "metadata.json").is_file() and time.monotonic() < deadline:  # a generation is done
            time.sleep(0.2)
        time.sleep(0.5)  # and the next one's units are being played
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("SIGINT: checkpoint saved at ")


def test_a_worker_process_that_dies_is_an_error_naming_the_unit_not_a_wait(tmp_path):
    """A multiprocessing pool replaced a dead worker and waited for its unit forever."""
    config = config_from_dict(ExpertIterationConfig, MIXED)
    trainer = ExpertIteration(config, tmp_path)
    runner = LocalProcesses(2)
    try:
        plan = plan_generation(config, 0, trainer.stage, trainer.policy, [])
        assert runner.result(runner.submit(plan, 0)).games == 2  # the processes are up
        os.kill(next(iter(runner.pool._processes)), signal.SIGKILL)
        with pytest.raises(RuntimeError, match="a worker process died before unit 1 of generation 0 was played"):
            runner.result(runner.submit(plan, 1))
    finally:
        runner.close()
        trainer.close()
