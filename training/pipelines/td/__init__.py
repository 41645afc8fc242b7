"""Turn-value TD: a game's exact turn planner against a value network of the sheet, learned from its own games."""
