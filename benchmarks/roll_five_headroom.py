"""How far above Roll Five's ``search`` can any player get? The measurements behind its ceiling.

    python benchmarks/roll_five_headroom.py                      # two and four players, 10,000 games each
    python benchmarks/roll_five_headroom.py --players 2 --games 2000 --model-games 10000

``search`` (:mod:`agents.roll_five.search`) plays the exact expectimax of its own row
against a model of the table: the distribution of final results (pairs kept, tie-break
distance) sampled from heuristic self-play. A player's pairs depend only on its own cards,
rolls and placements; the others change who wins, never what one keeps. So at a table of
``search`` bots the only room above ``search`` is a better model of the others' results:
one that is right about ``search``'s own play, or one that reads what the table shows as
the game goes (the opponents' placed dice are public, and one's own cards change what the
others can hold). Each variant below is ``search`` with another model, in seat 0, against
``search`` bots in every other seat, on the same games (seeds from 6,000,000 on):

* ``search``: the bot itself;
* ``self-play model``: its model sampled from ``--model-games`` games of ``search`` self-play
  (seeds from 6,500,000 on) instead of the heuristic's: a best response to a table of ``search``;
* ``given the opponent's dice`` (two players): at each decision, the model sampled from the
  self-play games where the opponent had placed the same dice by that turn;
* ``given its own cards`` (two players): the model sampled from the self-play games where
  the opponent sat opposite the same hand;
* ``oracle``: knows every opponent's final result before the first roll, an upper bound on
  what any information about the others is worth.

A conditioned model falls back to the self-play model where fewer than ``--min-samples``
self-play results share its key. The other seats' play does not depend on seat 0 (a
``search`` bot reads only its own row); the script checks that the opponents' results are
the same in every variant. Reported per variant: seat 0's score (wins + ½ draws, a shared
win counting whole, as the evaluation harness scores a seat) and its paired difference to
``search``'s on the same games, with 95% intervals. Written to ``--out``: ``report.md`` and
``headroom.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Hashable
from pathlib import Path

import numpy as np

from agents.match import play_game
from agents.roll_five.search import MAX_DISTANCE, RollFiveSearch, TableModel
from envs.games.roll_five import CARDS_PER_PLAYER, NUM_PLACEMENTS, PlayerView, RollFive, placement
from training.evaluation.harness import mean_ci

FIRST_GAME = 6_000_000
FIRST_MODEL_GAME = 6_500_000


class ConditionedSearch(RollFiveSearch):
    """``search`` whose model of the table is looked up per decision: ``models[key(view)]``,
    ``fallback`` where the key has no model."""

    def __init__(self, game, models: dict, key: Callable[[PlayerView], Hashable], fallback: TableModel):
        super().__init__(game)
        self.models, self.key, self.fallback = models, key, fallback

    def table_model_for(self, view: PlayerView) -> TableModel:
        return self.models.get(self.key(view), self.fallback)


class KnownResults(TableModel):
    """A table model that knows the other players' final results: the utility of finishing
    with ``pairs`` at ``distance`` is +1 for a win (a shared one too), 0 when every player
    shares it, -1 for a loss: twice the seat's score, less 1."""

    def __init__(self, game: RollFive, results: np.ndarray):
        pairs, distance = results[:, 0], results[:, 1]
        tournament = game.mode == "tournament"
        self.utility = np.zeros((CARDS_PER_PLAYER + 1, MAX_DISTANCE + 1))
        for p in range(CARDS_PER_PLAYER + 1):
            for d in range(MAX_DISTANCE + 1):
                better = (pairs > p) | (tournament & (pairs == p) & (distance < d))
                tied = (pairs == p) & ((distance == d) | (not tournament))
                self.utility[p, d] = -1.0 if better.any() else (0.0 if tied.all() else 1.0)
        self.tournament = tournament
        self._cache = {}


def results_of(state) -> np.ndarray:
    """``(players, 2)``: every seat's pairs kept and tie-break distance."""
    return np.stack([state.scores(), state.tie_break_distances()], axis=1).astype(np.int64)


def placed_in_order(history, player: int) -> list[int]:
    """The die values ``player`` placed, turn by turn."""
    return [placement(action)[0] for seat, action in history if seat == player and action < NUM_PLACEMENTS]


def self_play(game: RollFive, games: int) -> tuple[list, dict, dict]:
    """Results of ``search`` self-play: all of them, and keyed as the two conditioned variants read them."""
    search = RollFiveSearch(game)
    pooled, by_dice, by_cards = [], defaultdict(list), defaultdict(list)
    for seed in range(FIRST_MODEL_GAME, FIRST_MODEL_GAME + games):
        state, history = play_game(game, [search] * game.num_players, seed)
        results = results_of(state)
        pooled += results.tolist()
        if game.num_players == 2:
            for player in range(2):
                opponent = 1 - player
                dice = placed_in_order(history, opponent)
                for turn in range(1, CARDS_PER_PLAYER + 2):  # view.turn: 1..5 placing, 6 the bid
                    by_dice[(turn, tuple(sorted(dice[: turn - 1])))].append(results[opponent])
                by_cards[tuple(sorted(state.cards(player)))].append(results[opponent])
    return pooled, by_dice, by_cards


