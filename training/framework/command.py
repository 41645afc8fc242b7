"""The command line of every training pipeline: one parser, one way to start, resume and report.

    python training/train.py --env invers                      # PPO (configs/invers.yaml)
    python training/train_td.py --env inverted_dice            # turn-value TD (configs/inverted_dice_td.yaml)
    python training/train.py --config configs/invers_distill.yaml
    python training/train_rllib.py --env invers                # Ray RLlib (configs/invers_rllib.yaml)

Every one of them takes ``--env``, ``--config``, ``--resume RUN_DIR``, ``--seed``,
``--run-dir``, ``--eval-games``, ``--no-eval``, ``--no-progress`` and the overrides its
pipeline declares (its budget, such as ``--timesteps`` or ``--games``, and a few keys
of its own). A new run goes to ``checkpoints/<env>/<date>-<time>-<algorithm>-seed<seed>/``;
after training, the run is evaluated against its config's opponents
(``training/evaluate.py``'s report in ``<run>/evaluation/``). Bad input (config values,
agents, env options, an unusable checkpoint) is one line on stderr and exit code 2,
before anything runs; Ctrl-C or SIGTERM saves a checkpoint and exits with 130 / 143,
printing the command that resumes.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from agents.run_folder import CONFIG_FILE, METADATA_FILE
from envs.registry import ENVS, make_game
from training.evaluation.report import evaluate_run
from training.framework import run_set
from training.framework.config import RunConfig, build_agent, config_from_dict, load_config
from training.framework.console import USER_ERRORS, arguments, fail, interrupted, invocation
from training.framework.paths import checkpoint_root, config_path
from training.framework.run import Pipeline, print_interrupted, run_training
from training.framework.run_set_folder import is_run_set, read_run_set
from training.framework.schema import ConfigError, read_mapping
from training.framework.stop import TrainingInterrupted, stop_requested_by_signals
from training.pipelines import PIPELINES, pipeline_class

EVALUATE_SCRIPT = "training/evaluate.py"


def parse_args(
    pipeline: type[Pipeline], argv: list[str] | None, prog: str | None, script: str, description: str
) -> argparse.Namespace:
    default = pipeline.default_config.format(env="<env>") + ".yaml"
    parser = argparse.ArgumentParser(
        prog=prog or script,
        description=description,
        epilog=closing_evaluation_cost(default, invocation(EVALUATE_SCRIPT, prog)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    defaults = default_config_help(pipeline)
    parser.add_argument("--env", help=f"env name (its default config: {defaults})")
    parser.add_argument("--config", help=f"config file (default: {defaults})")
    parser.add_argument(
        "--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint up to its budget"
    )
    parser.add_argument("--seed", type=int, help="seed (overrides the config)")
    parser.add_argument(
        "--run-dir", help=f"where to write the run (default: checkpoints/<env>/<time>-{pipeline.name}-seed<seed>)"
    )
    for option in pipeline.overrides:
        text = f"{option.help} (overrides the config's {option.key})"
        if option.type is bool:  # a switch: given, it sets the key true; absent, the config's value stands
            parser.add_argument(f"--{option.flag}", action="store_true", default=None, dest=option.key, help=text)
        else:
            metavar = option.flag.upper().replace("-", "_")
            parser.add_argument(f"--{option.flag}", type=option.type, dest=option.key, metavar=metavar, help=text)
    parser.add_argument(
        "--eval-games",
        type=int,
        metavar="N",
        help="games per pairing (per agent in a one-player game) of the closing evaluation "
        "(overrides the config's evaluation.games)",
    )
    parser.add_argument(
        "--no-eval",
        action="store_true",
        help="skip the closing evaluation, in this session and every resume of the run (its config's "
        "evaluation.enabled: false; a resume with --eval-games N turns it back on)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar or lines")
    runs = parser.add_argument_group("several seeds: a run set (training/framework/run_set.py)")
    runs.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        metavar="SEED",
        help="train one run per seed into one run-set folder (--run-dir names it), then report over the runs; "
        "--resume RUN_SET finishes one",
    )
    runs.add_argument(
        "--parallel",
        type=int,
        metavar="N",
        help="with --seeds: runs at once on this machine (default: as the CPUs allow)",
    )
    if not any(option.flag == "address" for option in pipeline.overrides):
        runs.add_argument(
            "--address", help="with --seeds: train the runs as Ray tasks on the cluster at HOST:PORT (or RAY_ADDRESS)"
        )
    return parser.parse_args(argv)


def default_config_help(pipeline: type[Pipeline]) -> str:
    """Which config ``--env`` reads for ``pipeline``, in words, as :func:`default_config` chooses it."""
    default = pipeline.default_config.format(env="<env>") + ".yaml"
    if default == "<env>.yaml":
        return f"configs/<env>.yaml, or configs/<env>_{pipeline.name}.yaml where that one names another pipeline"
    return f"configs/<env>.yaml where it names the {pipeline.name} pipeline, else configs/{default}"


def closing_evaluation_cost(default_config: str, evaluate_command: str) -> str:
    """What ``--help`` says after the options: the closing evaluation, which a short run's user
    does not expect to cost more than the training it follows, and how to shorten or skip it."""
    return f"""\
