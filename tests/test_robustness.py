"""Runs that survive interruption and bad input, reports that are never lost, and the same
error for a finished game in every form (issue 8)."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
import yaml
from sb3_contrib import MaskablePPO

from agents.inverted_dice.solver import cache_path
from agents.run_folder import METADATA_FILE, MODEL_FILE, REWARD_STATS_FILE, TRAINING_STATE_FILE
from envs.core import IllegalActionError
from envs.registry import ENVS
from tests.test_training import tiny_config
from training import evaluate, train
from training.framework.config import load_config
from training.framework.run import read_training_state
from training.framework.run_files import partial_path
from training.pipelines.ppo.config import PPO_SETTINGS, PPOConfig
from training.pipelines.ppo.learner import PPO

ROOT = Path(__file__).resolve().parent.parent
QUIET = ["--no-progress", "--no-eval"]
ROLLOUT = 128  # tiny_config: 2 envs x 64 steps


def _checkpoint_steps(run: Path) -> int:
    return json.loads((run / METADATA_FILE).read_text())["timesteps"]


@contextmanager
def training_until_first_checkpoint(config: Path, run: Path) -> Iterator[subprocess.Popen]:
    """train.py in a subprocess, still training once its first checkpoint after a PPO update is on disk
    (the one at 0 timesteps, taken at the start, does not count)."""
    command = [sys.executable, "training/train.py", "--config", str(config), "--run-dir", str(run), *QUIET]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 600  # generous: the machine may be busy; the test waits for an event, not a time
        while not ((run / METADATA_FILE).exists() and _checkpoint_steps(run) > 0):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no checkpoint within 600 s"
            time.sleep(0.2)
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _files(run: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(run)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(run.rglob("*")) if p.is_file()
    }


def _weights(run: Path) -> dict[str, torch.Tensor]:
    return MaskablePPO.load(str(run / MODEL_FILE), device="cpu").policy.state_dict()


# -- resume ------------------------------------------------------------------------------------


def test_a_run_killed_with_sigkill_resumes_from_its_last_checkpoint(tmp_path):
    run = tmp_path / "run"
    with training_until_first_checkpoint(
        tiny_config(tmp_path, total_timesteps=100_000, checkpoint_every=ROLLOUT), run
    ) as process:
        process.send_signal(signal.SIGKILL)
        process.communicate()
    assert process.returncode == -signal.SIGKILL
    saved = _checkpoint_steps(run)
    assert saved >= ROLLOUT and saved % ROLLOUT == 0

    target = saved + 2 * ROLLOUT
    assert train.main(["--resume", str(run), "--timesteps", str(target), *QUIET]) == 0
    metadata = json.loads((run / METADATA_FILE).read_text())
    assert metadata["timesteps"] == target  # the step count continued from the checkpoint
    first, second = metadata["sessions"]
    assert first["ended"] == "killed after its last checkpoint" and first["timesteps"] == saved
    assert second["resumed_from"] == saved and second["ended"] == "completed"
    assert not list(run.glob("*.partial"))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sigint_and_sigterm_save_a_checkpoint_and_say_how_to_resume(tmp_path, sig):
    run = tmp_path / "run"
    with training_until_first_checkpoint(
        tiny_config(tmp_path, total_timesteps=100_000, checkpoint_every=ROLLOUT), run
    ) as process:
        process.send_signal(sig)
        _, err = process.communicate(timeout=600)
    assert process.returncode == 128 + sig
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"{sig.name}: checkpoint saved at {_checkpoint_steps(run)} timesteps; "
        f"resume with: python training/train.py --resume {run}"
    )
    metadata = json.loads((run / METADATA_FILE).read_text())
    assert metadata["sessions"][0]["ended"] == f"interrupted ({sig.name})"
    assert train.main(["--resume", str(run), "--timesteps", str(_checkpoint_steps(run) + ROLLOUT), *QUIET]) == 0


def test_a_signal_during_the_warm_start_stops_at_once_and_leaves_a_run_to_resume(tmp_path):
    """A stop during the warm start does not wait for it to end: the run keeps the checkpoint it
    took at 0 timesteps before the warm start, says how to resume, and the resume warms up again."""
    run = tmp_path / "run"
    config = tiny_config(tmp_path, total_timesteps=100_000, warm_start={"enabled": True, "episodes": 100_000})
    command = [sys.executable, "-u", "training/train.py", "--config", str(config), "--run-dir", str(run), *QUIET]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in process.stdout:  # wait for the warm start itself, not for a time
            if line.startswith("Warm start: 100000 episodes"):
                break
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"SIGTERM: checkpoint saved at 0 timesteps; resume with: python training/train.py --resume {run}"
    )
    metadata = json.loads((run / METADATA_FILE).read_text())
    assert metadata["sessions"][0]["ended"] == "interrupted (SIGTERM) before its first step"
    assert PPO.read_checkpoint(run).done == 0


def test_a_signal_before_the_learner_is_built_still_leaves_a_run_to_resume(tmp_path, capsys, monkeypatch):
    """The stop counts from the command's start: a SIGTERM while the learner is being built
    (the envs, the model) is honoured at the first chance, with a checkpoint at 0 and the resume command."""
    run = tmp_path / "run"
    built = PPO.__init__

    def build_then_signal(self, *args, **kwargs):
        built(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(PPO, "__init__", build_then_signal)
    assert train.main(["--config", str(tiny_config(tmp_path)), "--run-dir", str(run), *QUIET]) == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        f"SIGTERM: checkpoint saved at 0 timesteps; resume with: python training/train.py --resume {run}"
    )
    monkeypatch.undo()
    assert train.main(["--resume", str(run), "--timesteps", str(ROLLOUT), *QUIET]) == 0
    assert _checkpoint_steps(run) == ROLLOUT


def test_a_signal_as_the_preparation_ends_saves_before_any_step(tmp_path, capsys, monkeypatch):
    """A stop that arrives once the warm start is done but before the first update: no step is
    taken (nor a curve point), the checkpoint at 0 records the preparation as done, and the resume
    goes straight to learning."""
    run = tmp_path / "run"
    config = tiny_config(
        tmp_path,
        warm_start={"enabled": True, "episodes": 2, "epochs": 1, "guide_coef": 0.0},
        learning_curve={"every": ROLLOUT, "games": 2, "reference": "random"},
    )
    prepared = PPO.prepare

    def prepare_then_signal(self, session):
        prepared(self, session)
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(PPO, "prepare", prepare_then_signal)
    assert train.main(["--config", str(config), "--run-dir", str(run), *QUIET]) == 128 + signal.SIGTERM
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"SIGTERM: checkpoint saved at 0 timesteps; resume with: python training/train.py --resume {run}"
    )
    assert json.loads((run / METADATA_FILE).read_text())["sessions"][0]["ended"] == "interrupted (SIGTERM)"
    monkeypatch.undo()
    assert train.main(["--resume", str(run), "--timesteps", str(ROLLOUT), *QUIET]) == 0
    assert "Warm start:" not in capsys.readouterr().out  # prepared once: the resume does not warm up again
    assert _checkpoint_steps(run) == ROLLOUT


def test_a_shorter_run_than_the_config_shortens_its_warm_start(tmp_path, capsys):
    planned = load_config(PPOConfig, "configs/invers_ppo.yaml")
    short = load_config(PPOConfig, "configs/invers_ppo.yaml", {"total_timesteps": 20_000})
    note = PPO.fit_to_budget(short, planned.total_timesteps, {"total_timesteps"})
    assert short.warm_start.episodes == 36  # ceil(900 x 20,000 / 500,000)
    assert note == (
        "Warm start: 36 teacher episodes, the config's 900 scaled to 20,000 of its 500,000 steps "
        "(--warm-start-episodes N sets them)"
    )
    chosen = load_config(PPOConfig, "configs/invers_ppo.yaml", {"total_timesteps": 20_000, "warm_start.episodes": 5})
    assert PPO.fit_to_budget(chosen, planned.total_timesteps, {"total_timesteps", "warm_start.episodes"}) is None
    assert chosen.warm_start.episodes == 5
    longer = load_config(PPOConfig, "configs/invers_ppo.yaml", {"total_timesteps": 2_000_000})
    assert (
        PPO.fit_to_budget(longer, planned.total_timesteps, {"total_timesteps"}) is None
        and longer.warm_start.episodes == 900
    )


def test_resuming_a_checkpoint_is_reproducible(tmp_path):
    """Weights, optimizer, RNG streams and env generators all come back: two resumes of one
    checkpoint train the same model, whatever the process's RNGs were doing before."""
    run = tmp_path / "run"
    assert (
        train.main(
            ["--config", str(tiny_config(tmp_path)), "--run-dir", str(run), "--timesteps", str(2 * ROLLOUT), *QUIET]
        )
        == 0
    )
    copies = [tmp_path / "a", tmp_path / "b"]
    for copy in copies:
        shutil.copytree(run, copy)
    torch.manual_seed(1)
    np.random.seed(1)
    assert train.main(["--resume", str(copies[0]), "--timesteps", str(4 * ROLLOUT), *QUIET]) == 0
    torch.manual_seed(2)
    np.random.seed(2)
    assert train.main(["--resume", str(copies[1]), "--timesteps", str(4 * ROLLOUT), *QUIET]) == 0
    a, b = (_weights(copy) for copy in copies)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], w) for k, w in _weights(run).items())  # and they did train further


