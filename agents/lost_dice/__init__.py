"""Agents of Lost Dice and Keldice: a greedy heuristic, a one-ply expectimax search, and the
solo turn-value agents (``td``, :mod:`agents.lost_dice.td`).

All read the position off the observation (:mod:`agents.lost_dice.position`,
:mod:`agents.lost_dice.batch`) and rank options with one estimate of a sheet's final value
(:mod:`agents.lost_dice.values`); the turn-value agents learn a correction of it.
"""
