"""The six games as OpenSpiel games, over the same rules cores (``pip install .[openspiel]``).

Importing this module registers, with ``pyspiel.register_game``, one game per env of
:data:`envs.registry.ENVS`: ``python_tabletop_inverted_dice``, ``..._six_hundred``,
``..._invers``, ``..._lost_dice``, ``..._keldice`` and ``..._roll_five``. Load one with
``pyspiel.load_game("python_tabletop_roll_five", {"players": 3})``.

One adapter serves every game, as :mod:`envs.aec` does for PettingZoo; it reads what a
game declares and never names a game:

* **Chance** is explicit: the state is the core's :meth:`~envs.core.Game.new_chance_state`,
  so every roll, throw and dealt card is a chance node with its exact outcomes (rolls
  as multisets of faces).
* **Dynamics**: sequential, or simultaneous for a ``simultaneous`` game (Roll Five),
  whose joint action is every player's commitment applied at once. Its parameter
  ``turn_based=True`` makes it sequential, the players committing one after another
  without seeing each other's pending choice (as in the AEC env), for algorithms that
  need turns (MCTS, information-set MCTS).
* **Information**: perfect, or imperfect for a game with ``hidden_information``.
* **Rewards** are terminal: ``returns()`` is what a PettingZoo episode's rewards add up
  to under the ``reward_mode`` parameter (``"score"``, ``"win"`` or ``"margin"``; empty for
  the env's default: the score solo, the win otherwise).
* **Utility**: two players' wins (+1 / -1, 0 for a draw) and margins (each one's lead over
  the other) add up to 0, so a two-player table under ``"win"`` or ``"margin"`` is
  ``ZERO_SUM`` with ``utility_sum`` 0, as OpenSpiel's own two-player games declare it,
  and OpenSpiel's exact methods (``exploitability``, ``nash_conv``, CFR) accept it;
  every other table (scores, or three or more players, whose outcomes do not add up to a
  constant) is ``GENERAL_SUM``. The type is the loaded game's (``game.get_type()``), set
  by its parameters as OpenSpiel's own games set theirs.
* **Parameters**: ``players`` and every option of the game (``game.options()``), with the
  defaults of the game's signature. An option whose default is None (the rules decide:
  ``rolls_per_player``, ``dice_file``) takes 0 or the empty string for that default.
* **Observations** (:class:`Observer`): the observation tensor is the core's
  ``observe(player)`` and its string ``render_for(player)``, which show only what that
  player may see. The information state of a perfect-information game is the history
  (string) and the whole state (tensor, Markov); of a hidden-information game, the
  player's observation at each of their decisions with the action they took, then their
  observation now: perfect recall, built only from what the core lets them see.
"""

from __future__ import annotations

import inspect
import typing
import warnings
from typing import Any

import numpy as np
import pyspiel

from envs.aec import REWARD_MODES, reward_basis
from envs.core import Game, GameState
from envs.registry import ENVS

PREFIX = "python_tabletop_"


#: The parameter value standing for an option's None (the rules' default), by the option's type.
_UNSET = {int: 0, str: ""}


def _parameter_defaults(game: Game) -> dict[str, Any]:
    """OpenSpiel's parameter specification: ``players``, ``reward_mode`` and the game's options,
    each with its default in the game's signature; a None default becomes the unset value
    (:data:`_UNSET`) of the option's first annotated type, so the parameter keeps a type."""
    init = type(game).__init__
    signature, hints = inspect.signature(init).parameters, typing.get_type_hints(init)
    defaults: dict[str, Any] = {"players": game.num_players, "reward_mode": ""}
    if game.simultaneous:
        defaults["turn_based"] = False
    for key in game.options():
        if key != "num_players":
            value = signature[key].default
            if value is None:
                value = _UNSET[next(t for t in typing.get_args(hints[key]) if t in _UNSET)]
            defaults[key] = value
    return defaults


def parameters(game: Game) -> dict[str, Any]:
    """The OpenSpiel parameters of the game with ``game``'s players and options."""
    defaults = _parameter_defaults(game)
    params: dict[str, Any] = {"players": game.num_players}
    for key, value in game.options().items():
        if key != "num_players":
            params[key] = defaults[key] if value is None else value
    return params


