"""The web app: the page (``static/``) and the JSON API under it, a Starlette ASGI app.

Endpoints (every body and answer is JSON, except a record, which is JSON lines;
``docs/web.md`` gives examples):

========  ===============================  ==================================================
GET       ``/api/games``                   the games, their options, player counts, agent choices
GET       ``/api/status``                  the sessions held, the most it may hold and their time to live
POST      ``/api/agents``                  the choices that can sit at a table: ``{env, options}``
POST      ``/api/sessions``                a new game: ``{env, options, seats, seed}``
GET       ``/api/sessions/{id}``           the view of the game for its person's seat
POST      ``/api/sessions/{id}/move``      the person's move: ``{"action": id}``
POST      ``/api/sessions/{id}/advance``   one agent move (the next seat to act)
GET       ``/api/sessions/{id}/record``    the game as a record (JSON lines), once over
DELETE    ``/api/sessions/{id}``           forget the game
POST      ``/api/replays``                 a recorded game (the JSON-lines text as body)
GET       ``/api/replays/{id}?step=k``     the replay's table after ``k`` actions
DELETE    ``/api/replays/{id}``            forget the replay
========  ===============================  ==================================================

Errors are ``{"error": "<one line>"}`` with a 4xx status: 400 for a bad request (an
unknown game, option or agent, an illegal move, with the rules' message), 404 for an
unknown or expired session, 409 for a request out of turn (a move when the person is
not to act: the rules' message), 413 for a body too large, 503 when the server holds
as many sessions as it may or a seat's agent is still being prepared (``/api/agents``
says ``preparing``). A refused request changes nothing.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.run_folder import CheckpointError
from agents.shipped import checkpoints_root
from agents.solution_cache import CacheError
from envs.core import IllegalActionError
from training.framework.config import build_agent
from training.framework.schema import ConfigError
from training.records import game_record
from training.web.catalogue import HUMAN, Catalogue, Preparing
from training.web.sessions import Conflict, Full, GameSession, NotFound, ReplaySession, SessionStore

STATIC = Path(__file__).resolve().parent / "static"
#: The largest request body: a move or a new game is a few hundred bytes, a record a few kilobytes.
MAX_BODY = 1 << 20
MAX_SEED = 2**31 - 1
BAD_REQUEST = (ConfigError, CheckpointError, CacheError, IllegalActionError)


#: The folder the package's modules live in (the repository, or site-packages).
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


class TooLarge(ValueError):
    """A request body over :data:`MAX_BODY`."""


def without_server_paths(message: str, roots: tuple[Path, ...]) -> str:
    """``message`` with the server's own folders (``roots``: where it runs, its package, its
    checkpoints) cut from every path under them: ``checkpoints/six_hundred/shipped/model.zip``,
    never where the server keeps it. What the request itself said is left as it was."""
    for root in sorted({str(r) for r in roots}, key=len, reverse=True):
        message = message.replace(root.rstrip("/") + "/", "")
    return message


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status)


async def body(request: Request) -> bytes:
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise TooLarge(f"the request body is over {MAX_BODY} bytes")
    return data


async def json_object(request: Request, keys: set[str]) -> dict[str, Any]:
    """The request's JSON object, with no key outside ``keys``."""
    try:
        value = json.loads(await body(request) or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as problem:
        raise ConfigError(f"the body is not JSON: {problem}") from None
    if not isinstance(value, dict):
        raise ConfigError(f"the body must be a JSON object, got {type(value).__name__}")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise ConfigError(f"unknown field(s) {unknown}; expected {sorted(keys)}")
    return value


def answering(
    endpoint: Callable[[Request], Awaitable[Response]], roots: tuple[Path, ...]
) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint whose refusals become one-line JSON errors with their 4xx status, naming no
    folder of the server's (``roots``, see :func:`without_server_paths`)."""

    async def answer(request: Request) -> Response:
        try:
            return await endpoint(request)
        except TooLarge as problem:
            return error(413, problem)
        except NotFound as problem:
            return error(404, problem.args[0])
        except Conflict as problem:
            return error(409, problem)
        except (Full, Preparing) as problem:
            return error(503, problem)
        except BAD_REQUEST as problem:
            return error(400, without_server_paths(str(problem.args[0] if problem.args else problem), roots))

    return answer


def create_app(checkpoints: str | Path = "checkpoints", max_sessions: int = 64, ttl_s: float = 3600.0) -> Starlette:
    """The app, offering the run folders under ``checkpoints`` and holding at most
    ``max_sessions`` games and replays, each forgotten ``ttl_s`` seconds after its last use."""
    catalogue = Catalogue(Path(checkpoints))
    store = SessionStore(max_sessions, ttl_s)
    roots = (Path.cwd(), PACKAGE_ROOT, Path(checkpoints).resolve().parent, checkpoints_root().resolve().parent)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    async def games(request: Request) -> Response:
        return JSONResponse({"games": catalogue.games()})

    async def status(request: Request) -> Response:
        return JSONResponse({"sessions": len(store), "max_sessions": store.max_sessions, "session_ttl_s": store.ttl_s})

    def new_session(fields: dict[str, Any]) -> dict[str, Any]:
        env = fields.get("env")
        game = catalogue.game(env, fields.get("options", {}))
        seats = fields.get("seats")
        if not isinstance(seats, list) or len(seats) != game.num_players:
            raise ConfigError(f"seats must list who sits in each of the {game.num_players} seats, got {seats!r}")
        specs = [catalogue.agent_spec(env, choice) for choice in seats]
        for choice in seats:
            catalogue.check_ready(env, game, choice)
        if specs.count(HUMAN) > 1:
            raise ConfigError("at most one seat can be played from the page (human)")
        seed = fields.get("seed")
        if seed is None:
            seed = secrets.randbelow(MAX_SEED)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise ConfigError(f"seed must be an integer 0..{MAX_SEED}, got {seed!r}")
        agents = {p: build_agent(env, spec, game) for p, spec in enumerate(specs) if spec != HUMAN}
        session = GameSession(env, game, list(seats), agents, seed)
        key = store.add(session)
        return {"id": key, "seed": seed, **session.view()}

    def seating(fields: dict[str, Any]) -> dict[str, Any]:
        answer = catalogue.seating(fields.get("env"), fields.get("options", {}))
        refused = {
            choice: {**why, "detail": without_server_paths(why["detail"], roots)}
            for choice, why in answer["refused"].items()
        }
        return {"env": fields["env"], "agents": answer["agents"], "refused": refused, "preparing": answer["preparing"]}

    async def agents(request: Request) -> Response:
        fields = await json_object(request, {"env", "options"})
        return JSONResponse(await run_in_threadpool(seating, fields))

    async def create(request: Request) -> Response:
        fields = await json_object(request, {"env", "options", "seats", "seed"})
        return JSONResponse(await run_in_threadpool(new_session, fields), status_code=201)

    def locked(key: str, act: Callable[[GameSession], None]) -> dict[str, Any]:
        session = store.get(key, GameSession)
        with session.lock:
            act(session)
            return {"id": key, "seed": session.seed, **session.view()}

    async def show(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(locked, request.path_params["id"], lambda s: None))

    async def move(request: Request) -> Response:
        fields = await json_object(request, {"action"})
        if "action" not in fields:
            raise ConfigError('the body must give the move: {"action": <id>}')
        return JSONResponse(
            await run_in_threadpool(locked, request.path_params["id"], lambda s: s.move(fields["action"]))
        )

    async def advance(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(locked, request.path_params["id"], GameSession.advance))

    async def record(request: Request) -> Response:
        session = store.get(request.path_params["id"], GameSession)
        with session.lock:
            text = session.record().text(session.state)
        return PlainTextResponse(text, media_type="application/x-ndjson")

    async def forget(request: Request) -> Response:
        store.delete(request.path_params["id"])
        return Response(status_code=204)

    def new_replay(text: str) -> dict[str, Any]:
        record, states = game_record.parse(text, "the uploaded record", catalogue.check_options)
        replay = ReplaySession(record, states)
        return {"id": store.add(replay), **replay.view(0)}

    async def upload(request: Request) -> Response:
        try:
            text = (await body(request)).decode("utf-8")
        except UnicodeDecodeError:
            raise ConfigError("the record is not UTF-8 text") from None
        return JSONResponse(await run_in_threadpool(new_replay, text), status_code=201)

    async def replay_step(request: Request) -> Response:
        replay = store.get(request.path_params["id"], ReplaySession)
        text = request.query_params.get("step", "0")
        if not text.isdigit():
            raise ConfigError(f"step must be a whole number, got {text!r}")
        return JSONResponse({"id": request.path_params["id"], **replay.view(int(text))})

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),  # asked for by browsers whatever the page links
        Route("/api/games", answering(games, roots)),
        Route("/api/status", answering(status, roots)),
        Route("/api/agents", answering(agents, roots), methods=["POST"]),
        Route("/api/sessions", answering(create, roots), methods=["POST"]),
        Route("/api/sessions/{id}", answering(show, roots), methods=["GET"]),
        Route("/api/sessions/{id}", answering(forget, roots), methods=["DELETE"]),
        Route("/api/sessions/{id}/move", answering(move, roots), methods=["POST"]),
        Route("/api/sessions/{id}/advance", answering(advance, roots), methods=["POST"]),
        Route("/api/sessions/{id}/record", answering(record, roots)),
        Route("/api/replays", answering(upload, roots), methods=["POST"]),
        Route("/api/replays/{id}", answering(replay_step, roots), methods=["GET"]),
        Route("/api/replays/{id}", answering(forget, roots), methods=["DELETE"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.store = store
    app.state.catalogue = catalogue
    return app
