"""Train an agent on one env with the recipe of ``configs/<env>.yaml``: the main job.

    python training/train.py --env inverted_dice                 # the default config
    python training/train.py --env inverted_dice --timesteps 50000 --seed 3
    python training/train.py --config my.yaml                    # another config
    python training/train.py --resume checkpoints/inverted_dice/<run>   # continue a run

The PPO pipeline (:mod:`training.pipelines.ppo.learner`) on the run framework
(:mod:`training.framework`), or the pipeline the config names with its ``pipeline`` key:
``configs/six_hundred.yaml`` is the turn-value recipe (``pipeline: td``, as
``training/train_td.py`` runs it), because its PPO recipe ends below the heuristic
(``configs/six_hundred_ppo.yaml``). Its options are then that pipeline's (``--games``
rather than ``--timesteps``), and so is its run folder. A run writes ``checkpoints/<env>/<run>/``: a checkpoint
every ``checkpoint_every`` steps and at the end (``model.zip``, ``vecnormalize.pkl``,
``training_state.pkl`` and ``metadata.json``: seed, steps, wall time, package versions,
git commit, each session), ``config.yaml`` (the resolved config), ``tensorboard/``,
with a ``warm_start``, ``demonstrations.pt`` (the teacher's demonstrations, tens of MB
to 1 GB: only a ``--resume`` before ``warm_start.guide_decay_steps`` needs them,
so they can be deleted after that; ``checkpoints/README.md``) and, after training,
``evaluation/`` (the trained agent against the config's opponents, with
a progress bar; ``--eval-games N`` shortens it, ``--no-eval`` skips it; see
``training/evaluate.py``).

A short run (``--timesteps`` below the config's budget) shortens the config's warm start
in proportion (``--warm-start-episodes N`` sets it): ``--env invers --timesteps 20000``
costs about 1,500 x 20,000 / 800,000 = 38 teacher games, each decision valued by
``search:depth=4`` (roughly a minute on 2 cores), then 20,000 PPO steps (seconds). The
warm start prints its progress and the run's time is split into warm start and PPO.

A run killed at any moment resumes from its last checkpoint with ``--resume``. Ctrl-C
(SIGINT) or SIGTERM saves a checkpoint first and exits with 130 / 143, printing the
command that resumes. Bad input (config values, agents, env options, an unusable
checkpoint) is one line on stderr and exit code 2, before anything runs.
"""

from __future__ import annotations

import sys

from training.framework import command
from training.pipelines.ppo.learner import PPO


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    pipeline = command.pipeline_for(argv, PPO)
    return command.main(pipeline, argv, prog, "training/train.py", __doc__)


if __name__ == "__main__":
    sys.exit(main())
