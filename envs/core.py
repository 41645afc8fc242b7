"""The rules-core interface that every game implements, and nothing else.

A game is two small classes, in the manner of OpenSpiel and pgx:

* a :class:`Game` declares the facts of one game under fixed options (players, number
  of distinct actions, observation shape and bounds, score range, longest possible
  game) and creates states;
* a :class:`GameState` is one game in progress. It knows the rules: who must act, which
  actions are legal, what an action does, what each player sees, the scores and the
  outcome. It knows nothing of Gymnasium or PettingZoo.

The shared adapters (:mod:`envs.aec`, :mod:`envs.parallel`, :mod:`envs.single_agent`) turn any game into the
ecosystem's APIs, so the interface covers every shape of turn our games have:

* **Sequential turns**: ``acting_players()`` holds one player.
* **Simultaneous moves** (Roll Five): ``acting_players()`` holds every player who has
  still to commit; each commits with ``apply(player, action)`` and the state resolves
  the round when the last one has. No player's observation shows another's pending
  choice, so the AEC form (one agent after another) and the Parallel form agree.
* **Decisions out of the usual turn order** (Lost Dice's offer): the state simply names
  the deciding player in ``acting_players()``.
* **Chance** (dice, shuffled cards): the state draws it from the ``numpy`` generator it
  was created with, and from nothing else, so the same seed gives the same game.
* **Explicit chance** (optional, for OpenSpiel and exact search): a state made by
  ``Game.new_chance_state()`` stops at every chance event instead of drawing it:
  ``is_chance_node()`` is true, ``chance_outcomes()`` lists the outcome ids with their
  exact probabilities, and ``apply_chance(outcome)`` resolves it. The rules queue an event
  with :meth:`GameState._draws_chance` and resolve it with the same method on both paths,
  the seeded one and the explicit one, so every rule exists once.
* **Hidden information** (Roll Five's cards): ``observe(player)`` shows only what that
  player may see, and ``render_for(player)`` draws only that (``render()`` draws the
  whole table).

Beyond the rules, every state offers what search and multi-agent learners ask for, each
with a default that fits most games:

* **A global state** (``state_tensor()``, PettingZoo's ``state()``): by default every
  seat's observation side by side, which is full information and Markov when, as here,
  each player's observation covers their own part of the position.
* **Chance for search** (``clone_resampled(rng)``): a copy whose chance still to come is
  drawn afresh, so a look-ahead cannot peek at the real future dice or cards. Every game
  implements it (a game without chance returns ``clone()``).
* **A state from a player's view** (``Game.sample_state(observation, rng)``): a full state
  consistent with what the player to act sees, its hidden part and its chance to come
  drawn from ``rng``, for rollouts that only have an agent's observation.
* **A canonical key** (``key()``, behind ``==`` and ``hash``) for transposition tables.
* **Action names both ways**: ``game.action_from_name(game.action_name(a)) == a``.
"""

from __future__ import annotations

import abc
from collections.abc import Hashable
from typing import Any, ClassVar, NamedTuple

