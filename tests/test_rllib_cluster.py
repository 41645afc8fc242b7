"""Joining a Ray cluster: an address where nothing answers, a host that does not resolve and a
cluster that refuses the driver's token are each one line and exit 2 before ``ray.init``
(which retried the first two for minutes and ended the third in a traceback).

The token cluster is a real one, ``ray start --head --block`` with token authentication in a
temp dir of its own on a free port, stopped by signalling that one command (never
``ray stop``, which ends every Ray process on the machine). Ray reads a process's
authentication mode once, so each driver against it is a process of its own.
Skipped when ray is not installed (``pip install -e ".[rllib]"`` installs it).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason='Ray RLlib is not installed (pip install -e ".[rllib]")')

import ray  # noqa: E402

from training import train_rllib  # noqa: E402
from training.framework.ray_cluster import CONNECT_TIMEOUT_S  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RLLIB = [sys.executable, "-m", "training.train_rllib"]  # this checkout's code, run from its root
AUTH_VARIABLES = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")


def closed_port() -> int:
    """A port nothing listens on: one the system just handed out and closed again."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("given_by", ["--address", "RAY_ADDRESS"])
def test_an_address_where_nothing_listens_is_one_line_naming_it(given_by, tmp_path, monkeypatch, capsys):
    address = f"127.0.0.1:{closed_port()}"
    argv = ["--env", "invers", "--run-dir", str(tmp_path / "run"), "--no-eval"]
    if given_by == "--address":
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
        argv += ["--address", address]
    else:
        monkeypatch.setenv("RAY_ADDRESS", address)
    assert train_rllib.main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    source = "--address or the config's address" if given_by == "--address" else "RAY_ADDRESS"
    assert line.startswith(f"error: the Ray address {address} ({source}")  # then Ray's name for it: this node's IP
    assert f"nothing accepts a connection on port {address.split(':')[1]} of " in line
    assert f"within {CONNECT_TIMEOUT_S:g} s" in line and "check that the cluster's head runs there" in line
    assert not (tmp_path / "run").exists() and not ray.is_initialized()


def test_an_address_whose_host_does_not_resolve_is_one_line_naming_it(tmp_path, capsys):
    argv = ["--env", "invers", "--address", "nosuchhost.invalid:6379", "--run-dir", str(tmp_path / "run")]
    assert train_rllib.main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(
        "error: the Ray address nosuchhost.invalid:6379 (--address or the config's address): "
        "the host 'nosuchhost.invalid' does not resolve ("
    )
    assert not (tmp_path / "run").exists() and not ray.is_initialized()


