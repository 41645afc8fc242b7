"""Build the wheel, install it in a clean virtual environment, and use it from another directory.

    python tests/wheel_check.py           # what `make wheel-check` (and so CI, after `make test`) runs
    python tests/wheel_check.py --keep    # keep the temporary folder to look at afterwards

The test suite runs from the source checkout, where every file lies next to the code; this
checks what a user of ``pip install tabletop-dice-rl`` gets. In a temporary folder:

1. the wheel is built from the repository's files (tracked, or new and not ignored: never
   a user's runs or an old ``build/``), with ``pip wheel --no-deps``;
2. its contents: the three packages, the dice faces, every default config and every
   shipped network, nothing else of ``checkpoints/``, and a size of a few MB;
3. a clean virtual environment gets the wheel and its dependencies (``torch==2.13.0``
   from the machine's disk); ``PYTHONPATH`` is cleared, so the source tree cannot help;
4. from an empty working directory: the envs (dice files), the batched envs (every
   ``gymnasium.make_vec``, its kernels compiled in the venv), where the data is found (all
   inside the installed package), ``tabletop --help``, a short training run (the
   packaged ``inverted_dice_scratch`` config for 2048 steps: no warm start, no
   evaluation; the run must land in ``./checkpoints/``), an evaluation of that run, and
   evaluations of the shipped networks (``ppo`` on Invers, ``td`` on Inverted Dice; the
   report must land in ``./results/``).

Every step prints its command, the end of its output and its time; the first failure
ends the check with exit code 1. Most of its time goes to installing the dependencies
in the clean environment.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_WHEEL_MB = (
    10  #: the shipped networks are under 1 MB each (training/ship.py); anything near this limit should not ship
)
STEP_TIMEOUT_S = 420  #: one step (the dependencies' install is the longest)
TOP_LEVEL = {"envs", "agents", "training"}

#: What the installed package must answer, run with the venv's python from the empty working directory:
#: every module and every piece of data from inside the venv, none from the source tree.
WHERE_FROM = """
import sys
from pathlib import Path
import agents, envs, training
from agents.shipped import shipped_network
from envs.games.lost_dice_faces import default_dice_file
from envs.registry import ENVS
from training.framework import paths
from training.framework.command import default_config
from training.pipelines.ppo.learner import PPO

prefix = Path(sys.prefix).resolve()
found = {"envs": envs.__file__, "agents": agents.__file__, "training": training.__file__}
found.update({f"dice {v}": default_dice_file(v) for v in ("lost_dice", "keldice")})
found.update({f"config {env}": default_config(PPO, env) for env in ENVS})
found.update({"config inverted_dice_td": paths.config_path("inverted_dice_td")})
for env in ("inverted_dice", "six_hundred", "invers", "roll_five", "keldice"):
    found[f"ppo {env}"] = shipped_network(env) / "model.zip"
found.update({"td inverted_dice": shipped_network("inverted_dice", "td") / "value.pt"})
bad = [
    f"{what}: {path}"
    for what, path in found.items()
    if not (Path(str(path)).is_file() and Path(str(path)).resolve().is_relative_to(prefix))
]
assert not bad, "not an installed file: " + "; ".join(bad)
assert paths.source_root() is None, paths.source_root()
print(
    f"{len(found)} files, all inside {prefix}: the modules, 2 dice files, "
    f"{len(ENVS) + 1} default configs, 6 shipped networks"
)
print("scratch config:", paths.config_path("inverted_dice_scratch"))
"""

#: Every env's native batched env, made by ``gymnasium.make_vec`` and stepped, in the installed package.
BATCHED = """
import gymnasium, envs
from envs.registry import ENVS
for entry in ENVS.values():
    vec_env = gymnasium.make_vec(entry.gym_id, num_envs=64)
    vec_env.reset(seed=0)
    for _ in range(20):
        vec_env.step(vec_env.action_space.sample())
    print(entry.gym_id, type(vec_env).__name__, "64 games x 20 steps")