def _game_options(params: dict[str, Any], game: Game) -> dict[str, Any]:
    """The core game's keyword arguments from OpenSpiel parameters."""
    signature = inspect.signature(type(game).__init__).parameters
    options: dict[str, Any] = {"num_players": int(params["players"])}
    for key in game.options():
        if key != "num_players":
            value = params[key]
            unset = signature[key].default is None and value in _UNSET.values() and not isinstance(value, bool)
            options[key] = None if unset else value
    return options


class TabletopGame(pyspiel.Game):
    """An OpenSpiel game over one env's rules core; subclassed once per env by :func:`register`."""

    env_name: str
    game_type: pyspiel.GameType

    def __init__(self, params: dict[str, Any] | None = None):
        params = dict(params or {})
        entry = ENVS[self.env_name]
        default_core = entry.game_class()()
        defaults = _parameter_defaults(default_core)
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise ValueError(f"{PREFIX}{self.env_name}: unknown parameters {unknown}; known: {sorted(defaults)}")
        given = params
        params = {**defaults, **params}
        self.core = entry.game_class()(**_game_options(params, default_core))
        mode = params.get("reward_mode", "") or ("score" if self.core.num_players == 1 else "win")
        if mode not in REWARD_MODES:
            raise ValueError(f"{PREFIX}{self.env_name}: reward_mode must be one of {REWARD_MODES} or '', got {mode!r}")
        if mode == "win" and given.get("max_plies", defaults.get("max_plies")) != defaults.get("max_plies"):
            warnings.warn(
                f"{PREFIX}{self.env_name}: cut to max_plies={given['max_plies']} under reward_mode 'win', the short "
                "games mostly end level (0 for both), so exact methods such as CFR may find nothing to solve "
                "(exploitability 0); reward_mode 'margin' pays each player's lead at the cut",
                stacklevel=2,
            )
        self.reward_mode = mode
        #: Whether the players of a simultaneous game commit one after another instead.
        self.turn_based = bool(params.get("turn_based", False))
        #: Whether every outcome's utilities add up to 0: two players' wins or margins.
        self.zero_sum = self.core.num_players == 2 and mode in ("win", "margin")
        changes = {}
        if self.turn_based:
            changes["dynamics"] = pyspiel.GameType.Dynamics.SEQUENTIAL
        if self.zero_sum:
            changes["utility"] = pyspiel.GameType.Utility.ZERO_SUM
        super().__init__(_retyped(self.game_type, **changes), self._game_info(), params)

    def _game_info(self) -> pyspiel.GameInfo:
        core, n = self.core, self.core.num_players
        low, high = core.score_bounds()
        if self.reward_mode == "win":
            low, high = -1.0, 1.0
        elif self.reward_mode == "margin" and n > 1:
            low, high = low - high, high - low
        length = core.max_game_length // n if core.simultaneous and not self.turn_based else core.max_game_length
        return pyspiel.GameInfo(
            num_distinct_actions=core.num_actions,
            max_chance_outcomes=core.max_chance_outcomes,
            num_players=n,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=0.0 if self.zero_sum else None,  # None: general-sum, no constant total
            max_game_length=length,
        )

    def new_initial_state(self) -> TabletopState:
        return TabletopState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> Observer:
        if params:
            raise ValueError(f"{self.game_type.short_name}: observation parameters are not supported, got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if iig_obs_type is not None and (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info
        ):
            raise ValueError(
                f"{self.game_type.short_name}: only a player's own view (public and private information) is offered"
            )
        return Observer(self, perfect_recall)


