"""Six Hundred bots: the heuristic (exact within-turn play against static sheet values) and its turn-value agent."""
