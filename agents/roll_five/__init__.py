"""Roll Five bots: a rule-of-thumb heuristic and an exact expectimax over one's own rolls."""