import numpy as np


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state, or a wrong seat."""


#: Stands where a state's constructor takes its chance (a dice tape, a deal) to make a
#: state that plays chance explicitly (:meth:`Game.new_chance_state`).
EXPLICIT_CHANCE = "explicit chance"


class ChanceOutcomes(NamedTuple):
    """The outcomes of one chance event and their exact probabilities."""

    outcomes: tuple[int, ...]  #: outcome ids, ascending, within ``range(game.max_chance_outcomes)``
    probabilities: tuple[float, ...]  #: exact, in the order of ``outcomes``; they add up to 1
    values: tuple  #: what the rules take for each outcome: a sorted roll, a card, a throw id
    names: tuple[str, ...]  #: a human-readable name of each outcome, e.g. ``"roll 1,1,4"``


class ChanceEvent(NamedTuple):
    """A chance event the rules wait for in a state that plays chance explicitly."""

    distribution: ChanceOutcomes
    #: Name of the state's method that puts an outcome on the table, called as
    #: ``resolve(value, *args)``: the same method the seeded path calls with its draw.
    resolve: str
    args: tuple = ()


class Game(abc.ABC):
    """The declared facts of a game under fixed options, and the factory of its states.

    Subclasses set the class attributes and, in ``__init__``, the instance attributes
    ``num_actions``, ``observation_shape`` and ``max_game_length`` (which may depend on
    the number of players and the options).
    """

    #: Short snake_case name, the key used by the registry, configs and the CLI.
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]

    #: Render modes the states support: "ansi" and "human" always (``render()``), and
    #: "rgb_array" for games whose states implement ``render_rgb()``.
    render_modes: ClassVar[tuple[str, ...]] = ("ansi", "human")

    #: True when every round is played simultaneously: all acting players commit without
    #: seeing each other's choice, and ``observe`` never shows a pending one. The adapters
    #: read it: such a game gets the Parallel API (:mod:`envs.parallel`) and its AEC env
    #: is marked ``is_parallelizable``.
    simultaneous: ClassVar[bool] = False

    #: True when a player cannot see part of the position (Roll Five's cards and rolls):
    #: ``observe`` and ``render_for`` then hide it. The OpenSpiel adapter reads it to declare
    #: perfect or imperfect information.
    hidden_information: ClassVar[bool] = False

    num_actions: int
    observation_shape: tuple[int, ...]
    #: How many distinct chance outcome ids the game has (OpenSpiel's
    #: ``max_chance_outcomes``); 0 for a game without chance.
    max_chance_outcomes: int = 0
    #: The most actions (all players together) a game can take; adapters size buffers
    #: and sanity checks with it.
    max_game_length: int

    def __init__(self, num_players: int | None = None) -> None:
        if num_players is None:
            num_players = self.default_players
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise TypeError(f"{self.name}: num_players must be an integer, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            allowed = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"between {self.min_players} and {self.max_players}"
            )
            raise ValueError(f"{self.name}: num_players must be {allowed}, got {num_players}")
        self.num_players = int(num_players)

    @abc.abstractmethod
    def new_initial_state(self, rng: np.random.Generator) -> GameState:
        """A new game whose chance events all come from ``rng``."""

    def new_chance_state(self) -> GameState:
        """A new game that stops at every chance event instead of drawing it (see
        :meth:`GameState.chance_outcomes`): what OpenSpiel and exact expectimax need.

        Games with chance override it; a game without chance plays as it always does.
        """
        if self.max_chance_outcomes:
            raise NotImplementedError(f"{self.name}: new_chance_state() is not implemented")
        return self.new_initial_state(np.random.default_rng(0))

    @abc.abstractmethod
    def action_name(self, action: int) -> str:
        """A human-readable name of an action id, e.g. ``"reroll dice 1,3"``."""

    @abc.abstractmethod
    def options(self) -> dict[str, Any]:
        """The keyword arguments that recreate this game (recorded with every run)."""

    def state_from_observation(self, observation: np.ndarray) -> GameState:
        """The full state behind a player's observation, in games whose observations
        determine it (perfect information, no pending chance): what search agents need.

        The default raises; a game whose observation shows everything overrides it.
        """
        raise NotImplementedError(
            f"{self.name}: an observation does not determine the state, so search cannot rebuild it"
        )

    def sample_state(self, observation: np.ndarray, rng: np.random.Generator) -> GameState:
        """A full state that the player to act could be in, given only their observation: a
        *determinization*, what a rollout agent plays on.

        ``observation`` is that of a player who is to act; in the state returned that player
        is the first of ``acting_players()`` and ``observe`` shows them exactly
        ``observation``. Everything the observation shows is kept; only what it cannot show
        is drawn from ``rng``: the chance still to come (dice not yet rolled) and what is
        hidden from that player (other players' cards, the details of a score sheet that
        the observation sums up). Calls with one generator give independent samples.

        The default, for games whose observation determines the state and which have no
        chance, is :meth:`state_from_observation`; a game with chance or hidden information
        overrides it.
        """
        return self.state_from_observation(observation)

    def _observation_array(self, observation: np.ndarray) -> np.ndarray:
        """``observation`` as an array, or a one-line ``ValueError`` if it has another shape than the game's."""
        array = np.asarray(observation)
        if array.shape != self.observation_shape:
            raise ValueError(f"{self.name}: an observation has shape {self.observation_shape}, got {array.shape}")
        return array

    def symmetries(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The game's symmetries other than the identity, for data augmentation.

        Each is ``(observation_index, action_index)``: integer arrays such that the
        transformed position's observation is ``observation[observation_index]`` and its
        action ``a`` is the original's action ``action_index[a]`` (so a policy or mask
        maps as ``policy[action_index]``). A symmetry maps any position to one with the
        same value for every player. The default is none.
        """
        return []

    def observation_bounds(self) -> tuple[float, float]:
        """Lower and upper bound of every observation entry."""
        return 0.0, 1.0

    @property
    def state_shape(self) -> tuple[int, ...]:
        """Shape of :meth:`GameState.state_tensor`: by default every seat's observation, flat."""
        return (self.num_players * int(np.prod(self.observation_shape)),)

    def state_bounds(self) -> tuple[float, float]:
        """Lower and upper bound of every state entry (by default the observation's)."""
        return self.observation_bounds()

    def action_from_name(self, name: str) -> int:
        """The action id whose :meth:`action_name` is exactly ``name`` (its inverse).

        For text interfaces, logs and replays. The table of all names is built on first
        use; an unknown name raises :class:`IllegalActionError` with examples of valid ones.
        """
        ids = self.__dict__.get("_action_ids")
        if ids is None:
            ids = {}
            for action in range(self.num_actions):
                label = self.action_name(action)
                if label in ids:
                    raise ValueError(f"{self.name}: actions {ids[label]} and {action} are both named {label!r}")
                ids[label] = action
            self._action_ids = ids
        try:
            return ids[name]
        except (KeyError, TypeError):
            examples = ", ".join(repr(self.action_name(a)) for a in (0, self.num_actions - 1))
            raise IllegalActionError(f"{self.name}: no action is named {name!r}; names look like {examples}") from None

    def score_bounds(self) -> tuple[float, float]:
        """Lower and upper bound of every player's score, at every moment of every game.

        A declared fact, like OpenSpiel's utility range, that every game states from its
        rules: it bounds each entry of :meth:`GameState.scores` (the running points, not
        only the final ones) in any game played from :meth:`new_initial_state`. The fuzz
        tests (``tests/fuzz.py``) check every state they reach against it.
        """
        raise NotImplementedError(f"{self.name}: the game declares no score_bounds()")

    def check_action(self, action: Any) -> int:
        """``action`` as an ``int`` action id, or a clear error naming the problem."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = int(action)
            else:
                raise IllegalActionError(f"{self.name}: an action must be an integer id, got {action!r}")
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"{self.name}: action {action} is outside the action space 0..{self.num_actions - 1}"
            )
        return int(action)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        return f"{type(self).__name__}({opts})"


class Children(NamedTuple):
    """The positions one player's legal actions lead to (:meth:`GameState.children`)."""

    actions: np.ndarray  #: the legal action ids, ascending
    observations: np.ndarray  #: each child seen by its player to act (zeros where decided)
    movers: np.ndarray  #: each child's player to act, -1 where the game is over
    masks: np.ndarray  #: each child's legal mask of its player to act (zeros where decided)
    outcomes: np.ndarray  #: the moving player's return where the game is over, NaN elsewhere


