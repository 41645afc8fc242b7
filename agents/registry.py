"""Agents by name: ``random`` for every game, each game's bots, and trained checkpoints.

An agent spec, as typed on the command line, is one of

* ``random``;
* a bot name of that game (``heuristic``, ...), optionally with keyword arguments:
  ``search:depth=3,time_limit=0.5``;
* a path to a trained run directory or model ``.zip`` (see :mod:`agents.trained`);
* ``ppo``: the network the project ships for that game (``checkpoints/<env>/shipped/``)
  playing alone, or ``ppo+search`` (two-player games): the same network inside an
  alpha-beta search (:mod:`agents.search`), e.g. ``ppo+search:ms=8`` or ``ppo+search:depth=3``.
  Both take ``path=RUN_DIR`` to use another trained run.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from agents.base import Agent, RandomAgent
from envs.core import Game

#: Bots of each game: name -> ``"module:Class"``; every class takes ``(game, seed=None, **options)``.
BOTS: dict[str, dict[str, str]] = {
    "inverted_dice": {
        "heuristic": "agents.inverted_dice:InvertedDiceHeuristic",
        "optimal": "agents.inverted_dice_optimal:OptimalAgent",
    },
    "six_hundred": {
        "heuristic": "agents.six_hundred:SixHundredHeuristic",
    },
    "invers": {
        "greedy": "agents.invers:InversGreedy",
        "search": "agents.invers:InversSearch",
    },
}


#: Where the network shipped for an env lives (a run directory), relative to the repository.
SHIPPED_NETWORK = "checkpoints/{env}/shipped"
NETWORK_AGENTS = ("ppo", "ppo+search")


def shipped_network(env_name: str) -> Path:
    return Path(__file__).resolve().parent.parent / SHIPPED_NETWORK.format(env=env_name)


def bot_names(env_name: str) -> list[str]:
    return ["random", *BOTS.get(env_name, {})]


def parse_spec(spec: str) -> tuple[str, dict[str, object]]:
    """``"search:depth=3,c=1.5"`` -> ``("search", {"depth": 3, "c": 1.5})``."""
    name, _, arguments = spec.partition(":")
    options: dict[str, object] = {}
    for item in filter(None, arguments.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"agent spec {spec!r}: expected key=value options after ':', got {item!r}")
        options[key.strip()] = _parse_value(value.strip())
    return name, options


def _parse_value(text: str) -> object:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def make_agent(env_name: str, spec: str, game: Game, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` for ``game`` (a game of env ``env_name``)."""
    name, options = parse_spec(spec)
    if name == "random":
        if options:
            raise ValueError(f"agent 'random' takes no options, got {options}")
        return RandomAgent(game, seed=seed)
    bots = BOTS.get(env_name, {})
    if name in bots:
        module_name, class_name = bots[name].split(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        return cls(game, seed=seed, **options)
    if name in NETWORK_AGENTS:
        return _network_agent(env_name, name, options, game, seed)
    if Path(spec).exists():
        from agents.trained import TrainedAgent

        return TrainedAgent.load(spec, game, seed=seed)
    raise ValueError(
        f"unknown agent {spec!r} for {env_name}: expected one of {bot_names(env_name)} "
        "or the path of a trained run directory or model .zip"
    )


def _network_agent(env_name: str, name: str, options: dict[str, object], game: Game, seed: int | None) -> Agent:
    from agents.trained import PolicyAgent, load_model

    path = options.pop("path", None)
    path = Path(str(path)) if path is not None else shipped_network(env_name)
    model = load_model(path, game)
    if name == "ppo":
        if options:
            raise ValueError(f"agent 'ppo' takes only path=..., got {options}")
        return PolicyAgent(game, model.policy, deterministic=True, seed=seed)
    from agents.network import PolicyValueNetwork
    from agents.search import SearchAgent

    unknown = set(options) - {"depth", "ms"}
    if unknown:
        raise ValueError(f"agent 'ppo+search' takes depth=, ms= and path=, got {sorted(unknown)}")
    return SearchAgent(game, PolicyValueNetwork(model.policy), seed=seed, **options)