def test_a_checkpoint_committed_but_not_yet_renamed_is_found(tmp_path):
    """Killed between the commit (metadata.json) and the renames: the new files are still
    under their .partial names, and the resume takes them by checksum."""
    run = tmp_path / "run"
    assert (
        train.main(["--config", str(tiny_config(tmp_path)), "--run-dir", str(run), "--timesteps", str(ROLLOUT), *QUIET])
        == 0
    )
    os.replace(run / MODEL_FILE, partial_path(run / MODEL_FILE))
    (run / MODEL_FILE).write_bytes(b"the previous checkpoint's model")
    assert PPO.read_checkpoint(run).files[MODEL_FILE] == partial_path(run / MODEL_FILE)
    assert train.main(["--resume", str(run), "--timesteps", str(2 * ROLLOUT), *QUIET]) == 0
    assert _checkpoint_steps(run) == 2 * ROLLOUT and not partial_path(run / MODEL_FILE).exists()


@pytest.mark.parametrize("damaged", [REWARD_STATS_FILE, MODEL_FILE, TRAINING_STATE_FILE])
def test_a_failed_resume_names_the_damaged_file_and_changes_nothing(tmp_path, capsys, damaged):
    run = tmp_path / "run"
    assert (
        train.main(["--config", str(tiny_config(tmp_path)), "--run-dir", str(run), "--timesteps", str(ROLLOUT), *QUIET])
        == 0
    )
    (run / damaged).write_bytes(b"corrupt")
    before = _files(run)
    capsys.readouterr()
    assert train.main(["--resume", str(run), "--timesteps", str(4 * ROLLOUT), *QUIET]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: cannot resume: {run / damaged} is damaged or missing (its SHA-256 does not match the checkpoint of "
        f"{ROLLOUT} timesteps recorded in metadata.json)\n"
    )
    assert _files(run) == before  # not even config.yaml (whose total_timesteps --timesteps changes)


def test_a_run_without_a_checkpoint_cannot_be_resumed(tmp_path, capsys):
    (tmp_path / "config.yaml").write_text(tiny_config(tmp_path).read_text())
    assert train.main(["--resume", str(tmp_path), *QUIET]) == 2
    assert "holds no checkpoint" in capsys.readouterr().err


def test_self_play_pool_snapshots_survive_a_resume(tmp_path):
    config = yaml.safe_load(open("configs/invers_ppo.yaml"))
    config.update(
        {
            "n_envs": 2,
            "checkpoint_every": ROLLOUT,
            "ppo": {**config["ppo"], "n_steps": 64, "batch_size": 64, "n_epochs": 1},
        }
    )
    config["self_play"].update({"pool": ["random"], "snapshot_every": ROLLOUT, "max_snapshots": 2})
    config["warm_start"].update(
        {"episodes": 2, "epochs": 1, "label_with": "search:depth=1", "workers": 1}
    )  # the default's labelling takes 12 min
    path = tmp_path / "invers.yaml"
    path.write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    assert train.main(["--config", str(path), "--run-dir", str(run), "--timesteps", str(4 * ROLLOUT), *QUIET]) == 0

    checkpoint = PPO.read_checkpoint(run)
    state = read_training_state(checkpoint)["learner"]
    assert len(state["self_play"]["snapshots"]) == 2 and state["self_play"]["last_snapshot"] == 3 * ROLLOUT
    learner = PPO(load_config(PPOConfig, run / "config.yaml"), run, checkpoint)
    learner.load_state_dict(state)
    assert len(learner.self_play.snapshots) == 2
    for agent, saved in zip(learner.self_play.snapshots, state["self_play"]["snapshots"]):
        assert all(torch.equal(agent.policy.state_dict()[k], saved[k]) for k in saved)
    learner.close()
    assert train.main(["--resume", str(run), "--timesteps", str(5 * ROLLOUT), *QUIET]) == 0


# -- bad input: one line on stderr, exit code 2, before anything runs ---------------------------


def _config_with(tmp_path, section: str | None, key: str, value) -> Path:
    config = yaml.safe_load(tiny_config(tmp_path).read_text())
    if section is None:
        config[key] = value
    else:
        config.setdefault(section, {})[key] = value
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize(
    "section, key, value, message",
    [
        ("ppo", "learning_rate", "fast", "ppo.learning_rate must be a number > 0, got 'fast'"),
        ("ppo", "batch_size", "256", "ppo.batch_size must be an integer >= 2, got '256'"),
        ("ppo", "batch_size", 0, "ppo.batch_size must be an integer >= 2, got 0"),
        (
            "ppo",
            "batch_size",
            96,
            "ppo.batch_size (96) must divide the rollout of ppo.n_steps x n_envs = 64 x 2 = 128 steps",
        ),
        ("ppo", "gamma", 1.5, "ppo.gamma must be a number in [0, 1], got 1.5"),
        ("ppo", "clip_range", 0, "ppo.clip_range must be a number > 0, got 0"),
        ("ppo", "n_epochs", 0, "ppo.n_epochs must be an integer > 0, got 0"),
        ("ppo", "ent_coef", -0.1, "ppo.ent_coef must be a number >= 0, got -0.1"),
        ("ppo", "learning_rat", 0.1, "unknown ppo key(s) ['learning_rat']; known keys: ['batch_size',"),
        (
            "policy_kwargs",
            "net_arch",
            "big",
            "policy_kwargs.net_arch must be a list of layer sizes (integers > 0) "
            "or a mapping {pi: [...], vf: [...]}, got 'big'",
        ),
        (
            "policy_kwargs",
            "activation_fn",
            "swish",
            "policy_kwargs.activation_fn must be one of ['tanh', 'relu', 'elu', 'gelu'], got 'swish'",
        ),
        (None, "seed", -3, "seed must be an integer >= 0, got -3"),
        (None, "n_envs", "eight", "n_envs must be an integer > 0, got 'eight'"),
        (None, "vec_env", "ray", "vec_env must be one of ['batched', 'game', 'dummy', 'subproc'], got 'ray'"),
        (
            None,
            "env_kwargs",
            {"num_players": "["},
            "env_kwargs {'num_players': '['}: inverted_dice: num_players must be an integer, got '['",
        ),
        (
            None,
            "env_kwargs",
            {"free_crossout": True},
            "env_kwargs: inverted_dice has no option(s) ['free_crossout']; "
            "its options: ['free_cross_out', 'num_players']",
        ),
        (
            "evaluation",
            "opponents",
            ["heurstic"],
            "evaluation.opponents: unknown agent 'heurstic' for inverted_dice: "
            "expected one of ['random', 'heuristic', 'optimal', 'td', 'ppo']",
        ),
        ("evaluation", "games", 0, "evaluation.games must be an integer > 0, got 0"),
        ("evaluation", "gmes", 3, "unknown evaluation key(s) ['gmes']"),
        ("self_play", "enabled", True, "self_play needs a game with several players"),
        ("self_play", "snapshot_weight", 2, "self_play.snapshot_weight must be a number in [0, 1], got 2"),
    ],
)
def test_every_bad_config_value_is_one_line_and_exit_code_2(tmp_path, capsys, section, key, value, message):
    path = _config_with(tmp_path, section, key, value)
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), *QUIET]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: {message}") and err.count("\n") == 1
    assert not (tmp_path / "run").exists()  # nothing ran