class Play:
    """A rules-core state that plays chance explicitly, with what the adapter remembers of its
    game: the moves so far (to rebuild it when unpickled) and, for a hidden-information game,
    every player's view at each of their decisions.

    OpenSpiel clones a Python state by deep-copying its attributes; this one copies with
    the core's ``clone()`` and shares the game, so a clone costs what the core's does.
    """

    def __init__(self, game: TabletopGame, state: GameState, moves: list, decisions: list):
        self.game = game
        self.state = state
        self.moves = moves  #: ``(player, action)``: CHANCE or a player; a joint move is a list of actions
        self.decisions = decisions  #: per player: ``(observation, action)`` at each decision

    @classmethod
    def new(cls, game: TabletopGame) -> Play:
        return cls(game, game.core.new_chance_state(), [], [[] for _ in range(game.core.num_players)])

    def apply(self, action: int) -> None:
        """Resolve the pending chance event, or play the one acting player's move."""
        if self.state.is_chance_node():
            self.state.apply_chance(action)
            self.moves.append((pyspiel.PlayerId.CHANCE, action))
            return
        player = self.state.acting_players()[0]
        self._decide(player, action)
        self.state.apply(player, action)
        self.moves.append((player, action))

    def apply_joint(self, actions: list[int]) -> None:
        """Every acting player's commitment at a simultaneous node, applied at once."""
        acting = self.state.acting_players()
        for player in acting:
            self._decide(player, actions[player])
        for player in acting:
            self.state.apply(player, actions[player])
        self.moves.append((pyspiel.PlayerId.SIMULTANEOUS, list(actions)))

    def _decide(self, player: int, action: int) -> None:
        if self.game.core.hidden_information:
            self.decisions[player].append((self.state.observe(player), action))

    def __deepcopy__(self, memo) -> Play:
        return Play(self.game, self.state.clone(), self.moves[:], [views[:] for views in self.decisions])

    def __reduce__(self):
        return _replayed, (self.game.game_type.short_name, self.game.get_parameters(), self.moves)


def _replayed(short_name: str, params: dict[str, Any], moves: list) -> Play:
    """A :class:`Play` rebuilt from its moves (unpickling: ``deserialize_game_and_state``)."""
    play = Play.new(pyspiel.load_game(short_name, params))
    for player, move in moves:
        if player == pyspiel.PlayerId.SIMULTANEOUS:
            play.apply_joint(move)
        else:
            play.apply(move)
    return play


class TabletopState(pyspiel.State):
    """One game in progress, over a :class:`Play`."""

    def __init__(self, game: TabletopGame):
        super().__init__(game)
        self.play = Play.new(game)

    def current_player(self) -> int:
        state = self.play.state
        if state.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if state.is_chance_node():
            return pyspiel.PlayerId.CHANCE
        if state.game.simultaneous and not self.play.game.turn_based:
            return pyspiel.PlayerId.SIMULTANEOUS
        return state.acting_players()[0]

    def _legal_actions(self, player: int) -> list[int]:
        return np.flatnonzero(self.play.state.legal_mask(player)).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        distribution = self.play.state.chance_outcomes()
        return list(zip(distribution.outcomes, distribution.probabilities))

    def _apply_action(self, action: int) -> None:
        self.play.apply(action)

    def _apply_actions(self, actions: list[int]) -> None:
        self.play.apply_joint(actions)

    def _action_to_string(self, player: int, action: int) -> str:
        state = self.play.state
        if player == pyspiel.PlayerId.CHANCE:
            if state.is_chance_node():
                distribution = state.chance_outcomes()
                if action in distribution.outcomes:
                    return distribution.names[distribution.outcomes.index(action)]
            return f"chance outcome {action}"
        return state.game.action_name(action)

    def is_terminal(self) -> bool:
        return self.play.state.is_terminal()

    def returns(self) -> list[float]:
        state, mode = self.play.state, self.play.game.reward_mode
        if not state.is_terminal():
            return [0.0] * state.game.num_players
        return (state.returns() if mode == "win" else reward_basis(state, mode)).tolist()

    def __str__(self) -> str:
        return self.play.state.render()


