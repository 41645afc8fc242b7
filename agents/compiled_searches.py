"""What the games' searches in compiled code (Numba) share: the clock a kernel reads, the
reasons a search ends, the root orders they visit, and the registry through which the generic network search
(:func:`agents.search.network_search`) finds a game's compiled one.

A game's agents package (``agents/<game>/``) fills the registry when it is imported
(:func:`register_network_search`), so that no generic module names a game's modules.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

#: Why a compiled search of one position ended: it finished, ran out of its time, filled its
#: table (the caller searches again with a larger one), or found the position already over.
DONE, OUT_OF_TIME, TABLE_FULL, GAME_OVER = 0, 1, 2, 3

_NETWORK_SEARCHES: dict[str, Callable[..., Any]] = {}


@numba.njit
def now() -> float:
    """``time.perf_counter()`` read from inside a kernel (the deadline's clock)."""
    with numba.objmode(seconds="float64"):
        seconds = time.perf_counter()
    return seconds


def root_orders(legal: np.ndarray, rngs, width: int) -> np.ndarray:
    """``(B, width)``: row ``k``'s first ``legal[k]`` entries list the indices of its legal moves
    in the order its one-ply iteration visits them, shuffled by ``rngs[k]`` (``rng.shuffle`` of
    the index list, as the Python searches draw) where ``rngs`` and ``rngs[k]`` are given, else
    ascending."""
    orders = np.zeros((len(legal), width), np.int64)
    for k, count in enumerate(np.asarray(legal).tolist()):
        order = list(range(count))
        if rngs is not None and rngs[k] is not None:
            rngs[k].shuffle(order)
        orders[k, :count] = order
    return orders


def register_network_search(game_name: str, factory: Callable[..., Any]) -> None:
    """Declare ``factory(network, max_plies, depth=, ms=, exact_root=)`` the compiled network
    search of ``game_name``: it must search as :class:`agents.search.NetworkSearch` does."""
    if game_name in _NETWORK_SEARCHES and _NETWORK_SEARCHES[game_name] is not factory:
        raise ValueError(f"a compiled network search of {game_name!r} is registered already")
    _NETWORK_SEARCHES[game_name] = factory


def network_search_factory(game_name: str) -> Callable[..., Any] | None:
    """The compiled network search registered for ``game_name`` (its agents package imported
    first, which registers it), or None where the game has none."""
    package = f"agents.{game_name}"
    if importlib.util.find_spec(package) is not None:
        importlib.import_module(package)
    return _NETWORK_SEARCHES.get(game_name)