@pytest.fixture(scope="module")
def token_cluster():
    """A one-CPU Ray head with token authentication: (its address, its token, the environment without
    any Ray variable and with a home of its own, so that no ~/.ray/auth_token of the user's is found)."""
    folder = Path(tempfile.mkdtemp(prefix="ray"))  # short: Ray's socket paths must fit in 107 bytes
    home = folder / "home"
    home.mkdir()
    token = secrets.token_hex(32)
    clean = {key: value for key, value in os.environ.items() if key not in AUTH_VARIABLES}
    clean["HOME"] = str(home)
    port = closed_port()
    head = subprocess.Popen(
        [str(Path(sys.executable).parent / "ray"), "start", "--head", "--block", "--port", str(port)]
        + ["--temp-dir", str(folder / "ray"), "--num-cpus", "1", "--include-dashboard=false"]
        + ["--disable-usage-stats"],
        env={**clean, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the head's processes and no others
    )
    try:
        started = folder / "ray" / "ray_current_cluster"  # written once the head is up
        deadline = time.monotonic() + 180
        while not started.is_file() and head.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        if not started.is_file():
            pytest.fail(f"ray start --head did not come up (exit code {head.poll()})")
        yield f"127.0.0.1:{port}", token, clean
    finally:
        head.send_signal(signal.SIGTERM)  # --block: the command stops every process it started
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(folder, ignore_errors=True)


def train(address: str, env: dict[str, str], run: Path) -> subprocess.CompletedProcess:
    command = [*RLLIB, "--env", "invers", "--address", address, "--workers", "0", "--iterations", "1"]
    command += ["--rollout-steps", "512", "--run-dir", str(run), "--no-eval", "--no-progress"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def error_line(result: subprocess.CompletedProcess) -> str:
    """The command's own error: its last line on stderr (Ray's C++ client logs its refusal before it)."""
    return result.stderr.splitlines()[-1]


def test_a_driver_without_the_token_mode_is_told_the_cluster_wants_it(token_cluster, tmp_path):
    address, _, env = token_cluster
    result = train(address, {**env, "RAY_AUTH_TOKEN": "not-the-token"}, tmp_path / "run")
    assert result.returncode == 2, result.stderr
    line = error_line(result)
    assert line.startswith(f"error: the Ray address {address} (--address or the config's address")
    assert line.endswith(
        "the cluster refuses this driver, it uses token authentication; set RAY_AUTH_MODE=token and give "
        "the cluster's token (ray get-auth-token on its head) as RAY_AUTH_TOKEN, a file named by "
        "RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token"
    )
    assert not (tmp_path / "run").exists()


def test_a_driver_with_a_wrong_token_or_none_is_told_to_give_the_cluster_s(token_cluster, tmp_path):
    address, _, env = token_cluster
    wrong = train(address, {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "not-the-token"}, tmp_path / "run")
    assert wrong.returncode == 2, wrong.stderr
    assert error_line(wrong).endswith(
        ": the cluster refuses this driver's token; give the cluster's token "
        "(ray get-auth-token on its head) as RAY_AUTH_TOKEN, a file named by "
        "RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token"
    )
    none = train(address, {**env, "RAY_AUTH_MODE": "token"}, tmp_path / "run")  # Ray itself aborts the process
    assert none.returncode == 2, none.stderr
    assert ": RAY_AUTH_MODE=token is set but no token; give the cluster's token" in error_line(none)
    assert not (tmp_path / "run").exists()


def test_a_driver_with_the_token_trains_there_and_records_the_address_it_joined(token_cluster, tmp_path):
    """``--address auto`` with RAY_ADDRESS naming the cluster: metadata records the cluster's own address."""
    address, token, env = token_cluster
    env = {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token, "RAY_ADDRESS": address}
    result = train("auto", env, tmp_path / "run")
    assert result.returncode == 0, result.stderr
    facts = json.loads((tmp_path / "run" / "metadata.json").read_text())["ray"]
    assert facts["address"].endswith(f":{address.split(':')[1]}") and facts["cpus"] == 1


def test_expert_iteration_passes_the_same_front_door_and_plays_its_units_there(token_cluster, tmp_path):
    """train.py --env invers (expert iteration) joins through the same checks: a wrong token is one line,
    the cluster's token runs its units there."""
    from tests.expert_iteration_runs import mixed_config  # noqa: PLC0415 (only this test runs expert iteration)

    address, token, env = token_cluster
    config = mixed_config(tmp_path, generations=1)
    command = [sys.executable, "-m", "training.train", "--config", str(config), "--address", address, "--no-eval"]
    wrong = subprocess.run(
        [*command, "--run-dir", str(tmp_path / "refused")],
        cwd=ROOT,
        env={**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "not-the-token"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert wrong.returncode == 2 and error_line(wrong).endswith(
        ": the cluster refuses this driver's token; give "
        "the cluster's token (ray get-auth-token on its head) as RAY_AUTH_TOKEN, a file named by "
        "RAY_AUTH_TOKEN_PATH, or ~/.ray/auth_token"
    ), wrong.stderr
    assert not (tmp_path / "refused").exists()
    joined = subprocess.run(
        [*command, "--run-dir", str(tmp_path / "run")],
        cwd=ROOT,
        env={**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert joined.returncode == 0, joined.stderr
    metadata = json.loads((tmp_path / "run" / "metadata.json").read_text())
    assert metadata["units_ran_in"].startswith("the Ray cluster at ") and metadata["generation_log"][0]["units"] == 3
