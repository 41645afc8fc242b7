"""Agents that play the games of :mod:`envs`: ``random``, each game's bots, trained networks.

The agents layer is built on envs, never the other way round. It lends the bots' names to
the envs layer as a plugin (:mod:`envs.opponents`; the package declares
:func:`agents.registry.opponent_by_name` as an entry point), so that the Gymnasium envs
take ``opponents="heuristic"`` without importing this package first.
"""
