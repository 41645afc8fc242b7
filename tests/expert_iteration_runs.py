"""Expert-iteration runs that the unit tests compare across runners: one config whose games draw on
every part of a unit (bot games, the learner, self-play, snapshots, a teacher, the hand-over to the
network's frozen search and its files), and what two runs must agree on."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml

#: every kind of game: between two bots, the learner against itself, a snapshot or a bot
GAMES = {"bot_game_weight": 0.4, "self_play_weight": 0.3, "snapshot_weight": 0.3}
#: a generation in a second or two; every kind of game a unit plays, in three generations
MIXED = {
    "pipeline": "expert_iteration",
    "env": "invers",
    "env_kwargs": {"max_plies": 40},
    "policy_kwargs": {"net_arch": [32, 32], "activation_fn": "relu"},
    "generations": 3,
    "games_per_generation": 6,
    "games_per_unit": 2,
    "search_depth": 1,
    "explore_plies": 2,
    "max_snapshots": 2,
    "random_move_rate": 0.1,
    "stages": [
        {
            "generations": 2,
            "teacher": "search:depth=2",
            "pool": ["search:depth=1", "random"],
            **GAMES,
        },
        {  # then the network of generation 2, frozen, in a one-ply search
            "teacher": "ppo+search:depth=1,path={frozen}",
            "pool": ["ppo:path={frozen}", "ppo+search:depth=1,path={frozen}", "search:depth=1"],
            **GAMES,
        },
    ],
    "batch_size": 32,
    "checkpoint_every": 1,
}


def mixed_config(folder: Path, **changes) -> Path:
    path = folder / "mixed.yaml"
    path.write_text(yaml.safe_dump({**MIXED, **changes}))
    return path


def weights_digest(run: Path) -> str:
    """SHA-256 over every tensor of the run's ``model.zip`` policy, by name."""
    from sb3_contrib import MaskablePPO  # noqa: PLC0415 (sb3 takes seconds to import; only these tests need it)

    state = MaskablePPO.load(str(run / "model.zip"), device="cpu").policy.state_dict()
    digest = hashlib.sha256()
    for name in sorted(state):
        digest.update(name.encode())
        digest.update(state[name].numpy().tobytes())
    return digest.hexdigest()


def generation_log(run: Path) -> list[tuple]:
    """What the generation log says of the learning: per generation, the games, positions, units,
    losses, teacher and results (not its times)."""
    log = json.loads((run / "metadata.json").read_text())["generation_log"]
    keys = ("generation", "games", "positions", "units", "policy_loss", "value_loss", "score_vs", "games_vs")
    return [tuple(json.dumps(entry[key], sort_keys=True) for key in keys) for entry in log]