def models_of(game: RollFive, keyed: dict, min_samples: int) -> dict:
    return {key: TableModel(game, np.array(rows)) for key, rows in keyed.items() if len(rows) >= min_samples}


def measure(players: int, games: int, model_games: int, min_samples: int, progress=print) -> dict:
    game = RollFive(num_players=players, mode="tournament")
    started = time.perf_counter()
    results, by_dice, by_cards = self_play(game, model_games)
    progress(f"{players} players: {model_games} self-play games, {time.perf_counter() - started:.0f} s")
    pooled = TableModel(game, np.array(results))
    oracle_models: dict = {}
    variants = {
        "search": RollFiveSearch(game),
        "self-play model": ConditionedSearch(game, {}, lambda view: None, pooled),
    }
    if players == 2:
        variants["given the opponent's dice"] = ConditionedSearch(
            game, models_of(game, by_dice, min_samples), lambda view: (view.turn, view.opponents_dice[0]), pooled
        )
        variants["given its own cards"] = ConditionedSearch(
            game, models_of(game, by_cards, min_samples), lambda view: tuple(sorted(view.cards)), pooled
        )
    variants["oracle"] = ConditionedSearch(game, oracle_models, lambda view: None, pooled)
    others = RollFiveSearch(game)
    scores = {label: np.zeros(games) for label in variants}
    for k, seed in enumerate(range(FIRST_GAME, FIRST_GAME + games)):
        opponents = None
        for label, seat0 in variants.items():
            state, _ = play_game(game, [seat0] + [others] * (players - 1), seed)
            results = results_of(state)
            if opponents is None:
                opponents = results[1:]
                oracle_models[None] = KnownResults(game, opponents)
            elif not (results[1:] == opponents).all():
                raise RuntimeError(f"game {seed}: the other seats played differently beside {label!r}")
            scores[label][k] = (state.returns()[0] + 1) / 2
    progress(f"{players} players: {games} games per variant, {time.perf_counter() - started:.0f} s in all")
    rows = []
    for label, score in scores.items():
        mean, half = mean_ci(score)
        difference, difference_half = mean_ci(score - scores["search"])
        rows.append(
            {
                "variant": label,
                "score": mean,
                "score_ci": half,
                "difference": difference,
                "difference_ci": difference_half,
            }
        )
    return {"players": players, "games": games, "model_games": model_games, "min_samples": min_samples, "rows": rows}


def report(tables: list[dict], command: str) -> str:
    lines = [
        "# Roll Five: how far above `search` can a player get?",
        "",
        f"Generated by `{command}` (the script's docstring says what each variant is).",
        "Seat 0 against `search` in every other seat, tournament mode, the same games for every variant;",
        "score = wins + ½ draws (a shared win counts whole); differences are paired, with 95% intervals.",
        "",
        "| players | variant | games | score, 95% CI | − `search`'s score, 95% CI |",
        "|---|---|---|---|---|",
    ]
    for table in tables:
        for row in table["rows"]:
            score = f"{row['score']:.4f} ± {row['score_ci']:.4f}"
            difference = "—" if row["variant"] == "search" else f"{row['difference']:+.4f} ± {row['difference_ci']:.4f}"
            lines.append(f"| {table['players']} | {row['variant']} | {table['games']:,} | {score} | {difference} |")
    models = ", ".join(f"{t['model_games']:,} at {t['players']} players" for t in tables)
    needs = tables[0]["min_samples"]
    lines += ["", f"Self-play games behind the models: {models}; a conditioned model needs {needs} results."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], choices=[2, 3, 4])
    parser.add_argument("--games", type=int, default=10_000, help="games per variant and table")
    parser.add_argument("--model-games", type=int, default=50_000, help="search self-play games behind the models")
    parser.add_argument("--min-samples", type=int, default=200, help="results a conditioned model needs")
    parser.add_argument("--out", type=Path, default=Path("results/roll_five/headroom"))
    args = parser.parse_args(argv)
    if args.games < 2 or args.model_games < 1 or args.min_samples < 1:
        parser.error("--games needs at least 2, --model-games and --min-samples at least 1")
    tables = [measure(p, args.games, args.model_games, args.min_samples) for p in args.players]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "headroom.json").write_text(json.dumps(tables, indent=1) + "\n")
    given = argv if argv is not None else sys.argv[1:]
    text = report(tables, " ".join(["python benchmarks/roll_five_headroom.py", *given]))
    (args.out / "report.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
