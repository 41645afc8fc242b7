"""A soak run of ``tabletop serve`` on loopback: clients playing whole games for minutes, then its cap and expiry.

    python -m benchmarks.web_soak                                    # 20 clients for 10 minutes
    python -m benchmarks.web_soak --clients 4 --minutes 0.5 --session-ttl 3 --max-sessions 64

The server runs as a process of its own (``python -m training.serve``, as
``benchmarks/web_load.py`` starts it), with ``--max-sessions`` and ``--session-ttl``.

**The soak.** ``--clients`` clients play whole games at once for ``--minutes``, each game
after the other, through every env in turn: the person (seat 0) plays the first legal
move, the other seats are ``--agent``, one ``advance`` request per agent move. A client
deletes the game it has finished, except one in ``--abandon``, which it leaves as a closed
browser tab does, for the server to forget ``--session-ttl`` seconds later. Every
``--sample`` seconds the server's sessions (``GET /api/status``) and its memory (resident
set size, ``/proc``) are read.

**The cap and the expiry.** Then, once the games the soak abandoned have expired (so that
none can expire between the refusal and the count that checks it), new games are asked for
until the server refuses one: the refusal (503) must come when it holds exactly ``--max-sessions``. Nothing is sent for
the time to live, after which the server must hold no session and start a new game.

It prints (and with ``--out DIR`` writes ``DIR/report.md`` and ``DIR/soak.json``) the
requests and requests per second, the latency of every request (median, 99th
percentile, worst), the errors (any answer but 200, 201 or 204 during the soak), the
sessions held (least, mean, most), and the server's memory before the soak, after its
first quarter (warmed up: networks loaded, caches filled) and at its end. The memory is
flat when the end is within ``--memory-tolerance`` (default 10%) of the warmed-up figure.
The exit status is 1 when a request failed, the cap or the expiry did not hold, or the
memory was not flat; 2 for bad arguments. Figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

from benchmarks.web_load import ENVS, free_port, new_game, start_server
from training.evaluation.machine import MachineRecord, machine

OK = (200, 201, 204)


@dataclass
class Soak:
    """What the soak measured."""

    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    games: int = 0
    abandoned: int = 0
    sessions: list[int] = field(default_factory=list)  #: sampled
    memory_mb: list[tuple[float, float]] = field(default_factory=list)  #: (seconds into the soak, MB), sampled
    seconds: float = 0.0


def resident_mb(pid: int) -> float:
    """The process's resident set size in MB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


async def timed(soak: Soak, request) -> httpx.Response:
    started = time.perf_counter()
    response = await request
    soak.latencies_ms.append((time.perf_counter() - started) * 1000)
    if response.status_code not in OK:
        soak.errors.append(
            f"{response.request.method} {response.request.url.path}: {response.status_code} {response.text[:200]}"
        )
    return response


async def client_games(client: httpx.AsyncClient, soak: Soak, first: int, agent: str, abandon: int, until: float):
    """One client's whole games, one after another, until the monotonic time ``until``."""
    envs = itertools.islice(itertools.cycle(ENVS), first, None)
    for number in itertools.count():
        if time.monotonic() >= until:
            return
        seed = first * 100_000 + number
        started = time.perf_counter()
        try:
            view = await new_game(client, next(envs), agent, seed)
        except httpx.HTTPStatusError as refused:
            soak.errors.append(f"new game: {refused.response.status_code} {refused.response.text[:200]}")
            return
        finally:
            soak.latencies_ms.append((time.perf_counter() - started) * 1000)
        while view["next"] != "over":
            if view["next"] == "human":
                request = client.post(f"/api/sessions/{view['id']}/move", json={"action": view["legal"][0]["action"]})
            else:
                request = client.post(f"/api/sessions/{view['id']}/advance")
            response = await timed(soak, request)
            if response.status_code not in OK:
                return
            view = response.json()
        soak.games += 1
        if number % abandon == abandon - 1:
            soak.abandoned += 1
        else:
            await timed(soak, client.delete(f"/api/sessions/{view['id']}"))


async def sampler(client: httpx.AsyncClient, soak: Soak, pid: int, every: float, started: float, until: float):
    while True:
        soak.sessions.append((await client.get("/api/status")).json()["sessions"])
        soak.memory_mb.append((time.monotonic() - started, resident_mb(pid)))
        if time.monotonic() >= until:
            return
        await asyncio.sleep(min(every, max(0.0, until - time.monotonic())))


