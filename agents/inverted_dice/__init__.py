"""Inverted Dice bots: the within-turn planner (turn), the heuristic, the exact solver and its
optimal agent, and the turn-value agent."""