What a run costs in all: its training, then the closing evaluation, which can take longer
than a short training. The evaluation plays the trained agent against each of the config's
evaluation.opponents, evaluation.games games for every pairing (k opponents: k pairings;
a one-player game: evaluation.games games per agent), and a search bot's games cost the most
(configs/{default_config} sets the opponents and the games). Its progress lines say how long
it has left. --eval-games N plays N games per pairing instead and --no-eval skips it; either
way the saved run can be evaluated later: {evaluate_command} --checkpoint RUN_DIR"""


def check_args(pipeline: type[Pipeline], args: argparse.Namespace) -> None:
    """The options' values, checked together: a ``ConfigError`` (one line, exit 2, as every
    other bad input) rather than argparse's usage block."""
    if not (args.env or args.config or args.resume):
        raise ConfigError("give --env NAME, --config FILE or --resume RUN_DIR")
    if args.resume and args.config:
        raise ConfigError(f"--resume continues a run with its own {CONFIG_FILE}; --config cannot be combined with it")
    if args.resume and args.run_dir:
        raise ConfigError("--resume continues the run in its own folder; --run-dir cannot be combined with it")
    for option in pipeline.overrides:
        value = getattr(args, option.key)
        if option.positive and value is not None and value <= 0:
            raise ConfigError(f"--{option.flag} must be positive, got {value}")
    if args.no_eval and args.eval_games is not None:
        raise ConfigError("--no-eval skips the closing evaluation; --eval-games cannot be combined with it")
    if args.eval_games is not None and args.eval_games <= 0:
        raise ConfigError(f"--eval-games must be positive, got {args.eval_games}")


def new_run_dir(env: str, algorithm: str, seed: int) -> Path:
    """``checkpoints/<env>/<date>-<time>-<algorithm>-seed<seed>``."""
    return checkpoint_root() / env / f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{algorithm}-seed{seed}"


