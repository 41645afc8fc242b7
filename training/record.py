"""Record one whole game, every seat played by the same agent: an animated GIF, or a
record to replay (``.jsonl``).

    python -m training.record --env inverted_dice --agent heuristic out.gif
    python -m training.record --env invers --agent search:depth=2 --seed 3 invers.gif
    python -m training.record --env roll_five --agent heuristic --players 3 game.jsonl

A ``.gif``: one frame per action (the env's ``render_mode="rgb_array"`` picture), the
last frame held longer. A ``.jsonl``: the game's record (:mod:`training.records.game_record`:
its seed, options and actions, in JSON lines), which ``tabletop serve`` replays step by
step; the game is played by :func:`agents.match.play_game`, as the evaluation plays it.
Agents are named as everywhere else (``agents.registry``): bots, ``ppo``, ``ppo+search``,
a trained run's path. Bad input is one line ``error: ...``, exit code 2."""

from __future__ import annotations

import argparse
from pathlib import Path

from envs.registry import ENVS, make_game
from training.framework.config import ConfigError, check_agent_spec
from training.framework.console import USER_ERRORS, fail
from training.records.game_record import SUFFIX
from training.records.recording import play_frames, play_record, save_gif


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, choices=sorted(ENVS))
    parser.add_argument("--agent", default="random", help="agent spec, e.g. heuristic or search:depth=2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the game's)")
    parser.add_argument("--frame-ms", type=int, default=250, help="milliseconds per frame")
    parser.add_argument("output", help=f"the file to write: a .gif picture, or a {SUFFIX} record to replay")
    args = parser.parse_args(argv)
    try:
        if args.players is not None:
            try:
                make_game(args.env, num_players=args.players)
            except ValueError as error:
                raise ConfigError(f"--players: {error}") from None
        check_agent_spec(args.env, args.agent, "--agent")
        output = Path(args.output)
        if output.is_dir():
            raise ConfigError(
                f"output {output} is a folder; give the .gif file to write, e.g. {output / (args.env + '.gif')}"
            )
        if not output.resolve().parent.is_dir():
            raise ConfigError(f"output {output}: the folder {output.parent} does not exist")
        if args.frame_ms <= 0:
            raise ConfigError(f"--frame-ms must be positive, got {args.frame_ms}")
        if output.suffix == SUFFIX:
            record, final = play_record(args.env, args.agent, args.seed, args.players)
            record.write(output, final)
            print(f"wrote {args.output}: a record of {len(record.moves)} actions")
            return 0
        frames = play_frames(args.env, args.agent, args.seed, args.players)
    except USER_ERRORS as error:
        return fail(error)
    save_gif(frames, args.output, args.frame_ms)
    print(f"wrote {args.output}: {len(frames)} frames")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
