"""Bots of Lost Dice and Keldice: a greedy heuristic and a one-ply expectimax search.

Both read the position off the observation (:mod:`agents.lost_dice.position`) and rank
options with one estimate of a sheet's final value (:mod:`agents.lost_dice.values`).
"""
