"""Agents that play the games of :mod:`envs`: ``random``, each game's bots, trained networks.

The agents layer is built on envs, never the other way round. Importing it (``import
agents``, or any ``agents.*`` module) lends the bots' names to the envs layer through the
hook :mod:`envs.opponents`, so that the Gymnasium envs take ``opponents="heuristic"``::

    import gymnasium, agents
    env = gymnasium.make("InvertedDice-v1", num_players=2, opponents="heuristic")
"""

from agents.registry import opponent_by_name
from envs import opponents

opponents.register(opponent_by_name)
