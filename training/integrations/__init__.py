"""Runnable examples that train with other RL libraries (each needs its extra installed).

``python -m training.integrations.tianshou_ppo`` (Tianshou) and
``python -m training.integrations.torchrl_ppo`` (TorchRL): masked PPO on the envs of the
collection, with their return curves against a random player's.
"""