async def soak_run(base_url: str, pid: int, args: argparse.Namespace) -> Soak:
    soak = Soak()
    limits = httpx.Limits(max_connections=args.clients + 2, max_keepalive_connections=args.clients + 2)
    async with httpx.AsyncClient(base_url=base_url, timeout=120, limits=limits) as client:
        started = time.monotonic()
        until = started + args.minutes * 60
        await asyncio.gather(
            sampler(client, soak, pid, args.sample, started, until),
            *(client_games(client, soak, k, args.agent, args.abandon, until) for k in range(args.clients)),
        )
        soak.seconds = time.monotonic() - started
    return soak


async def cap_and_expiry(base_url: str, agent: str, max_sessions: int, ttl: float) -> dict:
    """Fill the server to its refusal, wait out the time to live, and start one game again."""
    async with httpx.AsyncClient(base_url=base_url, timeout=120) as client:
        await asyncio.sleep(
            ttl + 1.5
        )  # the soak's abandoned games expire first: one expiring mid-fill made the count racy
        held_before = (await client.get("/api/status")).json()["sessions"]
        created = 0
        while True:
            response = await client.post(
                "/api/sessions", json={"env": "roll_five", "options": {}, "seats": ["human", agent], "seed": created}
            )
            if response.status_code != 201:
                break
            created += 1
            if created > max_sessions:
                break
        refusal = {"status": response.status_code, "error": response.json().get("error", "")}
        held_at_refusal = (await client.get("/api/status")).json()["sessions"]
        await asyncio.sleep(ttl + 1.5)
        held_after_ttl = (await client.get("/api/status")).json()["sessions"]
        again = await client.post("/api/sessions", json={"env": "roll_five", "seats": ["human", agent]})
    return {
        "held_before": held_before,
        "created": created,
        "refusal": refusal,
        "held_at_refusal": held_at_refusal,
        "cap_held": refusal["status"] == 503 and held_at_refusal == max_sessions,
        "held_after_ttl": held_after_ttl,
        "new_game_after_ttl": again.status_code,
        "expiry_held": held_after_ttl == 0 and again.status_code == 201,
    }


def memory_at(samples: list[tuple[float, float]], seconds: float) -> float:
    """The first sampled memory at or after ``seconds`` into the soak (the last one if none)."""
    return next((mb for at, mb in samples if at >= seconds), samples[-1][1])


def summary(soak: Soak, limits: dict, idle_mb: float, args: argparse.Namespace) -> dict:
    ms = np.array(soak.latencies_ms)
    warm = memory_at(soak.memory_mb, soak.seconds / 4)
    end = soak.memory_mb[-1][1]
    return {
        "clients": args.clients,
        "minutes": args.minutes,
        "agent": args.agent,
        "requests": int(ms.size),
        "requests_per_s": round(ms.size / soak.seconds, 1),
        "p50_ms": round(float(np.percentile(ms, 50)), 1),
        "p99_ms": round(float(np.percentile(ms, 99)), 1),
        "max_ms": round(float(ms.max()), 1),
        "errors": len(soak.errors),
        "first_errors": soak.errors[:5],
        "games": soak.games,
        "abandoned": soak.abandoned,
        "sessions": {
            "least": min(soak.sessions),
            "mean": round(float(np.mean(soak.sessions)), 1),
            "most": max(soak.sessions),
        },
        "memory_mb": {
            "before": round(idle_mb, 1),
            "warmed_up": round(warm, 1),
            "end": round(end, 1),
            "most": round(max(mb for _, mb in soak.memory_mb), 1),
        },
        "memory_growth": round(end / warm - 1, 4),
        "memory_flat": end <= warm * (1 + args.memory_tolerance),
        "memory_samples": [(round(at, 1), round(mb, 1)) for at, mb in soak.memory_mb],
        "max_sessions": args.max_sessions,
        "session_ttl_s": args.session_ttl,
        **limits,
    }