def resolve(pipeline: type[Pipeline], args: argparse.Namespace):
    """The config to train with, the run directory and (with ``--resume``) the checkpoint. Reads; writes nothing."""
    overrides: dict[str, Any] = {
        o.key: getattr(args, o.key) for o in pipeline.overrides if getattr(args, o.key) is not None
    }
    checkpoint = None
    if args.resume:
        run_dir = Path(args.resume)
        if not (run_dir / CONFIG_FILE).is_file():
            raise ConfigError(f"cannot resume: {run_dir / CONFIG_FILE} does not exist (is {run_dir} a run folder?)")
        config = load_with_overrides(pipeline, run_dir / CONFIG_FILE, overrides, saved_run=True)
        retired = sorted(set(read_mapping(run_dir / CONFIG_FILE)) - set(config.to_dict()))
        if retired:  # read as what they meant (RunConfig.from_earlier); the session rewrites config.yaml so
            print(
                f"{run_dir / CONFIG_FILE} was written with keys this version no longer reads ({', '.join(retired)}): "
                "resumed as what they meant, and rewritten in today's keys"
            )
        if args.env and args.env != config.env:
            raise ConfigError(f"cannot resume: run {run_dir} trained env {config.env!r}, not {args.env!r}")
        if args.seed is not None:
            raise ConfigError("cannot resume with a different --seed; the run keeps its own")
        checkpoint = pipeline.read_checkpoint(run_dir)
    else:
        if args.env:
            pipeline.check_env(args.env)
        path = Path(args.config) if args.config else default_config(pipeline, args.env)
        if args.seed is not None:
            overrides["seed"] = args.seed
        config = load_with_overrides(pipeline, path, overrides)
        if args.env and args.env != config.env:
            raise ConfigError(f"config {path} is for env {config.env!r}, not {args.env!r}")
        if config.pipeline not in (None, pipeline.name):
            raise ConfigError(
                f"config {path} is for the {config.pipeline} pipeline, not {pipeline.name}; "
                "run it with training/train.py, which runs the pipeline a config names"
            )
        config.pipeline = pipeline.name  # the run's config.yaml names the pipeline that ran it: --resume finds it
        if pipeline.budget_key in overrides:  # a shorter (or longer) run than the config plans
            planned = load_config(
                pipeline.schema, path, {k: v for k, v in overrides.items() if k != pipeline.budget_key}
            )
            note = pipeline.fit_to_budget(config, getattr(planned, pipeline.budget_key), set(overrides))
            if note:
                print(note)
        run_dir = Path(args.run_dir) if args.run_dir else new_run_dir(config.env, pipeline.name, config.seed)
        if (run_dir / METADATA_FILE).exists() or (run_dir / CONFIG_FILE).exists():
            raise ConfigError(f"{run_dir} already holds a run; use --resume {run_dir} to continue it")
    if args.eval_games is not None:  # asks for the closing evaluation, also of a run started with --no-eval
        config.evaluation.games, config.evaluation.enabled = args.eval_games, True
    elif args.no_eval:  # the run's choice: written to its config.yaml, so a resume keeps it
        config.evaluation.enabled = False
    config = config_from_dict(
        pipeline.schema, config.to_dict(), source="resolved config (config file and command line)"
    )
    if checkpoint is not None and checkpoint.done >= getattr(config, pipeline.budget_key):
        raise ConfigError(
            f"run {run_dir} already has {checkpoint.done} {pipeline.unit} "
            f"(budget {getattr(config, pipeline.budget_key)}); ask for more with the budget option"
        )
    return config, run_dir, checkpoint


def load_with_overrides(
    pipeline: type[Pipeline], path: Path, overrides: dict[str, Any], saved_run: bool = False
) -> RunConfig:
    """The config at ``path`` with the command line's ``overrides``; where the file is valid alone
    but not with them, the error names the options as the source of the bad values, not the file.
    ``saved_run``: a run folder's ``config.yaml`` (:func:`~training.framework.config.load_config`)."""
    try:
        return load_config(pipeline.schema, path, overrides, saved_run=saved_run)
    except ConfigError:
        if not overrides:
            raise
        load_config(pipeline.schema, path, saved_run=saved_run)  # the file's own faults are the file's
    flags = {option.key: option.flag for option in pipeline.overrides} | {"seed": "seed"}
    options = " ".join(f"--{flags[key]} {value}" for key, value in overrides.items())
    return load_config(pipeline.schema, path, overrides, source=f"{options} (over {path})", saved_run=saved_run)