def test_agents_are_checked_before_training(tmp_path, capsys):
    path = _config_with(tmp_path, "evaluation", "opponents", ["heuristic:depth=3"])
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), *QUIET]) == 2
    assert "agent spec 'heuristic:depth=3': got an unexpected keyword argument 'depth'" in capsys.readouterr().err
    # built before training: a bot that cannot play these options is refused up front
    path = _config_with(tmp_path, None, "env_kwargs", {"num_players": 2})
    config = yaml.safe_load(path.read_text())
    config["evaluation"]["opponents"] = ["optimal"]
    config["evaluation"]["games"] = 6  # whole openings at two players
    path.write_text(yaml.safe_dump(config))
    assert train.main(["--config", str(path), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 2
    assert "agent 'optimal': OptimalAgent is solved for solitaire Inverted Dice" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_ppo_settings_are_real_maskableppo_arguments():
    assert set(PPO_SETTINGS) <= set(inspect.signature(MaskablePPO.__init__).parameters)


def test_a_corrupt_solver_cache_names_the_command_that_solves_again(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TABLETOP_DICE_RL_CACHE", str(tmp_path / "cache"))
    path = cache_path(False)
    path.parent.mkdir()
    path.write_bytes(b"not a solution")
    assert (
        evaluate.main(
            ["--env", "inverted_dice", "--agents", "optimal", "random", "--games", "2", "--out", str(tmp_path / "e")]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith(f"error: cache file {path.resolve()} is corrupt or unreadable")
    assert err.endswith("; solve again with `python -m agents.inverted_dice.solver --force`\n")
    config = _config_with(tmp_path, "evaluation", "opponents", ["optimal"])
    assert train.main(["--config", str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 2
    assert "solve again with `python -m agents.inverted_dice.solver --force`" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # found before training


# -- evaluation: reports never lost, wrong env named ---------------------------------------------


def test_evaluate_writes_a_new_dated_report_and_never_replaces_one(tmp_path, capsys):
    run = tmp_path / "run"
    assert (
        train.main(
            [
                "--config",
                str(tiny_config(tmp_path)),
                "--run-dir",
                str(run),
                "--timesteps",
                str(ROLLOUT),
                "--eval-games",
                "3",
                "--no-progress",
            ]
        )
        == 0
    )
    closing = (run / "evaluation" / "report.md").read_text()
    assert "games 9/9" in capsys.readouterr().err  # progress of the closing evaluation (3 agents x 3 games)
    assert evaluate.main(["--checkpoint", str(run), "--games", "2"]) == 0
    assert (run / "evaluation" / "report.md").read_text() == closing
    (dated,) = run.glob("evaluation-*")
    assert "| trained | 2 |" in (dated / "report.md").read_text()
    assert f"Report written to {dated}" in capsys.readouterr().out

    out = tmp_path / "mine"
    assert evaluate.main(["--env", "inverted_dice", "--agents", "random", "--games", "2", "--out", str(out)]) == 0
    capsys.readouterr()  # the first report's progress lines
    assert evaluate.main(["--env", "inverted_dice", "--agents", "random", "--games", "3", "--out", str(out)]) == 2
    assert (
        capsys.readouterr().err
        == f"error: {out} already holds files (an earlier report?); choose another --out or pass --overwrite\n"
    )
    assert (
        evaluate.main(
            ["--env", "inverted_dice", "--agents", "random", "--games", "3", "--out", str(out), "--overwrite"]
        )
        == 0
    )


def test_evaluate_names_the_env_a_checkpoint_was_trained_on(tmp_path, capsys):
    run = tmp_path / "run"
    assert (
        train.main(["--config", str(tiny_config(tmp_path)), "--run-dir", str(run), "--timesteps", str(ROLLOUT), *QUIET])
        == 0
    )
    assert evaluate.main(["--env", "six_hundred", "--checkpoint", str(run), "--games", "2"]) == 2
    assert capsys.readouterr().err == (
        f"error: checkpoint {run} was trained on inverted_dice, not six_hundred: "
        "use --env inverted_dice (or leave --env out)\n"
    )
    assert evaluate.main(["--env", "inverted_dice", "--env-kwargs", "num_players: [", "--agents", "random"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --env-kwargs is not valid YAML: ") and err.count("\n") == 1


# -- one error for a finished game in every form -------------------------------------------------


@pytest.mark.parametrize("name", sorted(ENVS))
def test_stepping_a_finished_game_raises_illegal_action_in_every_form(name):
    entry = ENVS[name]
    aec = entry.load_module().env(num_players=2)
    aec.reset(seed=0)
    rng = np.random.default_rng(0)
    while not (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))
    with pytest.raises(IllegalActionError, match="the game is over"):
        aec.step(0)
    while aec.agents:  # PettingZoo's convention: step(None) removes each done agent
        aec.step(None)
    with pytest.raises(IllegalActionError, match="the game is over"):
        aec.step(0)

    gym = gymnasium.make(entry.gym_id, num_players=2)
    gym.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = gym.step(gym.action_space.sample())
        done = terminated or truncated
    with pytest.raises(IllegalActionError, match="the game is over"):
        gym.step(0)


def test_opponents_may_be_given_by_bot_name():
    env = gymnasium.make("InvertedDice-v0", num_players=3, opponents="heuristic")
    assert [type(o).__name__ for o in env.unwrapped.opponents] == ["InvertedDiceHeuristic"] * 2
    env.reset(seed=0)
    env.step(env.action_space.sample())
    mixed = gymnasium.make("InvertedDice-v0", num_players=3, opponents=["heuristic", None])
    assert mixed.unwrapped.opponents[1] is None
    with pytest.raises(
        ValueError,
        match=r"opponents: unknown agent 'heurstic' for inverted_dice: "
        r"expected one of \['random', 'heuristic', 'optimal', 'td', 'ppo'\]",
    ):
        gymnasium.make("InvertedDice-v0", num_players=2, opponents="heurstic")
    with pytest.raises(TypeError, match="opponents must be None"):
        gymnasium.make("InvertedDice-v0", num_players=2, opponents=5)


def test_no_eval_is_the_runs_choice_and_a_resume_keeps_it(tmp_path, capsys):
    """--no-eval is written to the run's config.yaml: the resume command printed after a stop (no
    --no-eval in it) does not play the closing evaluation the first session skipped; --eval-games asks for it."""
    run = tmp_path / "run"
    config = str(tiny_config(tmp_path))
    assert train.main(["--config", config, "--run-dir", str(run), "--timesteps", str(ROLLOUT), *QUIET]) == 0
    assert yaml.safe_load((run / "config.yaml").read_text())["evaluation"]["enabled"] is False
    assert train.main(["--resume", str(run), "--timesteps", str(2 * ROLLOUT), "--no-progress"]) == 0
    assert "No closing evaluation (the run's evaluation.enabled is false)" in capsys.readouterr().out
    assert not (run / "evaluation").exists()
    assert (
        train.main(["--resume", str(run), "--timesteps", str(3 * ROLLOUT), "--eval-games", "2", "--no-progress"]) == 0
    )
    assert (run / "evaluation" / "report.md").is_file()
