"""# Keldice

| Import               | `from envs import keldice_v0`                                 |
|----------------------|---------------------------------------------------------------|
| Gymnasium id         | `Keldice-v0` (single agent; other seats are opponents)        |
| PettingZoo id        | `tabletop/keldice_v0` (AEC)                                   |
| Actions              | Discrete                                                      |
| Parallel API         | No (turn-based; offers are decided out of turn order)         |
| Agents               | `agents= ['player_0', ...]`, 1 to 4 (default 2)               |
| Action shape         | (1,)                                                          |
| Action values        | Discrete(20)                                                  |
| Observation shape    | (77 + 118 × players,)                                         |
| Observation values   | [-1, 1]                                                       |

Keldice is the designer's variant of Lost Dice, and the same env as
`lost_dice_v0.env(variant="keldice")` under its own name, so that it trains, evaluates
and benchmarks as a game of its own (`python training/train.py --env keldice`). Its
differences from Lost Dice:

* its own dice (`envs/games/dice/keldice.yaml`), each face with a bonus symbol: V (2 VP),
  S (a wishing stone), E (an extra roll), - (none). When the two dice used for the value
  show the same symbol, the player earns it; an extra roll is thrown at once and does
  not count as one of the player's rolls;
* no investments;
* a colour's numbers run strictly up or strictly down, the second number fixing which;
* 20 rolls each; end scoring 0, −4, −3, 2, 3, 6, 10 for 0..6+ numbers in a colour,
  −4, −3, 2, 3, 6, 10 for 0..5+ wishing stones, +2 per VP symbol.

Actions, the mask, the observation layout (the Keldice entries: column direction,
wishing stones, VP, bonus of each play), rewards, the turn sequence with its offers and
every ruling are those of the `lost_dice_v0` env card; rules in full:
`docs/rules/keldice.md` (and `docs/rules/lost_dice.md`).

## Creation

```python
from envs import keldice_v0
env = keldice_v0.env(num_players=3, render_mode="ansi")        # PettingZoo AEC
raw = keldice_v0.raw_env(rolls_per_player=15)                  # without wrappers

import gymnasium, envs
env = gymnasium.make("Keldice-v0")                             # learner vs a random opponent
```

Keyword arguments: `num_players` (1..4, default 2), `rolls_per_player` (default 20),
`dice_file`, `reward_mode`, `render_mode`; the Gymnasium env also takes `opponents`,
`learner_seat`, and `illegal_action` / `illegal_reward` (an illegal action ends the episode with reward −1 by default).

## Search

* **For search use `state.clone_resampled(rng)`** (the sheets and the throw on the
  table stay, every throw to come is drawn from `rng`); `state.clone()` keeps the real
  future throws, for replays and tests only. `game.score_bounds()`: −24 to 90 with the
  default dice and 20 rolls.

## Batched env

```python
import gymnasium, envs
vec_env = gymnasium.make_vec("Keldice-v0", num_envs=1024, rolls_per_player=15)   # 1024 games per step
observations, infos = vec_env.reset(seed=0)                    # game i is the single env's game of seed 0 + i
observations, rewards, terminations, truncations, infos = vec_env.step(vec_env.action_space.sample())
```

The native batched env (`envs/batched/vector_env.py`, the rules in Numba kernels in
`envs/batched/lost_dice.py`) plays the single env's games, seed for seed, with the same options;
`infos["action_mask"]` is `(N, 20)`. Its speed: `python benchmarks/env_speed.py --batched`
(the docs' *Batched env speed* page holds the last run, with its machine and load).

## Version history

* v0: initial release.
* The native batched env (`gymnasium.make_vec`, above) added; the games are unchanged, and so is the version.
"""

from envs.aec import aec_api
from envs.games.lost_dice import Keldice
from envs.single_agent import single_agent_api

GAME = Keldice
raw_env, env = aec_api(GAME, "keldice_v0", __name__)
gym_env = single_agent_api(GAME, __name__)

__all__ = ["GAME", "env", "gym_env", "raw_env"]