class Observer:
    """OpenSpiel's observer (``tensor``, ``dict``, ``set_from``, ``string_from``) of one player's view.

    ``perfect_recall`` False: the observation. True: the information state (see the module
    docstring). Every entry comes from what the core shows that player.
    """

    def __init__(self, game: TabletopGame, perfect_recall: bool):
        core = game.core
        self.perfect_recall = perfect_recall
        self.hidden = core.hidden_information
        obs_size = int(np.prod(core.observation_shape))
        if not perfect_recall:
            pieces = [("observation", obs_size)]
        elif not self.hidden:
            pieces = [("state", int(np.prod(core.state_shape)))]
        else:
            decisions = core.max_game_length // core.num_players if core.simultaneous else core.max_game_length
            self.num_decisions = decisions
            pieces = [
                ("decision_observations", decisions * obs_size),
                ("decision_actions", decisions * core.num_actions),
                ("observation", obs_size),
            ]
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict = {}
        start = 0
        for name, size in pieces:
            self.dict[name] = self.tensor[start : start + size]
            start += size
        if perfect_recall and self.hidden:
            self.dict["decision_observations"] = self.dict["decision_observations"].reshape(decisions, obs_size)
            self.dict["decision_actions"] = self.dict["decision_actions"].reshape(decisions, core.num_actions)

    def set_from(self, state: TabletopState, player: int) -> None:
        play = state.play
        at_chance = play.state.is_chance_node()
        self.tensor.fill(0.0)
        if not self.perfect_recall:
            if not at_chance:
                self.tensor[:] = play.state.observe(player).ravel()
        elif not self.hidden:
            if not at_chance:
                self.tensor[:] = play.state.state_tensor()
        else:
            for k, (observation, action) in enumerate(play.decisions[player]):
                self.dict["decision_observations"][k] = observation.ravel()
                self.dict["decision_actions"][k, action] = 1.0
            if not at_chance:
                self.dict["observation"][:] = play.state.observe(player).ravel()

    def string_from(self, state: TabletopState, player: int) -> str:
        play = state.play
        now = "chance node" if play.state.is_chance_node() else play.state.render_for(player)
        if not self.perfect_recall:
            return now
        if not self.hidden:
            return ", ".join(map(str, state.history()))
        names = play.state.game.action_name
        lines = [f"{_observation_text(obs)} -> {names(action)}" for obs, action in play.decisions[player]]
        current = "chance node" if play.state.is_chance_node() else _observation_text(play.state.observe(player))
        return "\n".join([*lines, current])


def _observation_text(observation: np.ndarray) -> str:
    """An observation as text, exactly: its nonzero entries as ``index:value``."""
    flat = observation.ravel()
    return " ".join(f"{i}:{flat[i]:g}" for i in np.flatnonzero(flat))


def _retyped(game_type: pyspiel.GameType, **changes: Any) -> pyspiel.GameType:
    """``game_type`` with the fields of ``changes`` replaced (``dynamics`` sequential for a simultaneous
    game played ``turn_based``, ``utility`` zero-sum for a two-player table of wins or margins)."""
    fields = {
        name: getattr(game_type, name)
        for name in (
            "short_name", "long_name", "dynamics", "chance_mode", "information", "utility", "reward_model",
            "max_num_players", "min_num_players", "provides_information_state_string",
            "provides_information_state_tensor", "provides_observation_string", "provides_observation_tensor",
            "parameter_specification", "default_loadable",
        )
    }  # fmt: skip
    return pyspiel.GameType(**{**fields, **changes})


def from_core(game: TabletopGame, core: GameState) -> TabletopState:
    """An OpenSpiel state of ``game`` at the rules-core position ``core`` (at a decision), its
    chance to come explicit: where a search starts from a position it sampled
    (:meth:`envs.core.Game.sample_state`). Its history starts there."""
    state = game.new_initial_state()
    state.play = Play(game, core.with_explicit_chance(), [], [[] for _ in range(core.game.num_players)])
    return state


def game_type(env_name: str) -> pyspiel.GameType:
    """The :class:`pyspiel.GameType` of env ``env_name``, read off its core game."""
    core = ENVS[env_name].game_class()()
    return pyspiel.GameType(
        short_name=PREFIX + env_name,
        long_name=f"Python tabletop {env_name.replace('_', ' ')}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if core.simultaneous else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        if core.max_chance_outcomes
        else pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION
        if core.hidden_information
        else pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=core.max_players,
        min_num_players=core.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_defaults(core),
        default_loadable=True,
    )


def register(env_name: str) -> type[TabletopGame]:
    """Register env ``env_name`` with OpenSpiel as ``python_tabletop_<env_name>``."""
    game_class = type(f"Tabletop_{env_name}", (TabletopGame,), {"env_name": env_name, "game_type": game_type(env_name)})
    game_class.__module__ = __name__
    globals()[game_class.__name__] = game_class  # found by pickle
    pyspiel.register_game(game_class.game_type, game_class)
    return game_class


#: The registered game classes by env name.
GAMES = {name: register(name) for name in ENVS}
