"""Invers bots: a one-ply greedy player (:mod:`.greedy`) and an alpha-beta search (:mod:`.search`)."""
