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

from envs.registry import ENVS, get_entry

GOLDEN_DIR = Path(__file__).parent / "playthroughs"
SEED = 2026


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{get_entry(name).versioned_name}.txt"


def record(name: str, seed: int = SEED) -> str:
    """The playthrough text of env ``name``'s default game with ``seed``."""
    module = get_entry(name).load_module()
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
    lines.append(env.game_state.render())
    lines.append(f"scores {env.game_state.scores().tolist()} returns {env.game_state.returns().tolist()}")
    return "\n".join(lines) + "\n"


def main() -> int:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name in ENVS:
        golden_path(name).write_text(record(name))
        print(f"wrote {golden_path(name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
