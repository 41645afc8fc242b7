"""Move latency of ``tabletop serve`` under load: N games played at once over loopback.

    python benchmarks/web_load.py                       # 50 concurrent games of 20 moves each
    python benchmarks/web_load.py --games 100 --moves 40 --agent heuristic

Starts the server as a process of its own (``python -m training.serve`` on a free
loopback port), then plays ``--games`` games at once from one asyncio client (httpx),
each ``--moves`` requests long: the person's move (``POST .../move``, the first legal
one) when the person is to act, else one agent move (``POST .../advance``); a game that
ends is replaced by a new one. The games cycle through every env, the person in seat 0
and ``--agent`` in the other seats. Prints the latency of every move request (median,
95th percentile, worst), the throughput and the errors (any answer but 200), then
stops the server. Figures depend on the machine and what else runs on it.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ENVS = ("inverted_dice", "six_hundred", "invers", "roll_five", "lost_dice", "keldice")
PLAYERS = {"inverted_dice": 1, "six_hundred": 1}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def new_game(client: httpx.AsyncClient, env: str, agent: str, seed: int) -> dict:
    players = PLAYERS.get(env, 2)
    response = await client.post(
        "/api/sessions",
        json={
            "env": env,
            "options": {"num_players": players},
            "seats": ["human"] + [agent] * (players - 1),
            "seed": seed,
        },
    )
    response.raise_for_status()
    return response.json()


async def play(
    client: httpx.AsyncClient, env: str, agent: str, moves: int, seed: int, latencies: list, errors: list
) -> None:
    """One client's ``moves`` requests, starting games of ``env`` as they end."""
    view = await new_game(client, env, agent, seed)
    for _ in range(moves):
        if view["next"] == "over":
            await client.delete(f"/api/sessions/{view['id']}")
            seed += 1000
            view = await new_game(client, env, agent, seed)
        if view["next"] == "human":
            request = client.post(f"/api/sessions/{view['id']}/move", json={"action": view["legal"][0]["action"]})
        else:
            request = client.post(f"/api/sessions/{view['id']}/advance")
        started = time.perf_counter()
        response = await request
        latencies.append(time.perf_counter() - started)
        if response.status_code != 200:
            errors.append(f"{response.status_code} {response.text[:200]}")
            return
        view = response.json()
    await client.delete(f"/api/sessions/{view['id']}")


async def load(base_url: str, games: int, moves: int, agent: str) -> dict:
    """Play ``games`` clients of ``moves`` move requests each at once; the latencies and errors."""
    latencies: list[float] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=games, max_keepalive_connections=games)
    async with httpx.AsyncClient(base_url=base_url, timeout=120, limits=limits) as client:
        started = time.perf_counter()
        envs = itertools.cycle(ENVS)
        await asyncio.gather(*(play(client, next(envs), agent, moves, g, latencies, errors) for g in range(games)))
        elapsed = time.perf_counter() - started
    ms = np.array(latencies) * 1000
    return {
        "requests": len(ms),
        "errors": errors,
        "seconds": elapsed,
        "p50_ms": float(np.percentile(ms, 50)),
        "p95_ms": float(np.percentile(ms, 95)),
        "max_ms": float(ms.max()),
    }


def start_server(port: int, max_sessions: int, session_ttl: float = 3600.0) -> subprocess.Popen:
    """``python -m training.serve`` on loopback ``port``, once it answers (within 120 s)."""
    command = [
        *(sys.executable, "-m", "training.serve", "--port", str(port)),
        *("--max-sessions", str(max_sessions), "--session-ttl", str(session_ttl)),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped: {server.stdout.read()}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=5).raise_for_status()
            return server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("the server did not start within 120 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50, help="games played at once (default 50)")
    parser.add_argument("--moves", type=int, default=20, help="move requests per game (default 20)")
    parser.add_argument(
        "--agent", default="random", help="the agent in the other seats (default random; a bot name of every game)"
    )
    args = parser.parse_args(argv)
    if args.games <= 0 or args.moves <= 0:
        print("error: --games and --moves must be positive", file=sys.stderr)
        return 2
    port = free_port()
    server = start_server(port, 2 * args.games + 8)
    try:
        result = asyncio.run(load(f"http://127.0.0.1:{port}", args.games, args.moves, args.agent))
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(
        f"{args.games} concurrent games x {args.moves} moves (other seats: {args.agent}) on loopback, "
        "server in its own process"
    )
    print(
        f"move requests: {result['requests']}, errors: {len(result['errors'])}, "
        f"{result['requests'] / result['seconds']:.0f} requests/s over {result['seconds']:.1f} s"
    )
    print(
        f"latency per move request: p50 {result['p50_ms']:.1f} ms, p95 {result['p95_ms']:.1f} ms, "
        f"max {result['max_ms']:.1f} ms"
    )
    for problem in result["errors"][:5]:
        print(f"  error: {problem}")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
