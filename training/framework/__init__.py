"""The run framework: what every training pipeline shares except its learner (configs, run folders, checkpoints, stops, curves, closing evaluation)."""
