"""Train any env of the collection with Ray RLlib's PPO and its action-masking RLModule.

    pip install -e ".[rllib]"
    python training/train_rllib.py --env invers                       # a local Ray, 2 workers
    python training/train_rllib.py --env invers --workers 8 --address auto   # an existing cluster

The RLlib pipeline (:mod:`training.pipelines.rllib.learner`) on the run framework
(:mod:`training.framework`): every seat is played by one shared policy (self-play
through RLlib's policy mapping), a masked MLP with the network, game options and PPO
hyperparameters of ``configs/<env>_rllib.yaml`` (those of the env's PPO config) in
RLlib's names. The run prints, per iteration, the mean episode return and the env
steps/s sampled, and writes the run folder (``config.yaml``, ``metadata.json``, ``rllib_checkpoint.zip``) like every
pipeline; ``--resume RUN_DIR`` continues it. With Ray installed, the run folder is an
agent (:mod:`agents.rllib`: the shared module's greedy masked action), so
``python training/evaluate.py --checkpoint RUN_DIR`` scores it against the bots.
"""

from __future__ import annotations

import sys

from training.framework import command
from training.pipelines.rllib.learner import RLlib


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    return command.main(RLlib, argv, prog, "training/train_rllib.py", __doc__)


if __name__ == "__main__":
    sys.exit(main())
