"""Play a game in the terminal against any agent.

    python training/play.py --env invers --opponent ppo+search
    python training/play.py --env invers --opponent search:depth=4 --seat 1 --seed 7

The board is drawn as text, as your seat sees it (``GameState.render_for``: in Roll Five
the other players' cards stay face down and their rolls unseen until the reveal), before
each of your moves and again with your move on it before another player replies; in a
game of simultaneous moves the others' choices are told once the round resolves. Type a
move by its id or its name (``3``, or ``row 1 ←``; case and spaces do not matter, and a
unique beginning of a name is enough); ``?`` lists the legal moves, ``q`` quits. A move
that is not legal is refused with the legal ones listed, and asked for again. In games
of more than two players the opponent agent plays every other seat. A game of several
players ends with "You win.", "A draw." or "You lose."; a solitaire game with your final
score.

Bad input (an unknown env or agent, a seat the game does not have, a missing network:
``ppo`` for a game without a shipped network names the games that have one and the
command that trains one) is one line ``error: ...`` on stderr and exit code 2; anything
else is a bug and keeps its traceback."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from agents.base import Agent
from envs.core import Game
from envs.registry import ENVS, make_game
from training.framework.config import ConfigError, build_agent, check_agent_spec
from training.framework.console import USER_ERRORS, fail
from training.terminal.game import Quit, play


def game_and_opponent(env: str, opponent: str, seat: int, seed: int) -> tuple[Game, Agent]:
    """The game and the opponent the command line names.

    Bad input (an unknown env, an unknown agent or option, a seat the game does not have,
    a missing or unusable network or solver cache) raises one of
    :data:`training.framework.console.USER_ERRORS`, with a message that names the option.
    """
    if env not in ENVS:
        raise ConfigError(f"--env: unknown env {env!r}; known envs: {', '.join(sorted(ENVS))}")
    game = make_game(env)
    if not 0 <= seat < game.num_players:
        raise ConfigError(f"--seat must be in 0..{game.num_players - 1} for {env}, got {seat}")
    check_agent_spec(env, opponent, "--opponent")
    return game, build_agent(env, opponent, game, seed=seed)


def main(
    argv: list[str] | None = None,
    prog: str | None = None,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", required=True, help=f"env name: {', '.join(sorted(ENVS))}")
    parser.add_argument("--opponent", default="random", help="agent spec of the opponent (default random)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0: you move first)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the game's chance and the opponent")
    args = parser.parse_args(argv)
    import torch  # noqa: PLC0415 (for a network opponent; torch takes seconds to import: --help starts fast)

    torch.set_num_threads(1)
    try:
        game, opponent = game_and_opponent(args.env, args.opponent, args.seat, args.seed)
    except USER_ERRORS as error:
        return fail(error)
    try:
        play(game, opponent, args.seat, args.seed, ask, say)
    except (Quit, EOFError, KeyboardInterrupt):
        say("Game abandoned.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
