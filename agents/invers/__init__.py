"""Invers bots: a one-ply greedy player and an alpha-beta search."""
