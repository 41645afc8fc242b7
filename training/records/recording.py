"""One whole game played with the same agent in every seat and kept: as pictures for an
animated GIF (the env's ``render_mode="rgb_array"``), or as a record
(:mod:`training.records.game_record`) played by :func:`agents.match.play_game`, as the
evaluation plays it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from agents.match import play_game
from envs.core import GameState
from envs.registry import get_entry, make_game
from training.framework.config import build_agent
from training.records.game_record import GameRecord, record_of


def play_frames(env_name: str, agent_spec: str, seed: int = 0, num_players: int | None = None) -> list[np.ndarray]:
    """The pictures of one game of ``env_name`` with ``agent_spec`` in every seat.

    An agent that cannot be made (unknown, a missing network) raises a ``ConfigError``."""
    module = get_entry(env_name).load_module()
    options = {} if num_players is None else {"num_players": num_players}
    env = module.raw_env(render_mode="rgb_array", **options)
    env.reset(seed=seed)
    agents = {a: build_agent(env_name, agent_spec, env.game, seed=seed + i) for i, a in enumerate(env.possible_agents)}
    frames = [env.render()]
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(agents[agent].act(observation["observation"], observation["action_mask"]))
        frames.append(env.render())
    return frames


def play_record(
    env_name: str, agent_spec: str, seed: int = 0, num_players: int | None = None
) -> tuple[GameRecord, GameState]:
    """The record of one game of ``env_name`` with ``agent_spec`` in every seat, and its last state."""
    game = make_game(env_name) if num_players is None else make_game(env_name, num_players=num_players)
    seats = [build_agent(env_name, agent_spec, game) for _ in range(game.num_players)]
    state, history = play_game(game, seats, seed)
    return record_of(env_name, game.options(), seed, [agent_spec] * game.num_players, history), state


def save_gif(frames: list[np.ndarray], path: str | Path, frame_ms: int = 250, last_ms: int = 3000) -> None:
    """Write ``frames`` as a looping GIF on one shared 64-colour palette (small files)."""
    first = Image.fromarray(frames[0]).quantize(colors=64)
    images = [first] + [Image.fromarray(f).quantize(palette=first) for f in frames[1:]]
    durations = [frame_ms] * (len(images) - 1) + [last_ms]
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True)
