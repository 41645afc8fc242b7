"""Golden playthroughs, as OpenSpiel keeps them: one recorded game per env, diffed on every run.

A playthrough plays a seeded game through the AEC env with a seeded random legal policy
and writes, for every step, who acts, the legal actions, the chosen action's name, the
observation, and the rewards; then the final scores and outcome. Any change to the rules,
the observation or the action numbering shows up as a diff, and must come with a
version bump of the env if it can affect learning.

    python -m tests.playthrough            # rewrite every golden file after an intended change
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from envs.registry import ENVS, LEGACY_ENVS

GOLDEN_DIR = Path(__file__).parent / "playthroughs"
SEED = 2026
#: Every registered env version, current and superseded, by versioned name
#: (``inverted_dice_v1``): a legacy version must keep replaying too.
VERSIONS = {entry.versioned_name: entry for entry in (*ENVS.values(), *LEGACY_ENVS)}


def golden_path(version: str) -> Path:
    return GOLDEN_DIR / f"{version}.txt"


def record(version: str, seed: int = SEED) -> str:
    """The playthrough text of env version ``version``'s default game with ``seed``."""
    module = VERSIONS[version].load_module()
    env = module.raw_env(render_mode="ansi")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [f"env {module.raw_env.metadata['name']} {env.game!r} seed {seed}", env.render()]
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        observation = " ".join(f"{v:g}" for v in obs["observation"].ravel())
        lines.append(f"{agent} obs [{observation}]")
        lines.append(f"{agent} legal {legal.tolist()} plays {action} ({env.game.action_name(action)})")
        env.step(action)
        rewards = {a: r for a, r in env.rewards.items() if r}
        if rewards:
            lines.append(f"rewards {rewards}")
    lines.append(env.state.render())
    lines.append(f"scores {env.state.scores().tolist()} returns {env.state.returns().tolist()}")
    return "\n".join(lines) + "\n"


def main() -> int:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for version in VERSIONS:
        golden_path(version).write_text(record(version))
        print(f"wrote {golden_path(version)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