def default_config(pipeline: type[Pipeline], env: str) -> Path:
    """The pipeline's default config of ``env``: ``configs/<env>.yaml`` where that names this
    pipeline (the env's main config, what ``training/train.py --env`` runs: Six Hundred's TD
    recipe, Invers' expert iteration); else the pipeline's own (``configs/<env>.yaml`` for
    PPO, ``configs/<env>_td.yaml`` for TD, ...); where ``configs/<env>.yaml`` names another
    pipeline, ``configs/<env>_<pipeline>.yaml`` (Six Hundred's and Invers' PPO recipes
    beside their main configs); a ConfigError saying why not."""
    if env not in ENVS:
        raise ConfigError(f"unknown env {env!r}; known envs: {', '.join(sorted(ENVS))}")
    main_config = config_path(env)
    if main_config.is_file() and declared_pipeline(main_config) == pipeline.name:
        return main_config
    path = config_path(pipeline.default_config.format(env=env))
    if path.is_file() and declared_pipeline(path) in (None, pipeline.name):
        return path
    own = config_path(f"{env}_{pipeline.name}")  # the env's recipe for this pipeline beside a main config of another
    if own.is_file():
        return own
    raise ConfigError(f"{env} has no default {pipeline.name} config ({path} does not exist); give one with --config")


def declared_pipeline(path: Path) -> str | None:
    """The ``pipeline`` key of the config at ``path``, or None where it has none or cannot be read
    (the full reading of the config then reports what is wrong with it)."""
    try:
        raw = read_mapping(path)
    except ConfigError:
        return None
    return raw.get("pipeline") if isinstance(raw.get("pipeline"), str) else None


def ran_pipeline(run_dir: Path) -> str | None:
    """The pipeline that wrote run folder ``run_dir`` (its ``metadata.json``'s ``algorithm``), or None."""
    try:
        algorithm = json.loads((run_dir / METADATA_FILE).read_text()).get("algorithm")
    except (OSError, ValueError, AttributeError):
        return None
    return algorithm if isinstance(algorithm, str) else None


def pipeline_for(argv: list[str] | None, default: type[Pipeline]) -> type[Pipeline]:
    """The pipeline a command line asks for: the one named by the ``pipeline`` key of the
    config it would read (``--resume RUN_DIR``'s, ``--config``'s, or ``--env``'s default,
    ``configs/<env>.yaml``), else ``default``. What ``training/train.py`` runs; ``argv`` None reads
    the process's arguments, as argparse does."""
    parser = argparse.ArgumentParser(add_help=False)
    for option in ("--env", "--config", "--resume"):
        parser.add_argument(option)
    known, _ = parser.parse_known_args(argv)
    if known.resume and is_run_set(Path(known.resume)):  # a run set: the pipeline its runs ran
        return pipeline_class(read_run_set(Path(known.resume))["pipeline"])
    if known.resume:
        path = Path(known.resume) / CONFIG_FILE
        ran = ran_pipeline(Path(known.resume))
        if ran in PIPELINES and declared_pipeline(path) is None:  # a run folder written before config.yaml named it
            return pipeline_class(ran)
    elif known.config:
        path = Path(known.config)
    elif known.env in ENVS:
        path = config_path(default.default_config.format(env=known.env))
    else:
        return default
    name = declared_pipeline(path) if path.is_file() else None
    return pipeline_class(name) if name in PIPELINES else default


def build_evaluation_agents(config: RunConfig) -> None:
    """Build every opponent of the closing evaluation once, before training: a bot that
    cannot play this game, or an unusable solver cache, is reported now rather than after
    the training; a bot with a solved table (``optimal``) solves or loads it now."""
    game = make_game(config.env, **config.env_kwargs)
    for spec in config.evaluation.opponents:
        build_agent(config.env, spec, game, seed=0)