"""


def _shown(arg: str) -> str:
    """An argument as printed: quoted for the shell, a long script by its beginning."""
    return shlex.quote(arg) if len(arg) < 100 and "\n" not in arg else f"'{' '.join(arg.split())[:70]} ...'"


class CheckFailed(Exception):
    pass


class Checker:
    def __init__(self, work: Path, env: dict[str, str]):
        self.work, self.env = work, env
        self.count, self.started = 0, time.perf_counter()

    def run(self, what: str, command: list[str], cwd: Path | None = None, show: int = 12) -> str:
        """Run ``command``; print what it checks, the command, its output's last ``show`` lines and its time."""
        print(f"\n== {what}", flush=True)
        print("$ " + " ".join(map(_shown, command)), flush=True)
        started = time.perf_counter()
        try:
            result = subprocess.run(
                command,
                cwd=cwd or self.work,
                env=self.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=STEP_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            raise CheckFailed(f"{what}: no answer within {STEP_TIMEOUT_S} s") from None
        lines = result.stdout.rstrip().splitlines()
        if result.returncode != 0:
            print("\n".join("   " + line for line in lines[-40:]))
            raise CheckFailed(f"{what}: exit code {result.returncode}")
        for line in lines[-show:] if show else []:
            print("   " + line)
        self.passed(what, time.perf_counter() - started)
        return result.stdout

    def expect(self, what: str, condition: bool, detail: str) -> None:
        if not condition:
            raise CheckFailed(f"{what}: {detail}")
        print(f"   ok: {what} ({detail})")

    def passed(self, what: str, seconds: float) -> None:
        self.count += 1
        print(f"-- ok ({seconds:.1f} s)", flush=True)


def source_copy(dest: Path) -> Path:
    """The repository's own files (tracked, or new and not ignored) copied to ``dest``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    files = [name for name in listed.split("\0") if name and (ROOT / name).is_file()]
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    print(f"{len(files)} files of {ROOT} (git ls-files: tracked, or new and not ignored) copied to {dest}")
    return dest


def check_wheel_contents(checker: Checker, wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if not n.endswith("/")]
    size_mb = wheel.stat().st_size / 2**20
    print(f"\n== the wheel's contents: {wheel.name}, {size_mb:.1f} MB, {len(names)} files")
    top = {n.split("/")[0] for n in names if ".dist-info/" not in n}
    checker.expect("only the three packages at the top level", top == TOP_LEVEL, f"{sorted(top)}")
    checker.expect("a few MB", size_mb < MAX_WHEEL_MB, f"{size_mb:.1f} MB < {MAX_WHEEL_MB} MB")
    dice = sorted(n for n in names if n.startswith("envs/games/dice/"))
    checker.expect(
        "the dice faces", dice == ["envs/games/dice/keldice.yaml", "envs/games/dice/lost_dice.yaml"], ", ".join(dice)
    )
    configs = {f"training/configs/{p.name}" for p in (ROOT / "configs").glob("*.yaml")}
    checker.expect(
        "every default config", configs <= set(names), f"{len(configs)} files of configs/*.yaml in training/configs/"
    )
    page = [f"training/web/static/{name}" for name in ("index.html", "app.js", "style.css")]
    checker.expect("the web page", set(page) <= set(names), ", ".join(page))
    references = "training/evaluation/suite_references.json"
    checker.expect("the benchmark's references", references in names, references)
    networks = [n for n in names if n.startswith("agents/checkpoints/")]
    outside = [n for n in networks if not re.fullmatch(r"shipped(_td|_[0-9]p)?", (n.split("/")[3:4] or [""])[0])]
    checker.expect(
        "nothing of checkpoints/ but the shipped folders",
        bool(networks) and not outside,
        f"{len(networks)} files, others: {outside}",
    )
    for env, kind, file in [
        ("inverted_dice", "shipped", "model.zip"),
        ("six_hundred", "shipped", "model.zip"),
        ("invers", "shipped", "model.zip"),
        ("roll_five", "shipped", "model.zip"),
        ("keldice", "shipped", "model.zip"),
        ("inverted_dice", "shipped_td", "value.pt"),
        ("six_hundred", "shipped_td", "value.pt"),
        ("lost_dice", "shipped_td", "value.pt"),
        ("keldice", "shipped_td", "value.pt"),
    ]:
        name = f"agents/checkpoints/{env}/{kind}/{file}"
        checker.expect("shipped network", name in names, name)
    checker.passed("the wheel's contents", 0.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    temp = Path(tempfile.mkdtemp(prefix="wheel-check-"))
    work = temp / "work"  # the user's working directory: empty, outside the repository
    work.mkdir()
    venv = temp / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env.update(
        {
            "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            "VIRTUAL_ENV": str(venv),
            "TABLETOP_DICE_RL_CACHE": str(temp / "cache"),
            "MPLBACKEND": "Agg",
        }
    )
    checker = Checker(work, env)
    python = str(venv / "bin" / "python")
    print(f"wheel check of {ROOT} in {temp}")
    try:
        src = source_copy(temp / "src")
        checker.run(
            "build the wheel",
            [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-w", str(temp / "dist"), "-q"],
            cwd=temp,
        )
        wheel = next((temp / "dist").glob("*.whl"))
        check_wheel_contents(checker, wheel)
        checker.run("a clean virtual environment", [sys.executable, "-m", "venv", str(venv)], cwd=temp)
        checker.run(
            "install the wheel and its dependencies",
            [python, "-m", "pip", "install", "-q", str(wheel)],
            cwd=temp,
            show=4,
        )
        checker.run(
            "versions",
            [
                python,
                "-c",
                "import torch, stable_baselines3, gymnasium, pettingzoo; "
                "print('torch', torch.__version__, '| sb3', stable_baselines3.__version__, "
                "'| gymnasium', gymnasium.__version__, '| pettingzoo', pettingzoo.__version__)",
            ],
        )
        checker.run(
            "the envs from another directory (their dice files)",
            [
                python,
                "-c",
                "from envs import lost_dice_v0; lost_dice_v0.env(); from envs import keldice_v0; keldice_v0.env(); "
                "print('lost_dice_v0 and keldice_v0 made')",
            ],
        )
        checker.run(
            "the batched envs from another directory (their Numba kernels compile and cache inside the venv)",
            [python, "-c", BATCHED],
        )
        out = checker.run("modules and data come from the installed package", [python, "-c", WHERE_FROM])
        scratch = next(line for line in out.splitlines() if line.startswith("scratch config: ")).partition(": ")[2]
        checker.run("the tabletop command", ["tabletop", "--help"], show=20)
        checker.run(
            "a short training run, default location",
            ["tabletop", "train", "--config", scratch, "--timesteps", "2048", "--no-eval", "--no-progress"],
        )
        runs = sorted(work.glob("checkpoints/inverted_dice/*/model.zip"))
        checker.expect(
            "the run is in ./checkpoints/inverted_dice/",
            len(runs) == 1,
            ", ".join(str(r.relative_to(work)) for r in runs),
        )
        run = runs[0].parent.relative_to(work)
        checker.run(
            "evaluate that run",
            ["tabletop", "evaluate", "--checkpoint", str(run), "--games", "20", "--agents", "heuristic", "random"],
        )
        evaluations = sorted((work / run).glob("evaluation-*/report.md"))
        checker.expect(
            "its report is in the run", len(evaluations) == 1, ", ".join(str(r.relative_to(work)) for r in evaluations)
        )
        checker.run(
            "the shipped PPO network (Invers)",
            ["tabletop", "evaluate", "--env", "invers", "--agents", "ppo", "random", "--games", "4"],
        )
        reports = sorted(work.glob("results/invers/*/report.md"))
        checker.expect(
            "the report is in ./results/invers/",
            len(reports) == 1,
            ", ".join(str(r.relative_to(work)) for r in reports),
        )
        checker.run(
            "the shipped turn-value network (Inverted Dice)",
            ["tabletop", "evaluate", "--env", "inverted_dice", "--agents", "td", "random", "--games", "2"],
        )
    except CheckFailed as failure:
        print(
            f"\nwheel check FAILED: {failure} (after {time.perf_counter() - started:.0f} s; files kept in {temp})",
            file=sys.stderr,
        )
        return 1
    size_mb = wheel.stat().st_size / 2**20
    if not args.keep:
        shutil.rmtree(temp, ignore_errors=True)
    print(
        f"\nwheel check passed: {checker.count} steps in {time.perf_counter() - started:.0f} s; "
        f"wheel {wheel.name} {size_mb:.1f} MB" + (f"; kept {temp}" if args.keep else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
