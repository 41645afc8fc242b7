"""The run folder's one owner (agents/run_folder.py): which agent plays a run, what its files say, and no
other module spelling its file names."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import agents.registry  # noqa: F401 (imports every module that registers a run loader)
from agents import run_folder
from agents.base import RandomAgent
from agents.registry import make_agent
from agents.run_folder import (
    CONFIG_FILE,
    METADATA_FILE,
    MODEL_FILE,
    RLLIB_CHECKPOINT_FILE,
    TIANSHOU_POLICY_FILE,
    VALUE_FILE,
    CheckpointError,
    RunLoader,
    holds_trained_agent,
    read_config,
    read_metadata,
    register_loader,
    run_loader,
)
from agents.shipped import shipped_network
from envs.games.invers import Invers

ROOT = Path(__file__).resolve().parent.parent


def _folder(path: Path, files: tuple[str, ...] = (), algorithm: str | None = None) -> Path:
    path.mkdir()
    for name in files:
        (path / name).write_bytes(b"")
    if algorithm is not None:
        (path / METADATA_FILE).write_text(json.dumps({"algorithm": algorithm}))
    return path


@pytest.mark.parametrize(
    "algorithm, checkpoint",
    [
        ("ppo", MODEL_FILE),
        ("expert_iteration", MODEL_FILE),
        ("td", VALUE_FILE),
        ("rllib", RLLIB_CHECKPOINT_FILE),
        ("tianshou_ppo", TIANSHOU_POLICY_FILE),
    ],
)
def test_the_algorithm_metadata_records_chooses_the_loader(tmp_path, algorithm, checkpoint):
    # the files present would say otherwise: the record decides
    folder = _folder(tmp_path / "run", (MODEL_FILE, VALUE_FILE), algorithm)
    assert run_loader(folder).checkpoint == checkpoint


def test_without_a_known_algorithm_the_checkpoint_file_decides(tmp_path):
    assert run_loader(_folder(tmp_path / "bare", (VALUE_FILE,))).checkpoint == VALUE_FILE
    assert run_loader(_folder(tmp_path / "old", (MODEL_FILE,), "turn-value TD, an older name")).checkpoint == MODEL_FILE
    # the shipped runs: a PPO run that records no algorithm, a TD run that records an older name
    assert run_loader(shipped_network("invers")).checkpoint == MODEL_FILE
    assert run_loader(shipped_network("inverted_dice", "td")).checkpoint == VALUE_FILE


def test_a_checkpoint_file_is_told_by_its_name_then_its_suffix(tmp_path):
    for name, checkpoint in [
        (MODEL_FILE, MODEL_FILE),
        ("best.zip", MODEL_FILE),
        (VALUE_FILE, VALUE_FILE),
        ("value-2000.pt", VALUE_FILE),
        (RLLIB_CHECKPOINT_FILE, RLLIB_CHECKPOINT_FILE),
    ]:
        (tmp_path / name).write_bytes(b"")
        assert run_loader(tmp_path / name).checkpoint == checkpoint, name
    (tmp_path / "weights.npz").write_bytes(b"")
    with pytest.raises(CheckpointError, match=r"weights.npz is no file a trained agent loads from: model.zip \("):
        run_loader(tmp_path / "weights.npz")


def test_a_folder_without_one_checkpoint_to_play_is_refused_saying_what_a_run_holds(tmp_path):
    with pytest.raises(CheckpointError, match="holds no trained agent: a run folder holds model.zip .* or value.pt"):
        run_loader(_folder(tmp_path / "empty"))
    both = _folder(tmp_path / "both", (MODEL_FILE, VALUE_FILE))
    with pytest.raises(
        CheckpointError, match="holds model.zip and value.pt, and its metadata.json does not record which pipeline"
    ):
        run_loader(both)
    assert not holds_trained_agent(tmp_path / "empty") and holds_trained_agent(both)


def test_a_damaged_metadata_or_config_file_is_one_line_naming_it(tmp_path):
    run = _folder(tmp_path / "run", (MODEL_FILE,))
    assert read_metadata(run) == {} and read_config(run / MODEL_FILE) == {}
    for damaged, said in [('{"algorithm": "ppo", "env": ', "is not valid JSON"), ("[1, 2]", "holds a list")]:
        (run / METADATA_FILE).write_text(damaged)
        with pytest.raises(CheckpointError, match=f"{METADATA_FILE} {said}.*: the run folder is damaged") as error:
            run_loader(run)
        assert "\n" not in str(error.value)
    (run / CONFIG_FILE).write_text("env: [invers\n")
    with pytest.raises(CheckpointError, match=f"{CONFIG_FILE} is not valid YAML"):
        read_config(run)


def test_a_new_kind_of_run_is_one_registration_and_plays_through_the_agent_specs(tmp_path, monkeypatch):
    monkeypatch.setattr(run_folder, "_LOADERS", list(run_folder._LOADERS))  # the registration ends with the test
    loaded = []

    def load(env_name, path, game, seed):
        loaded.append((env_name, path))
        return RandomAgent(game, seed)

    register_loader(RunLoader("a lab's own learner", ("lab",), "policy.npz", load))
    run = _folder(tmp_path / "run", ("policy.npz",), "lab")
    assert isinstance(make_agent("invers", str(run), Invers(), seed=0), RandomAgent)
    assert loaded == [("invers", run)]
    with pytest.raises(ValueError, match="claim the same algorithm or file"):
        register_loader(RunLoader("another", ("ppo",), "other.npz", load))
    with pytest.raises(ValueError, match="claim the same algorithm or file"):
        register_loader(RunLoader("another", ("other",), MODEL_FILE, load))


def _string_constants(tree: ast.AST):
    """Every string constant of a module but its docstrings, with its line."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_module_but_the_owner_spells_a_run_folder_file_name():
    names = [value for key, value in vars(run_folder).items() if key.endswith("_FILE")]
    assert MODEL_FILE in names and len(names) >= 10
    owner = ROOT / "agents" / "run_folder.py"
    spelt = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for layer in ("envs", "agents", "training")
        for path in sorted((ROOT / layer).rglob("*.py"))
        if path != owner
        for line, text in _string_constants(ast.parse(path.read_text()))
        if any(name in text for name in names)
    ]
    assert not spelt, "spell these with agents.run_folder's constants:\n" + "\n".join(spelt)