def main(pipeline: type[Pipeline], argv: list[str] | None, prog: str | None, script: str, description: str) -> int:
    """Parse, train (or resume), then evaluate: a training command's whole life.

    ``prog`` is the command's name as :mod:`training.tabletop` started it (``"tabletop train"``), or None
    for the script ``script`` (``"training/train.py"``) run directly: its usage line and its hints name it so.
    SIGINT / SIGTERM are caught from the start: a signal that comes while the config is
    read or the learner is built stops the run at its first chance, with a checkpoint.
    """
    args = parse_args(pipeline, argv, prog, script, description)
    command, evaluate_command = invocation(script, prog), invocation(EVALUATE_SCRIPT, prog)
    if args.seeds or (args.resume and is_run_set(Path(args.resume))):
        try:
            return train_seeds(pipeline, args, arguments() if argv is None else list(argv), command)
        except USER_ERRORS as error:
            return fail(error)
    if args.parallel is not None or (args.address and not hasattr(pipeline.schema, "address")):
        return fail(ConfigError("--parallel and --address choose where a run set's runs go: give --seeds"))
    run_dir = None
    with stop_requested_by_signals() as stop:
        try:
            check_args(pipeline, args)
            pipeline.check_installed()
            config, run_dir, checkpoint = resolve(pipeline, args)
            if config.evaluation.enabled:
                build_evaluation_agents(config)
            learner = pipeline(config, run_dir, checkpoint)
            if checkpoint is not None:
                print(f"Resuming {run_dir} at {checkpoint.done} of {learner.budget} {pipeline.unit}")
            else:
                print(f"Training {config.env} ({pipeline.name}) for {learner.budget} {pipeline.unit} -> {run_dir}")
            metadata = run_training(learner, checkpoint, progress=not args.no_progress, stop=stop)
        except USER_ERRORS as error:
            return fail(error)
        except TrainingInterrupted as stopped:
            print_interrupted(stopped, command, run_dir, pipeline.unit, evaluate_command)
            return interrupted(stopped.signum)
        except KeyboardInterrupt:
            saved = run_dir is not None and (run_dir / METADATA_FILE).is_file()
            hint = (
                f"the last checkpoint is intact; resume with: {command} --resume {run_dir}"
                if saved
                else "nothing was saved"
            )
            print(f"\ninterrupted: {hint}", file=sys.stderr)
            return interrupted()
    wall = metadata["sessions"][-1]["wall_time_s"]
    print(f"Trained {metadata[pipeline.unit]} {pipeline.unit} in {wall:.0f} s{learner.timing(wall)}; run: {run_dir}")
    if not config.evaluation.enabled:
        print(
            f"No closing evaluation (the run's evaluation.enabled is false); evaluate with: "
            f"{evaluate_command} --checkpoint {run_dir}"
        )
        return 0
    return closing_evaluation(learner, run_dir, config, evaluate_command)


def train_seeds(pipeline: type[Pipeline], args: argparse.Namespace, argv: list[str], command: str) -> int:
    """``--seeds``: a new run set, its config checked once before any run starts; or
    ``--resume RUN_SET``: the runs it misses. Then its report (:mod:`training.framework.run_set`)."""
    address = run_set.set_address(args)
    if args.resume:
        info = read_run_set(Path(args.resume))
        return run_set.train_run_set(Path(args.resume), run_set.local_parallel(args, int(info.get("cpus", 1))), address)
    if args.seed is not None:
        raise ConfigError("--seeds gives every run its seed; --seed cannot be combined with it")
    check_args(pipeline, args)
    pipeline.check_installed()
    first = argparse.Namespace(**{**vars(args), "seed": args.seeds[0], "run_dir": None})
    config, _, _ = resolve(pipeline, first)  # the recipe checked once, before any run starts
    cpus = run_set.run_set_cpus(config)
    parallel = run_set.local_parallel(args, cpus) if address is None else None
    base = run_set.run_command(argv)
    line = f"{command} {shlex.join(argv)}"
    folder = run_set.new_run_set(config.env, pipeline.name, args.seeds, base, line, cpus, args.run_dir)
    return run_set.train_run_set(folder, parallel, address)


def closing_evaluation(learner: Pipeline, run_dir: Path, config: RunConfig, evaluate_command: str) -> int:
    print(
        f"Closing evaluation, {config.evaluation.games} games per agent or pairing "
        "(--eval-games N shortens it, --no-eval skips it)"
    )
    try:
        evaluate_run(run_dir, games=config.evaluation.games, candidate=learner.agent_spec())
    except USER_ERRORS as error:
        fail(error)
        print(
            f"The trained run is saved; evaluate it with: {evaluate_command} --checkpoint {run_dir}",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(
            f"\nevaluation interrupted; the trained run is saved: {evaluate_command} --checkpoint {run_dir}",
            file=sys.stderr,
        )
        return interrupted()
    return 0
