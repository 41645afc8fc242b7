"""The agent under test, as a benchmark is given it: a spec, a mapping, a factory or an object.

:func:`build_candidate` turns what the caller gave (:data:`AgentSource`: an agent spec, the
same at every task; a mapping of task or env names to specs, a task's own entry first; a
factory called as ``factory(game, seed=seed)``; or an agent object, any object with
``reset(seed)`` and ``act(observation, action_mask)``) into the agent of one task, or says
why there is none (:class:`NotPlayable`: no such bot in that game, no network shipped for
that table, a factory that raises), so that the task is not played and the report names
it. :func:`check_source` refuses bad input before any game (a spec that cannot be
imported, or that no task's game knows) and :func:`describe` names the agent in reports.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from agents.base import Agent
from agents.registry import check_spec, is_user_spec, make_agent
from agents.user import as_agent, load_factory
from envs.core import Game
from training.evaluation.suite import Task
from training.framework.schema import ConfigError

#: A spec, a mapping of task or env names to specs (a task's own entry first; None: not played),
#: a factory or an agent object.
AgentSource = Any


def spec_for(source: AgentSource, task: Task) -> str | None:
    """The spec that plays ``task`` when ``source`` names agents by spec; None when none does."""
    if isinstance(source, str):
        return source
    if isinstance(source, Mapping):
        return source[task.name] if task.name in source else source.get(task.env)  # a task's own entry first
    return None


def is_factory(source: AgentSource) -> bool:
    """A class or a function to call for each task's agent (an agent object is used as it is)."""
    return isinstance(source, type) or (callable(source) and not hasattr(source, "act"))


def describe(source: AgentSource) -> str:
    """The agent in a few words, for reports."""
    if isinstance(source, str):
        return source
    if isinstance(source, Mapping):
        return ", ".join(f"{key}={value}" for key, value in source.items() if value is not None)
    if is_factory(source):
        return f"{getattr(source, '__module__', '?')}:{getattr(source, '__qualname__', repr(source))}"
    return f"{type(source).__module__}:{type(source).__qualname__} (an object)"


def build_candidate(source: AgentSource, task: Task, game: Game) -> Agent:
    """The agent under test for ``task``, or :class:`NotPlayable` saying why there is none."""
    seed = task.seed
    spec = spec_for(source, task)
    if isinstance(source, (str, Mapping)):
        if spec is None:
            where = task.name if task.name == task.env else f"{task.name} or {task.env}"
            raise NotPlayable(f"no agent is named for {where}")
        try:
            return make_agent(task.env, spec, game, seed=seed)
        except Exception as error:  # a bot missing in this game, a network not shipped for it, a user's factory failing
            raise NotPlayable(one_line(error)) from None
    try:
        agent = source(game, seed=seed) if is_factory(source) else source
        return as_agent(game, agent, describe(source))
    except Exception as error:  # a user's factory may fail for a game in any way
        raise NotPlayable(one_line(error)) from None


class NotPlayable(Exception):
    """The agent under test cannot be built for a task."""


def one_line(error: Exception) -> str:
    """An error's message on one line, paths under the working directory shown relative to it
    (a report names ``checkpoints/...``, not the machine's own folders)."""
    message = str(error.args[0]) if error.args else type(error).__name__
    return " ".join(message.replace(f"{os.getcwd()}{os.sep}", "").split())


def check_source(source: AgentSource, tasks: list[Task]) -> None:
    """Bad input before any game, as a :class:`ConfigError`: a user's spec that cannot be imported,
    or a spec that no game of its tasks knows (a misspelt bot, an option it does not take)."""
    specs = [source] if isinstance(source, str) else list(source.values()) if isinstance(source, Mapping) else []
    for spec in dict.fromkeys(spec for spec in specs if spec is not None):
        if is_user_spec(spec):
            try:
                load_factory(spec)
            except ValueError as error:
                raise ConfigError(one_line(error)) from None
        errors = []
        for task in tasks:
            if spec_for(source, task) != spec:
                continue
            try:
                check_spec(task.env, spec)
                break
            except ValueError as error:
                errors.append(one_line(error))
        else:
            if errors:
                raise ConfigError(f"agent {spec!r} plays none of the suite's tasks: {errors[0]}")
