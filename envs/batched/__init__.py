"""Batched twins of the rules cores and the native Gymnasium vector env that runs them.

``gymnasium.make_vec("InvertedDice-v1", num_envs=4096)`` steps 4096 games per call in
compiled code (:mod:`envs.batched.vector_env`). Each game's twin
(``envs/batched/<game>.py``) implements :class:`envs.batched.rules.BatchedGame`; its
chance comes from numpy-exact streams (:mod:`envs.batched.streams`), so a batched game is
the single env's game, seed for seed. A core state can be written into rows and their chance
to come redrawn (``BatchedGame.load_state``, ``BatchedGame.resample``): for tests, and for
rollouts from the position of a real game.
"""
