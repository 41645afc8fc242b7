"""Learning from a teacher: its move values as soft targets, and the game's symmetries for augmentation."""