class GameState(abc.ABC):
    """One game in progress. Mutable; ``clone()`` gives an independent copy."""

    game: Game
    #: Chance events still to resolve, oldest first, in a state from
    #: :meth:`Game.new_chance_state`; None in a state that draws its chance (the default).
    _chance_queue: list[ChanceEvent] | None = None

    def is_chance_node(self) -> bool:
        """True while a chance event waits for :meth:`apply_chance` (explicit chance only);
        no player may act until it is resolved."""
        return bool(self._chance_queue)

    def chance_outcomes(self) -> ChanceOutcomes:
        """The pending chance event's outcomes and their exact probabilities."""
        if not self._chance_queue:
            raise ValueError(f"{self.game.name}: no chance event is pending")
        return self._chance_queue[0].distribution

    def apply_chance(self, outcome: int) -> None:
        """Resolve the pending chance event with outcome id ``outcome``."""
        distribution = self.chance_outcomes()
        try:
            index = distribution.outcomes.index(outcome)
        except ValueError:
            raise IllegalActionError(
                f"{self.game.name}: {outcome!r} is not an outcome of the pending chance event "
                f"(outcomes {distribution.outcomes[0]}..{distribution.outcomes[-1]})"
            ) from None
        event = self._chance_queue.pop(0)
        getattr(self, event.resolve)(distribution.values[index], *event.args)

    def with_explicit_chance(self) -> GameState:
        """A copy that plays the chance still to come explicitly: the switch from a seeded
        state (e.g. one from ``Game.sample_state``) to a searchable one. Call it where no
        chance event is pending, as at every decision."""
        other = self.clone()
        other._chance_queue = self._chance_queue[:] if self._chance_queue is not None else []
        return other

    def _draws_chance(self, distribution: ChanceOutcomes, resolve: str, *args) -> bool:
        """Whether the rules draw this chance event now from their generator or tape (True,
        the seeded path: the caller then calls ``resolve`` with the draw), or, in a state that
        plays chance explicitly, leave it queued for :meth:`apply_chance` (False)."""
        if self._chance_queue is None:
            return True
        self._chance_queue.append(ChanceEvent(distribution, resolve, args))
        return False

    @abc.abstractmethod
    def acting_players(self) -> tuple[int, ...]:
        """The players who must act now (empty once the game is over)."""

    @abc.abstractmethod
    def legal_mask(self, player: int) -> np.ndarray:
        """``int8`` array of ``num_actions`` entries, 1 where ``player`` may act so.

        All zeros for a player who is not to act. The caller may keep the array: it is
        either fresh or read-only.
        """

    @abc.abstractmethod
    def apply(self, player: int, action: int) -> None:
        """Play ``action`` for ``player``; raise :class:`IllegalActionError` if illegal."""

    @abc.abstractmethod
    def observe(self, player: int) -> np.ndarray:
        """``float32`` array of ``game.observation_shape``: what ``player`` sees."""

    @abc.abstractmethod
    def scores(self) -> np.ndarray:
        """Running points of every player (``float64``); score rewards are its increments."""

    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """True once the game has ended by its rules (or by truncation)."""

    def is_truncated(self) -> bool:
        """True when the game was cut short by a length limit rather than by its rules."""
        return False

    def returns(self) -> np.ndarray:
        """Outcome per player once the game is over: +1 win, -1 loss, 0 draw.

        The default reads the outcome off the final scores (see :func:`outcome_from_scores`).
        """
        return outcome_from_scores(self.scores())

    @abc.abstractmethod
    def render(self) -> str:
        """A text picture of the state that a player of the physical game would recognise.

        The whole table, as a spectator (or the env's ``render()``) sees it, hidden
        cards and pending rolls included; :meth:`render_for` is one seat's view.
        """

    def render_for(self, player: int) -> str:
        """The text picture as ``player`` may see it: what :meth:`observe` shows that player
        and nothing it hides, for a person playing that seat (``training/play.py``).

        The default is :meth:`render`, right for every game in which all players see the
        whole table; a game with hidden information overrides it.
        """
        return self.render()

    def render_rgb(self) -> np.ndarray:
        """An ``(height, width, 3)`` ``uint8`` picture, for games with "rgb_array" rendering."""
        raise NotImplementedError(f"{self.game.name} has no rgb_array rendering")

    @abc.abstractmethod
    def clone(self) -> GameState:
        """An independent copy (sharing nothing mutable) that continues exactly as this one.

        The copy keeps the chance to come (the same dice will fall), which suits replays
        and tests; a search must use :meth:`clone_resampled` instead.
        """

    def clone_resampled(self, rng: np.random.Generator) -> GameState:
        """An independent copy whose chance events still to come are drawn from ``rng``.

        What is on the table stays; only the future (dice not yet rolled, cards not yet
        dealt) is redrawn, so an expectimax or MCTS look-ahead samples futures instead of
        seeing the real one. A game without chance returns :meth:`clone`. Every game must
        implement it: there is no safe default.
        """
        raise NotImplementedError(f"{self.game.name}: clone_resampled() is not implemented")

    def children(self, player: int) -> Children:
        """Every legal action of ``player`` and what a search needs of the position after
        it, for games whose moves have no chance outcome (the default clones and applies;
        a game may compute all the children at once, which is the search's hot path).
        """
        actions = np.flatnonzero(self.legal_mask(player))
        observations = np.zeros((len(actions), *self.game.observation_shape), np.float32)
        movers = np.full(len(actions), -1, np.intp)
        masks = np.zeros((len(actions), self.game.num_actions), np.int8)
        outcomes = np.full(len(actions), np.nan)
        for i, action in enumerate(actions.tolist()):
            child = self.clone()
            child.apply(player, action)
            if child.is_terminal():
                outcomes[i] = child.returns()[player]
                continue
            acting = child.acting_players()
            if len(acting) != 1:
                raise ValueError(
                    f"{self.game.name}: children() needs one player to act after a move, got {list(acting)}"
                )
            movers[i] = acting[0]
            observations[i] = child.observe(acting[0])
            masks[i] = child.legal_mask(acting[0])
        return Children(actions, observations, movers, masks, outcomes)

    def state_tensor(self) -> np.ndarray:
        """``float32`` array of ``game.state_shape``: the whole position (PettingZoo ``state()``).

        Full information and Markov: together with the chance still to come it decides
        the rest of the game. The default stacks every seat's observation, seat 0 first,
        which is enough when each player's observation covers their own part of the
        position; a game whose observations leave something out overrides it (and
        ``Game.state_shape``). Entries lie within ``game.state_bounds()``.
        """
        return np.concatenate([self.observe(p).ravel() for p in range(self.game.num_players)])

    def key(self) -> Hashable:
        """A canonical key of the position, equal for states that play on identically.

        Behind ``==`` and ``hash()``, for transposition tables. The chance still to come
        is not part of it. The default is the bytes of :meth:`state_tensor`; games may
        override it with something cheaper. A state's key changes as it is played, so a
        table should hold clones (or keys), not states still in play.
        """
        return self.state_tensor().tobytes()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return type(self) is type(other) and self.game.options() == other.game.options() and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def stats(self, player: int) -> dict[str, float]:
        """Per-player episode statistics that evaluation summarises (e.g. bonus rates)."""
        return {}

    def illegal_action_error(self, player: int, action: Any) -> IllegalActionError | None:
        """The error explaining why ``player`` may not play ``action`` now (None if legal).

        Games validate on a fast path of their own and call this only to word the error.
        """
        try:
            action = self.game.check_action(action)
        except IllegalActionError as error:
            return error
        name = self.game.name
        if player not in self.acting_players():
            if self.is_terminal():
                return IllegalActionError(f"{name}: the game is over; no action is legal")
            return IllegalActionError(
                f"{name}: player {player!r} is not to act (acting: {list(self.acting_players())})"
            )
        mask = self.legal_mask(player)
        if mask[action]:
            return None
        legal = np.flatnonzero(mask)
        names = ", ".join(f"{a} ({self.game.action_name(int(a))})" for a in legal[:12])
        more = " ..." if len(legal) > 12 else ""
        return IllegalActionError(
            f"{name}: action {action} ({self.game.action_name(action)}) is illegal for "
            f"player {player} now; legal: {names}{more}"
        )


def outcome_from_scores(scores: np.ndarray) -> np.ndarray:
    """+1 / -1 / 0 from final scores: the highest total wins and equal totals share.

    Every player with the top score gets +1 and everybody else -1, except when all
    players are level: then it is a draw and everyone gets 0. So two players with equal
    totals draw, and in a three-player game two who share the top both count a win.
    A single player always gets 0 (solitaire has no opponent to beat).
    """
    scores = np.asarray(scores, dtype=np.float64)
    top = scores.max()
    winners = scores == top
    if winners.all():
        return np.zeros(len(scores))
    return np.where(winners, 1.0, -1.0)
