"""Agents by name: ``random`` for every game, each game's bots, and trained checkpoints.

An agent spec, as typed on the command line, is one of

* ``random``;
* a bot name of that game (``heuristic``, ...), optionally with keyword arguments:
  ``search:depth=3,time_limit=0.5``;
* a path to a trained run directory (or its checkpoint file), whichever pipeline wrote
  it (:func:`load_run`): ``model.zip`` (PPO, expert iteration; :mod:`agents.trained`),
  ``value.pt`` (turn-value TD: the game's ``td`` agent on that network),
  ``rllib_checkpoint.zip`` (RLlib, when Ray is installed: :mod:`agents.rllib`) or
  ``tianshou_policy.pt`` (Tianshou's masked PPO, when Tianshou is installed: :mod:`agents.tianshou`);
* ``td`` (Inverted Dice, Six Hundred, solo Lost Dice, solo Keldice): the game's turn planner against a learned value
  (:mod:`agents.turn_value`), the network shipped in ``checkpoints/<env>/shipped_td/``
  or ``td:path=RUN_DIR``; in Six Hundred ``td:lookahead=k`` ranks the ``k`` best writes of a
  roll again one turn deeper, a decision-time search; solo Lost Dice's ``td`` does so by default
  (its 2 best choices of a throw ranked one throw deeper; ``td:lookahead=0``: the one-ply planner);
* ``ppo``: the network the project ships for that game (``checkpoints/<env>/shipped/``)
  playing alone, or ``ppo+search`` (two-player games of perfect information): the same network inside an
  alpha-beta search (:mod:`agents.search`), e.g. ``ppo+search:ms=8`` or ``ppo+search:depth=3``.
  Both take ``path=RUN_DIR`` to use another trained run;
* ``rollout`` (every game): a base policy improved by rollouts (:mod:`agents.rollout`),
  ``rollout:n=64,base=ppo``; ``base=`` comes last and takes the rest of the spec, so the
  base may be any spec, options and all (``rollout:n=8,base=ppo:path=RUN_DIR``), that
  acts in batch;
* ``openspiel:mcts`` / ``openspiel:ismcts`` (when OpenSpiel is installed): OpenSpiel's MCTS
  (perfect-information games) or information-set MCTS (Roll Five) over the game's explicit
  chance nodes (:mod:`agents.openspiel`), e.g. ``openspiel:mcts,simulations=200``: the
  algorithm first, then its options;
* ``module:attr`` (``my_agents:Greedy``, ``lab.players:make_agent:depth=2``): a user's own
  agent, a class or factory called as ``attr(game, seed=seed, **options)`` whose object
  follows the agent protocol (``reset(seed)``, ``act(observation, action_mask)``):
  :mod:`agents.user`, which also states the rule that tells it from the specs above.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import agents.rllib  # noqa: F401 (registers the loader of RLlib runs)
import agents.tianshou  # noqa: F401 (registers the loader of Tianshou runs)
from agents.base import Agent, RandomAgent
from agents.run_folder import (
    MODEL_FILE,
    VALUE_FILE,
    CheckpointError,
    RunLoader,
    checkpoint_file,
    register_loader,
    run_loader,
)
from agents.shipped import shipped_envs, shipped_network
from agents.trained import PolicyAgent, load_model
from agents.user import load_factory, make_user_agent, matches_user_spec, split_user_spec
from envs.core import Game
from envs.registry import get_entry

#: Bots of each game: name -> ``"module:Class"``; every class takes ``(game, seed=None, **options)``.
BOTS: dict[str, dict[str, str]] = {
    "inverted_dice": {
        "heuristic": "agents.inverted_dice.heuristic:InvertedDiceHeuristic",
        "optimal": "agents.inverted_dice.optimal:OptimalAgent",
    },
    "six_hundred": {
        "heuristic": "agents.six_hundred.heuristic:SixHundredHeuristic",
    },
    "invers": {
        "greedy": "agents.invers.greedy:InversGreedy",
        "search": "agents.invers.search:InversSearch",
    },
    "roll_five": {
        "heuristic": "agents.roll_five.heuristic:RollFiveHeuristic",
        "search": "agents.roll_five.search:RollFiveSearch",
    },
    "lost_dice": {
        "heuristic": "agents.lost_dice.heuristic:LostDiceHeuristic",
        "search": "agents.lost_dice.search:LostDiceSearch",
    },
    "keldice": {
        "heuristic": "agents.lost_dice.heuristic:LostDiceHeuristic",
        "search": "agents.lost_dice.search:LostDiceSearch",
    },
}


#: Turn-value agents (``td``: a game's turn planner against a value network trained by
#: ``training/train_td.py``), by game; ``td`` plays the network shipped in
#: ``checkpoints/<env>/shipped_td/``, ``td:path=RUN_DIR`` any other run's.
TURN_VALUE_AGENTS: dict[str, str] = {
    "inverted_dice": "agents.inverted_dice.td:InvertedDiceTD",
    "lost_dice": "agents.lost_dice.td:LostDiceTD",
    "keldice": "agents.lost_dice.td:KeldiceTD",
    "six_hundred": "agents.six_hundred.td:SixHundredTD",
}

#: Games the project solves exactly, alone at the table: ``"module:function"``, called as
#: ``function(game)`` for the expected final score of optimal play from the start and where it
#: comes from, in words (:func:`exact_optimum`; a benchmark task's reference where there is one).
EXACT_OPTIMA: dict[str, str] = {
    "inverted_dice": "agents.inverted_dice.solver:exact_optimum",
}

#: Agents that play the network shipped for a game (:func:`agents.shipped.shipped_network`).
NETWORK_AGENTS = ("ppo", "ppo+search")

#: The rollout agent's name, the same for every game, and its class (``rollout:n=...,base=...``).
ROLLOUT = "rollout"
ROLLOUT_AGENT = "agents.rollout:RolloutAgent"
#: OpenSpiel's searches, for every game: ``openspiel:ALGORITHM,option=value,...``.
OPENSPIEL = "openspiel"
OPENSPIEL_AGENT = "agents.openspiel:OpenSpielAgent"
#: In a rollout spec, the option that takes the rest of the spec: the base's own spec.
_BASE_OPTION = "base="


def project_agent_names() -> set[str]:
    """Every name the project's own specs start with: ``random``, each game's bots, ``td``, the
    network agents, ``rollout``."""
    return {"random", *(name for bots in BOTS.values() for name in bots), "td", *NETWORK_AGENTS, ROLLOUT, OPENSPIEL}


def is_user_spec(spec: str) -> bool:
    """Whether ``spec`` names a user's agent, ``module:attr[:options]`` (:mod:`agents.user`):
    its form, and a module that is not named like one of the project's agents, so that
    ``search:depth`` stays the search bot with a malformed option."""
    return matches_user_spec(spec) and spec.partition(":")[0] not in project_agent_names()


def bot_names(env_name: str) -> list[str]:
    return ["random", *BOTS.get(env_name, {})]


def agent_names(env_name: str) -> list[str]:
    """The names a spec for ``env_name`` can start with, as the unknown-agent error lists them:
    the bots, the turn-value agent where there is one, and the networks (``ppo+search`` where
    the game's states can be rebuilt from observations, so that a search can look ahead)."""
    game_class = get_entry(env_name).game_class()
    searchable = game_class.state_from_observation is not Game.state_from_observation
    return [
        *bot_names(env_name),
        *(["td"] if env_name in TURN_VALUE_AGENTS else []),
        *(name for name in NETWORK_AGENTS if name == "ppo" or searchable),
    ]


def exact_optimum(env_name: str, game: Game) -> tuple[float, str] | None:
    """The expected final score of optimal play of the one-player ``game`` and where it comes from,
    in words, where the project solves ``env_name`` exactly (:data:`EXACT_OPTIMA`); else None."""
    if env_name not in EXACT_OPTIMA or game.num_players != 1:
        return None
    module_name, function = EXACT_OPTIMA[env_name].split(":")
    return getattr(importlib.import_module(module_name), function)(game)


def parse_spec(spec: str) -> tuple[str, dict[str, object]]:
    """``"search:depth=3,c=1.5"`` -> ``("search", {"depth": 3, "c": 1.5})``; a user's agent
    keeps its ``module:attr`` as the name: ``"my_agents:Greedy:depth=2"`` -> ``("my_agents:Greedy", {"depth": 2})``;
    a rollout's ``base=`` takes the rest of the spec as it is written:
    ``"rollout:n=8,base=ppo:path=runs/a"`` -> ``("rollout", {"n": 8, "base": "ppo:path=runs/a"})``;
    an OpenSpiel agent's algorithm comes first, bare:
    ``"openspiel:mcts,simulations=50"`` -> ``("openspiel", {"algorithm": "mcts", "simulations": 50})``."""
    if is_user_spec(spec):
        module, attr, arguments = split_user_spec(spec)
        name = f"{module}:{attr}"
    else:
        name, _, arguments = spec.partition(":")
    options: dict[str, object] = {}
    if name == ROLLOUT:
        arguments, base = _split_base(arguments)
        if base is not None:
            options["base"] = base
    if name == OPENSPIEL:
        algorithm, _, rest = arguments.partition(",")
        if algorithm and "=" not in algorithm:
            options["algorithm"], arguments = algorithm.strip(), rest
    for item in filter(None, arguments.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"agent spec {spec!r}: expected key=value options after ':', got {item!r}")
        options[key.strip()] = _parse_value(value.strip())
    return name, options


def _split_base(arguments: str) -> tuple[str, str | None]:
    """A rollout's options as ``(the options before base=, the base's spec)`` (None: no base given)."""
    if arguments.startswith(_BASE_OPTION):
        return "", arguments[len(_BASE_OPTION) :]
    before, found, base = arguments.partition("," + _BASE_OPTION)
    return (before, base) if found else (arguments, None)


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
    if name in NETWORK_AGENTS:
        return _network_agent(env_name, name, options, game, seed)
    if is_user_spec(spec):
        return make_user_agent(spec, options, game, seed)
    cls, options = _agent_class(env_name, spec)
    if cls is None:
        return load_run(env_name, spec, game, seed=seed)
    check_spec(env_name, spec)  # an option the agent does not take is named with those it does
    return cls(game, seed=seed, **options)


def load_run(env_name: str, path: str | Path, game: Game, seed: int | None = None) -> Agent:
    """The trained agent of a run folder (or its checkpoint file), whichever pipeline wrote it.

    The loader registered for its kind of run (:func:`agents.run_folder.run_loader`):
    ``model.zip`` (PPO, expert iteration): the policy alone (:class:`agents.trained.TrainedAgent`);
    ``value.pt`` (turn-value TD): the game's ``td`` agent on that network;
    ``rllib_checkpoint.zip`` (RLlib): :class:`agents.rllib.RLlibAgent`, which needs Ray;
    ``tianshou_policy.pt`` (Tianshou): :class:`agents.tianshou.TianshouAgent`, which needs Tianshou.
    """
    return run_loader(path).load(env_name, Path(path), game, seed)


def _load_turn_value_run(env_name: str, path: Path, game: Game, seed: int | None) -> Agent:
    """The game's ``td`` agent on the value network of a turn-value run."""
    if env_name not in TURN_VALUE_AGENTS:
        raise CheckpointError(
            f"checkpoint {path} is a turn-value run ({VALUE_FILE}), but {env_name} has no turn-value agent "
            f"(those of: {', '.join(sorted(TURN_VALUE_AGENTS))})"
        )
    module_name, class_name = TURN_VALUE_AGENTS[env_name].split(":")
    return getattr(importlib.import_module(module_name), class_name)(game, seed=seed, path=str(path))


# Beside the games' turn-value agents, which it needs (agents.turn_value, their base, imports torch: not on import).
register_loader(
    RunLoader(
        "turn-value TD",
        ("td",),  # training/train_td.py
        VALUE_FILE,
        _load_turn_value_run,
        suffixes=(".pt",),
        plays=lambda env: env in TURN_VALUE_AGENTS,
    )
)


def opponent_by_name(game: Game, spec: str) -> Agent:
    """The agent ``spec`` names, as an opponent in ``game`` (the env's own game object).

    The package declares this as the bots' names of :mod:`envs.opponents` (an entry point), so that the Gymnasium
    envs take ``opponents="heuristic"``: envs, below agents, cannot import it.
    """
    return make_agent(game.name, spec, game)


def check_spec(env_name: str, spec: str) -> None:
    """Raise the ``ValueError`` that :func:`make_agent` would for an unknown agent or option,
    without building the agent (no solve, no model load): a config is checked up front."""
    name, options = parse_spec(spec)
    if name in NETWORK_AGENTS:
        _check_network_options(name, options)
        return
    cls, options = (load_factory(spec), options) if is_user_spec(spec) else _agent_class(env_name, spec)
    if cls is None:
        return
    if name == ROLLOUT and isinstance(options.get("base"), str):
        check_spec(env_name, options["base"])
    arguments = {"seed": None} if is_user_spec(spec) else {}  # a user's factory is always given the seed
    try:
        inspect.signature(cls).bind(None, **arguments, **options)
    except TypeError as error:
        accepted = [p for p in inspect.signature(cls).parameters if p not in ("game", "seed")]
        raise ValueError(
            f"agent spec {spec!r}: {error}; {getattr(cls, '__name__', spec)} options: {accepted}"
        ) from None


def preparation_time(env_name: str, spec: str) -> str | None:
    """How long the first build of the agent ``spec`` may take, as its class states it
    (``preparation``: the exact solver's first solve, "about 2 min"); None where it says nothing."""
    try:
        cls, _ = _agent_class(env_name, spec)
    except ValueError:
        return None  # a network agent, a user's: nothing declared
    return getattr(cls, "preparation", None)


def _agent_class(env_name: str, spec: str) -> tuple[type[Agent] | None, dict[str, object]]:
    """The class and options ``spec`` names; ``(None, {})`` for the path of a trained run."""
    name, options = parse_spec(spec)
    if name == "random":
        if options:
            raise ValueError(f"agent 'random' takes no options, got {options}")
        return RandomAgent, {}
    classes = {
        **BOTS.get(env_name, {}),
        **({"td": TURN_VALUE_AGENTS[env_name]} if env_name in TURN_VALUE_AGENTS else {}),
        ROLLOUT: ROLLOUT_AGENT,
        OPENSPIEL: OPENSPIEL_AGENT,
    }
    if name in classes:
        module_name, class_name = classes[name].split(":")
        return getattr(importlib.import_module(module_name), class_name), options
    if Path(spec).exists():
        return None, {}
    raise ValueError(
        f"unknown agent {spec!r} for {env_name}: expected one of {agent_names(env_name)}, "
        "rollout:n=...,base=..., openspiel:ALGORITHM, "
        "the path of a trained run directory or model .zip, or a module:attr of your own"
    )


def _check_network_options(name: str, options: dict[str, object]) -> None:
    accepted = {"path"} if name == "ppo" else {"path", "depth", "ms"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ValueError(f"agent {name!r} takes {sorted(accepted)}, got {unknown}")


def _network_agent(env_name: str, name: str, options: dict[str, object], game: Game, seed: int | None) -> Agent:
    _check_network_options(name, options)
    options = dict(options)
    path = options.pop("path", None)
    if path is None:
        path = shipped_network(env_name, num_players=game.num_players)
        if not checkpoint_file(path, MODEL_FILE).is_file():
            raise CheckpointError(
                f"no network is shipped for {env_name} "
                f"(networks are shipped for {', '.join(shipped_envs()) or 'no env'}); "
                f"train one with `python training/train.py --env {env_name}` "
                f"and play it as {name}:path=checkpoints/{env_name}/<run>"
            )
    model = load_model(Path(str(path)), game)
    if name == "ppo":
        return PolicyAgent(game, model.policy, deterministic=True, seed=seed)
    from agents.network import PolicyValueNetwork  # noqa: PLC0415 (torch: loaded when a network agent is made, not for bots)
    from agents.search import SearchAgent  # noqa: PLC0415 (imports agents.network, and torch with it)

    return SearchAgent(game, PolicyValueNetwork(model.policy), seed=seed, **options)