def report_lines(result: dict, command: str, record: MachineRecord) -> list[str]:
    memory, sessions, refusal = result["memory_mb"], result["sessions"], result["refusal"]
    return [
        "# Web server soak",
        "",
        f"<!-- Generated by `{command}`; run it again to refresh this page, do not edit it. -->",
        "",
        f"`{command}`, one run on {record.describe()} The server (`python -m training.serve`) in its own process, "
        f"the clients in another, on loopback.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| clients, each playing whole games | {result['clients']} (other seats `{result['agent']}`), "
        f"{result['minutes']:g} min |",
        f"| games played (abandoned for the server to expire) | {result['games']:,} ({result['abandoned']:,}) |",
        f"| requests, and per second | {result['requests']:,}, {result['requests_per_s']:,} |",
        f"| latency per request: median, 99th percentile, worst | {result['p50_ms']} ms, {result['p99_ms']} ms, "
        f"{result['max_ms']} ms |",
        f"| errors (any answer but 200, 201, 204) | **{result['errors']}** |",
        f"| sessions held, sampled: least, mean, most | {sessions['least']}, {sessions['mean']}, {sessions['most']} "
        f"(cap {result['max_sessions']}, unused for {result['session_ttl_s']:g} s: forgotten) |",
        f"| server memory: before, warmed up (a quarter in), end, most | {memory['before']} MB, "
        f"{memory['warmed_up']} MB, {memory['end']} MB, {memory['most']} MB |",
        f"| memory flat (end within the tolerance of warmed up) | {'yes' if result['memory_flat'] else '**no**'} "
        f"({result['memory_growth']:+.1%}) |",
        f"| the cap: new games until refused | {result['created']} created on top of {result['held_before']} held; "
        f'refused with {refusal["status"]} at {result["held_at_refusal"]} held: "{refusal["error"]}" '
        f"({'held' if result['cap_held'] else '**not held**'}) |",
        f"| the expiry: after {result['session_ttl_s']:g} s unused | {result['held_after_ttl']} held; a new game: "
        f"{result['new_game_after_ttl']} ({'held' if result['expiry_held'] else '**not held**'}) |",
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.web_soak", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=20, help="clients playing at once (default 20)")
    parser.add_argument("--minutes", type=float, default=10.0, help="length of the soak (default 10)")
    parser.add_argument("--agent", default="random", help="the agent in the other seats (default random)")
    parser.add_argument("--abandon", type=int, default=5, help="1 finished game in N left to expire (default 5)")
    parser.add_argument("--max-sessions", type=int, default=512, help="the server's cap (default 512)")
    parser.add_argument("--session-ttl", type=float, default=30.0, help="the server's time to live, s (default 30)")
    parser.add_argument("--sample", type=float, default=5.0, help="seconds between samples (default 5)")
    parser.add_argument("--memory-tolerance", type=float, default=0.10, help="flat memory's tolerance (default 0.10)")
    parser.add_argument("--out", type=Path, help="write report.md and soak.json here")
    args = parser.parse_args(argv)
    numbers = (args.clients, args.minutes, args.abandon, args.max_sessions, args.session_ttl, args.sample)
    if min(numbers) <= 0 or args.memory_tolerance < 0:
        print(
            "error: --clients, --minutes, --abandon, --max-sessions, --session-ttl and --sample must be positive",
            file=sys.stderr,
        )
        return 2
    record = MachineRecord()
    port = free_port()
    server = start_server(port, args.max_sessions, args.session_ttl)
    base_url = f"http://127.0.0.1:{port}"
    try:
        idle_mb = resident_mb(server.pid)
        soak = asyncio.run(soak_run(base_url, server.pid, args))
        limits = asyncio.run(cap_and_expiry(base_url, args.agent, args.max_sessions, args.session_ttl))
    finally:
        server.terminate()
        server.wait(timeout=30)
    result = summary(soak, limits, idle_mb, args)
    command = shlex.join(["python", "-m", "benchmarks.web_soak", *(argv if argv is not None else sys.argv[1:])])
    lines = report_lines(result, command, record)
    print("\n".join(lines[4:]))
    for problem in result["first_errors"]:
        print(f"  error: {problem}")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "report.md").write_text("\n".join(lines))
        (args.out / "soak.json").write_text(
            json.dumps({"command": command, "machine": machine(), **result}, indent=1) + "\n"
        )
    held = result["errors"] == 0 and result["cap_held"] and result["expiry_held"] and result["memory_flat"]
    return 0 if held else 1


if __name__ == "__main__":
    raise SystemExit(main())
