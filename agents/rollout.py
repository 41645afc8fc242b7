"""The rollout agent: a base policy improved by playing every legal move on with it, many times.

Bertsekas' rollout algorithm (Tesauro and Galperin's on-line policy improvement for
backgammon): at each decision, for every legal move, play ``n`` continuations to the end
of the game with the base policy in every seat, and choose the move whose continuations
end best for the deciding seat on average: the game's outcome (``returns()``), or the
score in a one-player game. The rollout policy is at least as good as its base in
expectation, and usually much better; it is a strong bot to benchmark against and a
teacher for the networks.

How it plays, from nothing but its observation:

* **Determinizations.** Continuation ``k`` starts from a full state drawn from the
  observation with the agent's own generator (:meth:`envs.core.Game.sample_state`): what the
  observation shows, with the hidden part (other players' cards, ...) and the chance to come
  (the dice not yet rolled) drawn afresh for every ``k``.
* **Common random numbers.** Every candidate move is played on the same ``n``
  determinizations: continuation ``k`` of every move starts from the same state and so
  meets the same dice, and the comparison between moves is not drowned in dice luck.
* **Rows of the batched twin.** The candidates × continuations are rows of the game's
  batched twin (:mod:`envs.batched`), each loaded with its determinization
  (``load_state``), the candidate applied, then played to the end: at each step, one
  ``act_batch`` call of the base per seat over every row where that seat acts. So the base
  must act in batch (:func:`agents.base.acts_in_batch`): ``random``, ``ppo``, a trained run.

* **Keeping the base's move** (``confidence=z``, default 0: off). With a few continuations
  the mean end of a move is noisy, and the best of many noisy means is often a move worse
  than the base's own: the chosen move then loses to its base. With ``confidence`` above 0
  the agent plays the base's own move unless another move's mean improvement over it,
  paired continuation by continuation, exceeds ``confidence`` standard errors of that
  improvement (the best such move then).
* **In batch.** ``act_batch`` decides many positions in one twin: every position's
  candidates × continuations are rows of it (in blocks of at most :data:`MAX_ROWS` rows), so
  the base decides all of them in one call per seat and step. Each position draws from its
  own generator (``rngs``, one per row, as the game loop passes them) exactly what ``act``
  draws from the agent's: a seed for the base's draws of this move, the determinizations,
  the tie-break. A base that draws per row (``rngs``: the random agent, bots that break
  ties at random) draws each position's continuations from that move's own generator, so a
  position gets the same move alone or in any batch; a deterministic base (a network, most
  heuristics) draws nothing.

The agent spec is ``rollout:n=<int>,confidence=<z>,base=<spec>``; ``base=`` comes last and takes the rest
of the spec, so the base may carry options of its own (``rollout:n=16,base=ppo:path=RUN``).
The defaults are ``n=32`` and ``base=random``. Its cost per move is about ``n`` × the
legal moves × the rest of a game of base moves, in batches: ``benchmarks/rollout_strength.py``
measures it, and its strength against its base, in every env.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, acts_in_batch, draws_per_row
from agents.batched import batch_arguments, check_generators
from agents.registry import make_agent
from envs.core import Game
from envs.registry import get_entry

#: Rows of the twin the agent plays its continuations in, at most (or one position's, if more):
#: ``act_batch`` plays as many positions at once as fit.
MAX_ROWS = 8_192


class RolloutAgent(Agent):
    """The best legal move by the mean end of ``n`` continuations of the base policy per move.

    Args:
        game: the game to play.
        seed: seeds the determinizations and tie-breaks, and the base's own generator.
        base: the base policy, an agent spec (``"random"``, ``"ppo"``, a run folder) or an
            :class:`Agent`; it must act in batch (``act_batch``).
        n: continuations per legal move (at least 1; at least 2 with ``confidence``).
        confidence: above 0, keep the base's own move unless another improves on it by more than
            this many standard errors (see the module docstring); 0 (default): the best mean.
    """

    name = "rollout"

    def __init__(
        self, game: Game, seed: int | None = None, base: str | Agent = "random", n: int = 32, confidence: float = 0.0
    ):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"rollout: n must be a positive integer (continuations per legal move), got {n!r}")
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or confidence < 0:
            raise ValueError(f"rollout: confidence must be a number of standard errors, 0 or more, got {confidence!r}")
        if confidence > 0 and n < 2:
            raise ValueError(f"rollout: confidence needs n of 2 or more (a standard error), got n={n}")
        self.n, self.confidence = int(n), float(confidence)
        self.base = make_agent(game.name, base, game) if isinstance(base, str) else base
        if not acts_in_batch(self.base):
            raise ValueError(
                f"rollout: the base {base if isinstance(base, str) else type(base).__name__!r} cannot act in batch "
                "(it has no act_batch); bases that can: random, ppo, a trained run, every bot"
            )
        self._base_draws = draws_per_row(self.base)
        self.twin = get_entry(game.name).batched_class()(game, max(game.num_actions * self.n, MAX_ROWS))
        self._observations = np.zeros((self.twin.num_games, *game.observation_shape), np.float32)
        self._masks = np.zeros((self.twin.num_games, game.num_actions), np.int8)
        super().__init__(game, seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's generator, and the base's from it."""
        super().reset(seed)
        self.base.reset(int(self.rng.integers(2**63)))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self._decide(np.asarray(observation)[None], np.asarray(action_mask)[None] > 0, [self.rng])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray, rngs=None) -> np.ndarray:
        """:meth:`act` of every row; with ``rngs``, row ``k`` draws from ``rngs[k]`` (see the module
        docstring), and the rows are decided together; without, one after the other from the
        agent's generator, as ``act`` on each row in turn would."""
        observations, legal = batch_arguments(self.game, observations, action_masks, "rollout")
        check_generators(rngs, len(observations), "rollout")
        if rngs is None:
            return np.array([self._decide(o[None], m[None], [self.rng])[0] for o, m in zip(observations, legal)])
        return self._decide(observations, legal, list(rngs))

    def _decide(self, observations: np.ndarray, legal: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
        """Every row's move, row ``k``'s draws from ``rngs[k]``: the positions with a choice are
        played on in blocks of positions that fit the twin."""
        actions = np.empty(len(observations), np.int64)
        choosing = []
        for k, row in enumerate(legal):
            candidates = np.flatnonzero(row)
            if candidates.size == 0:
                raise ValueError("rollout agent: the action mask allows no action")
            if candidates.size == 1:
                actions[k] = candidates[0]
            else:
                choosing.append((k, candidates))
        block: list[tuple[int, np.ndarray]] = []
        for position in choosing:
            if block and (sum(c.size for _, c in block) + position[1].size) * self.n > self.twin.num_games:
                self._decide_block(observations, legal, rngs, block, actions)
                block = []
            block.append(position)
        if block:
            self._decide_block(observations, legal, rngs, block, actions)
        return actions

    def _decide_block(self, observations, legal, rngs, block, actions) -> None:
        """The moves of the positions of ``block`` (``(row, candidates)``), written into ``actions``."""
        rows = [k for k, _ in block]
        base_rngs = [np.random.default_rng(rngs[k].integers(2**63)) for k in rows]  # this move's base draws
        ends = self._ends([observations[k] for k in rows], [c for _, c in block], [rngs[k] for k in rows], base_rngs)
        if self.confidence > 0:
            own = self._base_actions(observations[rows], legal[rows].astype(np.int8), base_rngs)
        for i, (k, candidates) in enumerate(block):
            values = ends[i].mean(axis=1)
            if self.confidence > 0:
                improvement = (
                    ends[i] - ends[i][np.flatnonzero(candidates == own[i])[0]]
                )  # paired: the same continuations
                error = improvement.std(axis=1, ddof=1) / np.sqrt(self.n)
                sure = improvement.mean(axis=1) > self.confidence * error
                if not sure.any():
                    actions[k] = own[i]
                    continue
                values = np.where(sure, values, -np.inf)
            best = np.flatnonzero(values == values.max())
            actions[k] = candidates[best[rngs[k].integers(best.size)]]

    def move_ends(self, observation: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """``(candidates, n)``: the end of every continuation of every candidate for the deciding
        player, the determinizations drawn from the agent's generator (the base draws from its own).

        Row ``c * n + k`` of the twin plays candidate ``c`` on determinization ``k``.
        """
        return self._ends([observation], [np.asarray(candidates)], [self.rng], None)[0]

    def _ends(self, observations, candidate_lists, rngs, base_rngs) -> list[np.ndarray]:
        """:meth:`move_ends` of several positions in one twin: position ``p``'s determinizations
        drawn from ``rngs[p]``, its continuations' base draws from ``base_rngs[p]`` (None: the base's own)."""
        n, twin = self.n, self.twin
        starts = np.cumsum([0] + [c.size * n for c in candidate_lists])
        deciders, row_owner = [], np.repeat(np.arange(len(candidate_lists)), np.diff(starts))
        for p, (observation, candidates) in enumerate(zip(observations, candidate_lists)):
            rows = np.arange(starts[p], starts[p + 1])
            decider = -1
            for k in range(n):
                state = self.game.sample_state(observation, rngs[p])
                decider = state.acting_players()[0]
                if not state.legal_mask(decider)[candidates].all():
                    raise ValueError(
                        f"rollout agent: the action mask allows moves that {self.game.name}'s state forbids"
                    )
                twin.load_state(rows[k::n], state)
            twin.apply(rows, np.full(rows.size, decider), np.repeat(candidates, n))
            deciders.append(decider)
        self._play_out(None if base_rngs is None else [base_rngs[p] for p in row_owner.tolist()])
        ends = twin.scores() if self.game.num_players == 1 else twin.returns()
        return [
            ends[np.arange(starts[p], starts[p + 1]), deciders[p]].reshape(c.size, n)
            for p, c in enumerate(candidate_lists)
        ]

    def _base_actions(self, observations: np.ndarray, masks: np.ndarray, rngs) -> np.ndarray:
        """The base's moves of rows, each drawing from its generator of ``rngs`` where the base draws per row."""
        own = {"rngs": rngs} if self._base_draws and rngs is not None else {}
        return np.asarray(self.base.act_batch(observations, masks, **own), np.int64)

    def _play_out(self, row_rngs) -> None:
        """Play every row of the twin to its end with the base: one ``act_batch`` per seat and step
        (row ``r``'s draws from ``row_rngs[r]`` where the base draws per row)."""
        twin = self.twin
        while not twin.terminal().all():
            for seat in range(self.game.num_players):
                rows = np.flatnonzero(twin.acting()[:, seat])
                if rows.size == 0:
                    continue
                seats = np.full(rows.size, seat)
                observations, masks = self._observations[: rows.size], self._masks[: rows.size]
                twin.legal_masks(rows, seats, masks)
                twin.observe(rows, seats, observations)
                mine = None if row_rngs is None else [row_rngs[r] for r in rows.tolist()]
                twin.apply(rows, seats, self._base_actions(observations, masks, mine))
