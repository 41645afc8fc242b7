"""Opponents given by name: the hook through which the agents layer lends envs its bots.

``SingleAgentEnv(opponents=...)`` takes policies: objects with ``act(observation,
action_mask) -> int``. It also takes a bot's *name*, ``opponents="heuristic"``, but the
bots live in ``agents``, which is built on envs, so envs may not import it (not even
inside a function: that is an upward arrow all the same, and ``import envs`` would
quietly load every bot). Instead envs declares this hook and the layer that knows the
names plugs into it, as a plugin: the package declares
:func:`agents.registry.opponent_by_name` in the entry-point group
:data:`RESOLVER_GROUP` (``pyproject.toml``), and the first bot name an env is given loads
it. So a name works in a fresh interpreter, whatever was imported::

    import gymnasium, envs   # registers the Gymnasium ids
    env = gymnasium.make("InvertedDice-v1", num_players=2, opponents="heuristic")

:func:`register` puts another resolver in its place (a test, or a package of one's own
bots). Where no installed package declares one (a source tree used without installing
it), a name is a ``ValueError`` that says so; policy objects work either way. The
Gymnasium ids stay registered by envs with envs' own entry points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any, Protocol

import numpy as np

from envs.core import Game


class Policy(Protocol):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


#: Turns ``(game, name)`` into the policy the name stands for in that game, or raises
#: ``ValueError`` naming the known names.
Resolver = Callable[[Game, str], Policy]

#: The entry-point group in which a package declares its :data:`Resolver`.
RESOLVER_GROUP = "tabletop_dice_rl.opponents"

_resolver: Resolver | None = None


def register(resolver: Resolver | None) -> Resolver | None:
    """Make ``resolver`` the one that turns opponent names into policies; returns the one
    it replaces. ``None`` unregisters (names are then refused)."""
    global _resolver
    previous, _resolver = _resolver, resolver
    return previous


def resolve(game: Game, name: str) -> Policy:
    """The policy ``name`` stands for in ``game``, from the registered resolver, else the declared one."""
    resolver = _resolver or declared_resolver()
    if resolver is None:
        raise ValueError(
            f"{name!r} is a bot name, but no installed package declares bot names (entry-point group "
            f"{RESOLVER_GROUP!r}): install the project (pip install .), "
            "or pass an object with act(observation, action_mask)"
        )
    return resolver(game, name)


def declared_resolver() -> Resolver | None:
    """The resolver an installed package declares in :data:`RESOLVER_GROUP` (the first by
    name, loaded once and then registered), or None when no package declares one."""
    global _resolver
    declared = sorted(entry_points(group=RESOLVER_GROUP), key=lambda point: point.name)
    if declared:
        _resolver = declared[0].load()
    return _resolver


#: What the ``opponents`` option of the Gymnasium envs takes, for their error messages.
OPPONENTS_EXPECTED = (
    'None (random), a bot name such as "heuristic", an object with act(observation, action_mask), '
    "or a list of those (one per other seat)"
)

_SIGNATURES = {"act": "act(observation, action_mask)", "act_batch": "act_batch(observations, action_masks)"}


def opponent_list(game: Game, opponents: Any, count: int, methods: Sequence[str] = ("act",)) -> list:
    """A Gymnasium env's ``opponents`` option as one policy per other seat (``None``: random).

    ``opponents`` is ``None``, a policy (an object with one of ``methods``), a bot's name
    (resolved once per seat: each seat gets its own bot, with its own generator), or a
    list of those with one entry per other seat. Anything else is a ``TypeError`` or a
    ``ValueError`` naming the problem.
    """

    def is_policy(candidate) -> bool:
        return any(hasattr(candidate, method) for method in methods)

    if opponents is None or is_policy(opponents):
        return [opponents] * count
    if isinstance(opponents, str):
        return [_named(game, opponents) for _ in range(count)]
    try:
        opponents = list(opponents)
    except TypeError:
        raise TypeError(f"opponents must be {OPPONENTS_EXPECTED}, got {opponents!r}") from None
    if len(opponents) != count:
        raise ValueError(f"expected {count} opponent policies (one per other seat), got {len(opponents)}")
    policies = []
    for opponent in opponents:
        if isinstance(opponent, str):
            opponent = _named(game, opponent)
        elif opponent is not None and not is_policy(opponent):
            wanted = " or ".join(_SIGNATURES[method] for method in methods)
            raise TypeError(
                f"each opponent must be None (random), a bot name or an object with {wanted}, got {opponent!r}"
            )
        policies.append(opponent)
    return policies


def _named(game: Game, spec: str) -> Policy:
    """The bot named ``spec`` (an agent spec such as ``"heuristic"`` or ``"search:depth=2"``)."""
    try:
        return resolve(game, spec)
    except ValueError as error:
        raise ValueError(f"opponents: {error}") from None
