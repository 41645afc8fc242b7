"""MaskablePPO (sb3-contrib): vectorized envs, self-play, warm start and checkpoints of SB3 models."""
