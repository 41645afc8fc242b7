"""Train a turn-value agent (:mod:`agents.turn_value`) of a solitaire dice game by TD learning.

    python training/train_td.py --env inverted_dice            # configs/inverted_dice_td.yaml
    python training/train_td.py --env six_hundred --games 2000 --seed 3 --td-lambda 0.5
    python training/train_td.py --resume checkpoints/inverted_dice/<run>

The turn-value TD pipeline (:mod:`training.pipelines.td.learner`, where the method is
described) on the run framework (:mod:`training.framework`). A checkpoint is saved
every ``checkpoint_every`` games; after Ctrl-C (exit 130) or a kill, ``--resume``
continues from the last one. The run folder
(``checkpoints/<env>/<date>-<time>-td-seed<seed>/``) gets ``value.pt`` (the network,
loadable as the agent spec ``td:path=<run>``, or the run folder itself:
``training/evaluate.py --checkpoint <run>``), ``config.yaml``, ``metadata.json``,
``training_state.pkl`` (optimizer, replay buffer, generators: what ``--resume`` needs),
``learning_curve.csv`` / ``.png`` (every ``learning_curve.every`` games: the agent and
the reference bot on the same fixed dice, also in TensorBoard) and ``evaluation/``
(the closing evaluation, as ``training/evaluate.py`` reports it).
"""

from __future__ import annotations

import sys

from training.framework import command
from training.pipelines.td.learner import TurnValueTD


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    return command.main(TurnValueTD, argv, prog, "training/train_td.py", __doc__)


if __name__ == "__main__":
    sys.exit(main())
