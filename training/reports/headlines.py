"""A report's headline: its shipped agent against the strongest bot the report holds.

A report whose subject is a **shipped** agent (a report of a ``checkpoints/<env>/shipped*``
run, or a ladder's ``ppo``, ``ppo+search`` or ``td`` without ``path=``) gives one
headline. The strongest bot is decided by the report itself: the highest mean score (one
player), the best average score above an equal share over its pairings with the other bots
(several players), the highest rating (a ladder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.registry import NETWORK_AGENTS, bot_names, parse_spec
from agents.shipped import SHIPPED_FOLDERS
from training.evaluation.harness import wilson_interval
from training.reports.reading import Report, ReportError, Table, numbers, spec_of


@dataclass
class Headline:
    report: Report
    agent: str
    bot: str
    result: str
    games: int  #: the games behind the result


def is_bot(env: str, spec: str) -> bool:
    return parse_spec(spec)[0] in bot_names(env)


def is_shipped_spec(spec: str) -> bool:
    name, options = parse_spec(spec)
    return name in (*NETWORK_AGENTS, "td") and "path" not in options


def run_is_shipped(report: Report) -> bool:
    run = re.search(r"^Run: (\S+)", report.text, re.M)
    return bool(run) and re.search(r"checkpoints/\w+/shipped\w*", run[1]) is not None


def run_name(report: Report) -> str:
    """The agent spec that plays a report's "trained" run: ``ppo`` for ``shipped/`` and
    ``shipped_<n>p/``, ``td`` for ``shipped_td/`` (:data:`agents.shipped.SHIPPED_FOLDERS`)."""
    folder = re.search(r"checkpoints/\w+/(shipped\w*)", report.text)[1]
    kinds = {name: kind for kind, name in SHIPPED_FOLDERS.items()}
    return kinds.get(folder, "ppo" if re.fullmatch(r"shipped_\d+p", folder) else folder)


def headline(report: Report) -> Headline | None:
    """The report's shipped agent against its strongest bot, or None when it has no shipped agent."""
    if not report.env or not report.tables:
        return None
    first = report.tables[0]
    try:
        if first.column("mean score"):
            return solitaire_headline(report, first) if run_is_shipped(report) else None
        if first.column("Elo"):
            return ladder_headline(report)
        if first.column("opponent"):
            return pairing_headline(report, first) if run_is_shipped(report) else None
    except (KeyError, IndexError, ValueError) as error:
        raise ReportError(f"{report.source}: cannot read its headline ({error})") from error
    return None


def solitaire_headline(report: Report, table: Table) -> Headline | None:
    mean, ci, delta = table.column("mean score"), table.column("95% CI"), table.column("Δ")
    subject = table.rows[0]
    bots = [row for row in table.rows[1:] if is_bot(report.env, spec_of(row["agent"]))]
    if not bots:
        return None
    best = max(bots, key=lambda row: numbers(row[mean])[0])
    result = (
        f"mean score {subject[mean]} {subject[ci]} against {best[mean]} {best[ci]} "
        f"({spec_of(best['agent'])} − agent, paired: {best[delta]})"
    )
    name = spec_of(subject["agent"])
    games = int(numbers(best.get("games", "0"))[0])
    return Headline(report, run_name(report) if name == "trained" else name, spec_of(best["agent"]), result, games)


def pair_score(row: dict[str, str], table: Table) -> tuple[float, str]:
    """A pairing's score for its first agent (wins + ½ draws), with its interval where the report gives one."""
    score = table.column("score")
    if score:
        return numbers(row[score])[0], row[score]
    win, draw = numbers(row[table.column("win rate")])[0], numbers(row[table.column("draw")])[0]
    return win + draw / 2, f"{win + draw / 2:.3f}"


def pairing_headline(report: Report, table: Table) -> Headline | None:
    rows = [(spec_of(row["agent"]), spec_of(row["opponent"]), row) for row in table.rows]
    subject = rows[0][0]
    bots = sorted({name for a, o, _ in rows for name in (a, o) if is_bot(report.env, name)})
    if not bots:
        return None

    share = 1 / (report.players or 2)

    def strength(bot: str) -> float:
        """The bot's mean score above an equal share over its pairings with the other bots."""
        margins = [
            (pair_score(r, table)[0] - share) * (1 if a == bot else -1)
            for a, o, r in rows
            if bot in (a, o) and is_bot(report.env, a) and is_bot(report.env, o)
        ]
        return sum(margins) / len(margins) if margins else 0.0

    faced = [o for a, o, _ in rows if a == subject and o in bots]
    if not faced:
        return None
    best = max(faced, key=lambda bot: (strength(bot), bot != "random"))
    row = next(r for a, o, r in rows if a == subject and o == best)
    players = report.players or 2
    against = f"{players - 1} × {best}" if players > 2 else best
    games = row.get("games", "?")
    win, draw, loss = (numbers(row[table.column(name)])[0] for name in ("win rate", "draw", "loss rate"))
    own = table.column("opponent's own score")
    # the measured level of the table where the report gives it (a shared win counts for each winner), else 1 / players
    level = f"{best}'s own score at this table {row[own]}" if own else f"an equal share {1 / players:.3f}"
    result = (
        f"score {pair_score(row, table)[1]} in {games} games, {level} "
        f"(win / draw / loss {win:.3f} / {draw:.3f} / {loss:.3f})"
    )
    return Headline(
        report, run_name(report) if subject == "trained" else subject, against, result, int(numbers(games)[0])
    )


def ladder_headline(report: Report) -> Headline | None:
    ranking, pairings = report.tables[0], report.tables[1]
    ranked = [spec_of(row["agent"]) for row in ranking.rows]
    shipped = [name for name in ranked if is_shipped_spec(name)]
    bots = [name for name in ranked if is_bot(report.env, name)]
    if not shipped or not bots:
        return None
    subject, best = shipped[0], bots[0]
    for row in pairings.rows:
        agent, opponent = spec_of(row["agent"]), spec_of(row["opponent"])
        if {agent, opponent} == {subject, best}:
            win, draw, loss = (int(row[key]) for key in ("win", "draw", "loss"))
            if agent != subject:
                win, loss = loss, win
            games = win + draw + loss
            low, high = wilson_interval(win, games)
            result = (
                f"score {(win + draw / 2) / games:.3f} in {games} games (win / draw / loss {win} / {draw} / {loss}); "
                f"win rate {win / games:.3f} [{low:.3f}, {high:.3f}]"
            )
            return Headline(report, subject, best, result, games)
    return None


def per_agent_and_table(headlines: list[Headline]) -> list[Headline]:
    """One headline per shipped agent and table size: of several reports of the same agent
    (a long match and a short ladder), the one with the most games."""
    best: dict[tuple, Headline] = {}
    for item in headlines:
        key = (item.report.env, item.report.players, item.agent)
        if key not in best or item.games > best[key].games:
            best[key] = item
    return list(best.values())
