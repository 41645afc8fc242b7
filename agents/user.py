"""A user's own agent, named on the command line as ``module:attr``.

The rule that tells such a spec from the project's own (``search:depth=3``, a run
folder): the part after the first ``:`` is a Python name (``MyAgent``,
``agents_zoo.Random``: letters, digits, ``_`` and dots, no ``=``), and the part before
it a module path (``my_agents``, ``lab.players``) that is not one of the project's agent
names (``random``, a bot's, ``td``, ``ppo``: :func:`agents.registry.is_user_spec`). A
bot's options always hold ``=``, so a well-formed spec of the project never reads as a
user's, and a malformed one (``search:depth``) stays the bot's, refused for its option.
Options follow after a second ``:``, as for the bots: ``my_agents:Greedy:depth=2,temperature=0.5``.

``attr`` is imported from ``module`` (the current directory is searched after
``sys.path``, so a file ``my_agents.py`` beside the user works from any command) and
called as ``attr(game, seed=seed, **options)``: a class or a factory function. What it
returns follows the agent protocol:

* ``reset(seed)``: a new game starts; reseed any randomness from ``seed``;
* ``act(observation, action_mask) -> int``: the action, legal under ``action_mask``;
* optionally ``act_batch(observations, action_masks) -> actions`` for many games at
  once, each row's action the one ``act`` would choose: the batched env's opponent seats
  and every evaluation (the harness, the ladder, the benchmark) use it when present, and
  play one game at a time without it. An agent whose choices draw on a generator takes a
  third argument, ``rngs`` (one generator per row, each a game's own copy of the agent's
  ``rng``), as :class:`agents.base.Agent` describes.

Subclasses of :class:`agents.base.Agent` follow it already. Anything else is wrapped in
:class:`ProtocolAgent`, so that the project's code sees an ``Agent``. A spec that cannot
be imported, or whose object breaks the protocol, is a ``ValueError`` of one line.
"""

from __future__ import annotations

import copy
import importlib
import os
import re
import sys
from collections.abc import Callable

import numpy as np

from agents.base import Agent
from envs.core import Game

_NAME = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
#: ``module:attr`` with optional ``:key=value,...`` options.
USER_SPEC = re.compile(rf"^(?P<module>{_NAME}):(?P<attr>{_NAME})(?::(?P<options>.*))?$")


def matches_user_spec(spec: str) -> bool:
    """Whether ``spec`` has the form ``module:attr[:options]`` (the registry also rules out the
    project's own agent names as modules: :func:`agents.registry.is_user_spec`)."""
    return USER_SPEC.match(spec) is not None


def split_user_spec(spec: str) -> tuple[str, str, str]:
    """``"lab.players:Greedy:depth=2"`` -> ``("lab.players", "Greedy", "depth=2")``."""
    match = USER_SPEC.match(spec)
    if match is None:
        raise ValueError(f"agent spec {spec!r} is not of the form module:attr[:key=value,...]")
    return match["module"], match["attr"], match["options"] or ""


def load_factory(spec: str) -> Callable:
    """The class or function ``spec`` names (imported, not called), or a one-line ``ValueError``."""
    module_name, attr, _ = split_user_spec(spec)
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.append(here)  # a module beside the user, as `python -m` would find it
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the user's module: any error while importing it is the spec's problem
        raise ValueError(
            f"agent spec {spec!r}: cannot import {module_name!r} ({type(error).__name__}: {error})"
        ) from None
    finally:
        if added:
            sys.path.remove(here)
    target = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ValueError(f"agent spec {spec!r}: module {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"agent spec {spec!r}: {attr!r} is a {type(target).__name__}, not a class or factory")
    return target


def check_protocol(agent: object, source: str) -> None:
    """A one-line ``ValueError`` unless ``agent`` has ``reset(seed)`` and ``act(observation, action_mask)``."""
    missing = [method for method in ("reset", "act") if not callable(getattr(agent, method, None))]
    if missing:
        raise ValueError(
            f"{source} returned {type(agent).__name__}, which lacks {' and '.join(m + '()' for m in missing)}: "
            "an agent needs reset(seed) and act(observation, action_mask)"
        )


class ProtocolAgent(Agent):
    """An object that follows the agent protocol, as an :class:`Agent` (its calls passed on)."""

    def __init__(self, game: Game, inner: object, name: str):
        self.inner = inner
        self.name = name
        self._bind_batch()
        super().__init__(game)

    def _bind_batch(self) -> None:
        if callable(getattr(self.inner, "act_batch", None)):
            self.act_batch = self.inner.act_batch

    def __copy__(self) -> ProtocolAgent:
        """A copy of the user's object too (the game loop copies an agent that draws per row, one per game)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.inner = copy.copy(self.inner)
        clone._bind_batch()
        return clone

    @property
    def rng(self) -> np.random.Generator:
        """The user's object's generator (its ``rng``), handed to its ``act_batch`` as a game's own."""
        return self.inner.rng

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.inner.act(observation, action_mask)


def as_agent(game: Game, agent: object, name: str) -> Agent:
    """``agent`` itself when it is an :class:`Agent`, else wrapped in :class:`ProtocolAgent` (checked first)."""
    if isinstance(agent, Agent):
        return agent
    check_protocol(agent, f"agent spec {name!r}")
    return ProtocolAgent(game, agent, name)


def make_user_agent(spec: str, options: dict[str, object], game: Game, seed: int | None = None) -> Agent:
    """The agent ``spec`` names: ``attr(game, seed=seed, **options)``, checked against the protocol."""
    factory = load_factory(spec)
    try:
        agent = factory(game, seed=seed, **options)
    except TypeError as error:
        raise ValueError(
            f"agent spec {spec!r}: calling it as {split_user_spec(spec)[1]}(game, seed=..., **options) failed: {error}"
        ) from None
    return as_agent(game, agent, spec)
