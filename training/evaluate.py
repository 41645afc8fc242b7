"""Evaluate a trained agent against the bots of its game, with confidence intervals.

    python training/evaluate.py --env inverted_dice                    # latest run vs bots
    python training/evaluate.py --checkpoint checkpoints/inverted_dice/<run> --games 2000
    python training/evaluate.py --env inverted_dice --agents heuristic random   # bots only

A run is any run folder of the project's pipelines (or its checkpoint file): ``model.zip``
(``train.py``'s PPO and expert iteration) plays as its policy, ``value.pt``
(``train_td.py``) as the game's ``td`` agent on that network, ``rllib_checkpoint.zip``
(``train_rllib.py``) as the RLlib module's greedy masked action where Ray is installed,
``tianshou_policy.pt`` (``python -m training.integrations.tianshou_ppo``) as the actor's
greedy masked action where Tianshou is installed (else refused in one line naming what
to install). Without ``--checkpoint`` or
``--agents`` the latest run of the env under ``checkpoints/<env>/`` is scored (never a shipped
network's folder, ``shipped*/``: the specs ``ppo`` and ``td`` play those), and without
``--agents`` a run meets the opponents of its own closing evaluation (its config's
``evaluation.opponents``; every bot of the game when it names none).

The game is the one the run was trained for: its config's ``env_kwargs`` (game options),
``evaluation.random_opening_plies`` and ``evaluation.games``, unless ``--env-kwargs``
(over the run's options), ``--random-opening`` or ``--games`` ask otherwise; the run is
``--checkpoint``, else the latest run, else the first trained agent of ``--agents``
(runs trained at different games are refused without ``--env-kwargs``). One line before
the games, and the report's first line, say which run and which game were played and
where each setting came from, e.g. (one line, wrapped here)::

    Run: checkpoints/roll_five/<run> (the latest run of roll_five); game RollFive(num_players=2,
      mode='tournament') (the run's env_kwargs), 0 random opening plies (the run's
      evaluation.random_opening_plies), 1000 games per pairing (the run's evaluation.games), seed 10000.

One-player games report mean score (95% CI), the paired difference to the first agent,
per-game statistics (e.g. bonus rates) and the score distribution; games with several
players report win / draw / loss rates and the score (95% CI) for every pairing, played in
seat-paired openings (each opening once with the agent in every seat, so ``--games`` is a
multiple of the players, and the score's interval is taken over the openings), and so need
two agents or more; ``--sprt 0,10`` stops each pairing once a sequential test decides it.
See :mod:`training.evaluation.harness` for the method.

The report is printed and written as Markdown and CSV to a new, dated folder
(``<run>/evaluation-<date>-<time>/``, or ``results/<env>/<date>-<time>/`` without a
run folder of the user's: a shipped network's folder and a bare model file included), so
no report is ever replaced and nothing is written into a shipped folder; ``--out DIR`` writes to ``DIR`` and
refuses to replace a report there unless ``--overwrite``. The files are written together
once every game is played: an evaluation that fails leaves none. Progress (games done /
total, time left) is shown on stderr. ``--record-games DIR`` also writes every game to
``DIR`` as a record (``<seat labels>-<seed>.jsonl``, :mod:`training.records.game_record`), which
``tabletop serve`` replays step by step."""

from __future__ import annotations

import argparse
import sys

from training.evaluation.harness import DEFAULT_BATCH
from training.evaluation.request import evaluate_request
from training.evaluation.sprt import SPRT_HELP
from training.framework.console import guarded


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", help="env name (default: the checkpoint's)")
    parser.add_argument(
        "--checkpoint",
        help="trained run folder (PPO, expert iteration, TD, RLlib, Tianshou) or its checkpoint file "
        "(default: the latest run of the env)",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        help="agent specs to compare (default: the checkpoint and its closing evaluation's opponents, else every bot)",
    )
    parser.add_argument("--games", type=int, help="games per agent or pairing (default: the run's config, else 1000)")
    parser.add_argument("--seed", type=int, default=10_000, help="first game seed (default 10000)")
    parser.add_argument("--out", help="output directory (default: a new dated folder)")
    parser.add_argument("--overwrite", action="store_true", help="allow --out to replace an earlier report")
    parser.add_argument(
        "--random-opening",
        type=int,
        default=None,
        metavar="PLIES",
        help="random plies opening every game of several players (default: the run's config, else 0)",
    )
    parser.add_argument(
        "--record-games",
        metavar="DIR",
        default=None,
        help="also write every game played to DIR as a record (JSON lines) that `tabletop serve` replays",
    )
    parser.add_argument(
        "--batch",
        type=int,
        default=DEFAULT_BATCH,
        metavar="N",
        help=f"play N games of a pairing at once as rows of the batched twin (default {DEFAULT_BATCH}); 0 plays one "
        "at a time. The games are the same either way; a pairing with an agent that cannot act in batch "
        "(no act_batch) plays one at a time, and the report says so",
    )
    parser.add_argument(
        "--env-kwargs",
        default=None,
        help="game options as YAML, e.g. \"{num_players: 2}\", over the run's (default: the run's)",
    )
    parser.add_argument("--sprt", metavar="ELO0,ELO1[,ALPHA,BETA]", help=SPRT_HELP)
    parser.add_argument(
        "--above",
        metavar="SCORE[,SCORE...]",
        help="one player: also give each agent's share of games scoring above each SCORE, with its 95%% "
        "(Wilson) interval, e.g. --above 58,100 (a milestone score, a designer's best game)",
    )
    args = parser.parse_args(argv)
    if not (args.env or args.checkpoint):
        parser.error("give --env NAME or --checkpoint RUN")
    return guarded(lambda: run(args), "evaluation interrupted; no report written")


def run(args: argparse.Namespace) -> int:
    """Plays the evaluation and prints its report."""
    report, out = evaluate_request(args)
    print(report)
    print(f"Report written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
