"""The sequential probability ratio test that stops a pairing once it is decided, as fishtest does.

A pairing asks whether the candidate is at least ``elo1`` stronger than its opponent
(hypothesis H1) or at most ``elo0`` (H0), on the logistic Elo scale: an Elo difference
``d`` means an expected score of ``1 / (1 + 10^(-d / 400))``. After each batch of
openings the log-likelihood ratio of the two is computed from the openings' scores (each
opening's mean over its seat rotations: :func:`training.evaluation.harness.opening_scores`)
by the normal approximation fishtest uses for game pairs, the generalized SPRT:

    LLR = N (s1 - s0) (2 x - s0 - s1) / (2 v)

with ``N`` openings of mean score ``x`` and variance ``v`` (:func:`variance`), and ``s0``, ``s1`` the scores of
``elo0`` and ``elo1``. The pairing stops with H1 once LLR reaches ``log((1 - beta) / alpha)``
and with H0 once it falls to ``log(beta / (1 - alpha))``; ``alpha`` and ``beta`` bound the two
errors (H1 accepted though H0 holds, and the reverse). A test that reaches the pairing's
game count undecided says so.

Anchors: fishtest's ``stat_util`` (pentanomial GSPRT), cutechess-cli's ``-sprt``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from training.framework.schema import ConfigError


def variance(opening_scores: np.ndarray) -> float:
    """The openings' variance, with one pseudo-opening scored 0 and one scored 1 among them.

    Openings that all scored alike (two copies of one deterministic agent, or the first few
    openings of any pairing) would give a variance of 0 and an LLR without bound, deciding a
    test on one opening; the two pseudo-openings, a weak prior as fishtest's regularized
    pentanomial counts are, keep it finite, and weigh nothing once hundreds are played.
    """
    with_prior = np.concatenate([np.asarray(opening_scores, dtype=np.float64), [0.0, 1.0]])
    return float(((with_prior - np.mean(opening_scores)) ** 2).mean())


#: What the command lines' ``--sprt`` takes.
SPRT_HELP = (
    "stop each pairing once a sequential probability ratio test decides it (fishtest's): "
    "ELO0,ELO1[,ALPHA,BETA], e.g. 0,10 (alpha and beta 0.05): H0 the candidate is at most ELO0 "
    "stronger than its opponent, H1 at least ELO1; --games is then the most a pairing plays"
)


def expected_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ConfigError(f"--sprt: elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ConfigError(f"--sprt: alpha and beta must lie in (0, 0.5), got {self.alpha:g} and {self.beta:g}")

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``"ELO0,ELO1"`` or ``"ELO0,ELO1,ALPHA,BETA"``, as the command lines take it."""
        try:
            values = [float(v) for v in text.split(",")]
        except ValueError:
            values = []
        if len(values) not in (2, 4):
            raise ConfigError(f"--sprt takes ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA (numbers), got {text!r}")
        return cls(*values)

    @property
    def bounds(self) -> tuple[float, float]:
        """The LLR at or below which H0 is accepted, and at or above which H1 is."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, opening_scores: np.ndarray) -> float:
        """The log-likelihood ratio of H1 to H0 given the openings' mean scores."""
        scores = np.asarray(opening_scores, dtype=np.float64)
        if len(scores) == 0:
            return 0.0
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return len(scores) * (s1 - s0) * (2 * float(scores.mean()) - s0 - s1) / (2 * variance(scores))

    def decision(self, opening_scores: np.ndarray) -> str | None:
        """``"H1"`` or ``"H0"`` once the test is decided, else None."""
        llr, (lower, upper) = self.llr(opening_scores), self.bounds
        return "H1" if llr >= upper else "H0" if llr <= lower else None

    def describe(self) -> str:
        return f"SPRT elo0 {self.elo0:g}, elo1 {self.elo1:g}, alpha {self.alpha:g}, beta {self.beta:g}"


@dataclass(frozen=True)
class SprtResult:
    """How a pairing's test ended: its decision (None: undecided at the pairing's last game) and LLR."""

    test: Sprt
    decision: str | None
    llr: float

    def words(self) -> str:
        lower, upper = self.test.bounds
        verdict = {
            "H1": f"H1 accepted: at least {self.test.elo1:g} Elo stronger",
            "H0": f"H0 accepted: at most {self.test.elo0:g} Elo stronger",
            None: "undecided at the last game",
        }[self.decision]
        return f"{verdict} (LLR {self.llr:+.2f}, bounds [{lower:.2f}, {upper:.2f}]; {self.test.describe()})"
