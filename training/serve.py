"""Play, watch and replay the games in a web browser: ``tabletop serve``.

    tabletop serve                                   # http://127.0.0.1:8000
    tabletop serve --port 8080 --checkpoints runs/   # offer the run folders under runs/<env>/

Pick a game, its options and who sits in each seat (you, a bot, a shipped network or a
run folder under the checkpoints folder); play against agents, watch agents play, or
open a recorded game (``tabletop record ... game.jsonl``) and step through it. The page
and its JSON API: ``docs/web.md``. The server listens on loopback unless ``--host`` says
otherwise; it holds at most ``--max-sessions`` games, each forgotten ``--session-ttl``
seconds after its last use. Bad input is one line ``error: ...`` and exit code 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from training.framework.console import fail
from training.framework.paths import checkpoint_root
from training.framework.schema import ConfigError


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--checkpoints",
        default=str(checkpoint_root()),
        help="folder of run folders <env>/<run>/ offered as agents (default ./checkpoints)",
    )
    parser.add_argument("--max-sessions", type=int, default=64, help="games and replays held at once (default 64)")
    parser.add_argument(
        "--session-ttl", type=float, default=3600.0, help="seconds an unused game is kept (default 3600)"
    )
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        return fail(ConfigError(f"--port must be 1..65535, got {args.port}"))
    if args.max_sessions <= 0 or args.session_ttl <= 0:
        return fail(ConfigError("--max-sessions and --session-ttl must be positive"))
    checkpoints = Path(args.checkpoints)
    if checkpoints.exists() and not checkpoints.is_dir():
        return fail(ConfigError(f"--checkpoints {checkpoints} is not a folder"))
    # The server and the app (agents, torch) load only to serve: --help and bad input stay fast.
    import torch  # noqa: PLC0415 (torch takes seconds to import: only to serve)
    import uvicorn  # noqa: PLC0415 (the server: only to serve)

    from training.web.app import create_app  # noqa: PLC0415 (the app loads the agents: only to serve)

    torch.set_num_threads(1)  # network agents play on one thread each, as in training/play.py
    app = create_app(checkpoints, args.max_sessions, args.session_ttl)
    print(f"Serving on http://{args.host}:{args.port} (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
