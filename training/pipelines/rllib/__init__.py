"""Ray RLlib's PPO with its action-masking RLModule, every seat one shared policy (self-play)."""
