"""Copy a trained PPO run into the folder the project ships it from, small enough to travel in the wheel.

    python training/ship.py checkpoints/roll_five/<run> checkpoints/roll_five/shipped
    python training/ship.py checkpoints/six_hundred/shipped checkpoints/six_hundred/shipped   # slim one in place

A shipped network is played, never resumed: the copy keeps the policy's weights and
drops the optimizer's moment estimates (two thirds of a ``model.zip``), and takes the
run's ``config.yaml``, ``metadata.json`` and learning curve along. The copy loads as
the agent spec ``ppo`` (and ``ppo+search`` for two-player games) exactly as the run did:
the same weights, the same moves. The folder is then added with ``git add -f``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import torch

from agents.run_folder import CONFIG_FILE, CURVE_FILE, METADATA_FILE, MODEL_FILE, CheckpointError
from training.framework.console import USER_ERRORS, fail

COPIED = (CONFIG_FILE, METADATA_FILE, CURVE_FILE)


def ship(run: Path, shipped: Path) -> int:
    """Write ``shipped`` from ``run``; the size of its ``model.zip`` in bytes."""
    from sb3_contrib import MaskablePPO  # noqa: PLC0415 (stable-baselines3 is slow to import: not for --help)

    if not (run / MODEL_FILE).is_file() or not (run / CONFIG_FILE).is_file():
        raise CheckpointError(f"{run} is not a PPO run folder (it needs {MODEL_FILE} and {CONFIG_FILE})")
    model = MaskablePPO.load(str(run / MODEL_FILE), device="cpu")
    policy = model.policy
    policy.optimizer = type(policy.optimizer)(policy.parameters(), **policy.optimizer.defaults)  # no moment estimates
    shipped.mkdir(parents=True, exist_ok=True)
    model.save(str(shipped / MODEL_FILE))
    for name in COPIED:
        if (run / name).is_file() and run.resolve() != shipped.resolve():
            shutil.copyfile(run / name, shipped / name)
    check = MaskablePPO.load(str(shipped / MODEL_FILE), device="cpu").policy.state_dict()
    assert all(torch.equal(check[key], value) for key, value in policy.state_dict().items()), (
        "the shipped weights differ"
    )
    return (shipped / MODEL_FILE).stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the trained run folder")
    parser.add_argument("shipped", help="the folder to write, e.g. checkpoints/<env>/shipped")
    args = parser.parse_args(argv)
    try:
        size = ship(Path(args.run), Path(args.shipped))
    except USER_ERRORS as error:
        return fail(error)
    print(f"{args.shipped}: {MODEL_FILE} of {size / 1e6:.2f} MB (policy weights, no optimizer moments)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
