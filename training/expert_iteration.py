"""Expert iteration on a two-player perfect-information game (Invers): a network improved by the search it guides.

    python training/expert_iteration.py --config configs/invers_distill.yaml          # distil search:depth=4
    python training/expert_iteration.py --config configs/invers_search_distill_2.yaml # the shipped network's last round
    python training/expert_iteration.py --config configs/invers_expert_iteration.yaml --init checkpoints/invers/shipped
    python training/expert_iteration.py --resume checkpoints/invers/<run>

The expert-iteration pipeline (:mod:`training.pipelines.expert_iteration.learner`,
where the method is described) on the run framework (:mod:`training.framework`): a
checkpoint (``model.zip``, loadable as the agent specs ``ppo:path=<run>`` and
``ppo+search:path=<run>``, and scored by ``training/evaluate.py --checkpoint <run>``)
every ``checkpoint_every`` generations, ``--resume``, a clean
stop on Ctrl-C / SIGTERM, and a closing evaluation against the config's
``evaluation.opponents``.
"""

from __future__ import annotations

import sys

from training.framework import command
from training.pipelines.expert_iteration.learner import ExpertIteration


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    return command.main(ExpertIteration, argv, prog, "training/expert_iteration.py", __doc__)


if __name__ == "__main__":
    sys.exit(main())
