"""# Roll Five

| Import               | `from envs import roll_five_v0`                                  |
|----------------------|------------------------------------------------------------------|
| Gymnasium id         | `RollFive-v0` (single agent; other seats are opponent policies)  |
| PettingZoo ids       | `tabletop/roll_five_v0` (AEC and Parallel)                       |
| Actions              | Discrete                                                         |
| Parallel API         | Yes (`roll_five_v0.parallel_env()`; every turn is simultaneous)  |
| Agents               | `agents= ['player_0', ...]`, 2 to 4 (default 2)                  |
| Action shape         | (1,)                                                             |
| Action values        | Discrete(32)                                                     |
| Observation shape    | (167,) for every player count                                    |
| Observation values   | [0, 1]                                                           |

Roll Five is a dice-and-cards game of simultaneous turns and hidden cards. Each player
has a row of five face-down cards only they may look at, and five dice. In five
simultaneous turns every player rolls their unplaced dice and places one die of the roll
on an uncovered card; then everyone bids High or Low at once. High discards the pairs
with card + die > 7, Low those with card − die < 0; most remaining pairs wins. The full
rules and every ruling: `docs/rules/roll_five.md`.

## Creation

```python
from envs import roll_five_v0
par = roll_five_v0.parallel_env(num_players=3)              # PettingZoo Parallel
observations, infos = par.reset(seed=1)
while par.agents:
    actions = {a: par.action_space(a).sample(observations[a]["action_mask"]) for a in par.agents}
    observations, rewards, terminations, truncations, infos = par.step(actions)

env = roll_five_v0.env(mode="tournament", render_mode="ansi")   # PettingZoo AEC
raw = roll_five_v0.raw_env()                                   # without wrappers

import gymnasium, pettingzoo, envs
env = pettingzoo.make("aec", "tabletop/roll_five_v0")
par = pettingzoo.make("parallel", "tabletop/roll_five_v0")
env = gymnasium.make("RollFive-v0")                          # learner vs a random player
```

Keyword arguments: `num_players` (2..4, default 2), `mode` (`"casual"`, default, or
`"tournament"`), `reward_mode` (`"win"`, the default, `"score"` or `"margin"`), `render_mode`
(`"ansi"`, `"human"`, `"rgb_array"`: the ansi rows drawn as a picture). The Gymnasium env
also takes `opponents`, `learner_seat`, and `illegal_action` / `illegal_reward` (an illegal
action ends the episode with reward −1 by default) (see `envs.single_agent`): the
opponents commit for the other seats inside the learner's `step`, each seeing only its
own observation.

## Turns, the Parallel form and the AEC form

Six rounds, each simultaneous: five placing turns, then the bid. In the **Parallel**
form one `step` takes every agent's action of the round and resolves it. In the **AEC**
form the agents commit one after another in seat order (`player_0` first), as
PettingZoo's `parallel_to_aec` plays a Parallel env: no observation shows another
player's choice of the same round before the round resolves, so the order of commits
tells no one anything. `aec_to_parallel(env())` and `parallel_to_aec(parallel_env())`
both work (`is_parallelizable` is True).

## Action space

| id     | action                                                                      |
|--------|-----------------------------------------------------------------------------|
| 0..29  | place a die showing value `v` (1..6) on the card in slot `c` (1..5)         |
| 30     | bid High                                                                    |
| 31     | bid Low                                                                     |

A placement's id is `(v − 1) × 5 + (c − 1)`: 0 = a 1 on card 1, 7 = a 2 on card 3.

```text
           card 1  card 2  card 3  card 4  card 5
die 1         0       1       2       3       4
die 2         5       6       7       8       9
die 3        10      11      12      13      14
die 4        15      16      17      18      19
die 5        20      21      22      23      24
die 6        25      26      27      28      29
bid:  30 High, 31 Low
```

`envs.games.roll_five.place_action(value, slot)` (slot 0-based) builds ids;
`env.unwrapped.game.action_name(a)` names any id (`"place 4 on card 2"`, `"bid Low"`).
The slots are the dealt row in dealt order, which is random, so where a die lands tells
the others nothing about the card under it.

## Legal actions mask

`observation["action_mask"]` (int8; Gymnasium: `action_masks()` and
`info["action_mask"]`) is 1, for a player still to commit this round, on:

* turns 1..5: every `(v, c)` with `v` a value shown in the player's own roll and card
  `c` uncovered (one die is placed per turn, so on turn 5 only one action is legal);
* the bid: 30 and 31.

A player who has committed this round, or any player once the game is over, has an
all-zero mask.

## Observation space

A float32 vector of 167 entries from the observing player's point of view, the same
size for 2, 3 and 4 players (absent opponents are zeros), so a policy trained at one
table size plays at another:

| index    | meaning                                                                 |
|----------|-------------------------------------------------------------------------|
| 0..129   | five slot blocks of 26 entries, card 1 first; in the block of slot `c` (offset 26 × (c − 1)): |
|   +0..5  | one-hot of the card's value 1..6                                        |
|   +6..11 | one-hot of the die placed on it (zeros while uncovered)                 |
|   +12    | covered and card + die ≤ 7 (the pair survives High)                     |
|   +13    | covered and card ≥ die (the pair survives Low)                          |
|   +14..19| uncovered only, per die value `v` = 1..6: how `v` would fit under High (below) |
|   +20..25| the same under Low (below)                                              |
| 130..135 | own current roll: count of each face 1..6, divided by 5 (zeros when not to act) |
| 136, 137 | pairs surviving High, surviving Low so far, divided by 5                |
| 138..143 | one-hot of the round: turn 1..5, then the bid (all zero once over)      |
| 144      | 1 while this player has still to commit this round                      |
| 145      | 1 in tournament mode                                                    |
| 146..166 | three opponent blocks of 7, in seat order after this player (below)     |

The fit of die value `v` on an uncovered card: under High, 1 − (7 − card − v) / 7 if
card + v ≤ 7, else 0; under Low, 1 − (card − v) / 7 if v ≤ card, else 0 (1 = an exact
fit, the best tie-break). An opponent block is a present flag, then the count of each
face 1..6 among that opponent's placed dice, divided by 5.

`envs.games.roll_five.read_observation(obs)` reads an observation back into the
game's terms (the bots see the game through it).

Hidden, strictly: another player's cards, their current roll, and every player's
choice of the current round (placement or bid) until the round resolves. The reveal at
the end shows in `render()` and the scores, not in the observations.

## Rewards

* `reward_mode="win"` (default): 0 until the end, then +1 for every player who shares
  the win and −1 for the others; 0 for everyone when all share it (a two-player tie is
  a draw).
* `reward_mode="score"`: the pairs a player keeps under their bid, paid at the end.
* `reward_mode="margin"`: each step pays each player the change of their lead, their
  total minus the best other player's (solo: the score); an episode's return is the
  final lead, so points an opponent gains count against the player.

## Rulings and options

* `mode="casual"` (default): equal pair counts share the win. `mode="tournament"`:
  among the players tied on pairs, the one closest to the best score of their bid wins:
  High distance |35 − Σ(card + die)|, Low distance Σ(card − die), each over the kept
  pairs; equal distances still share the win.
* A die is chosen by its value: dice of the same value are interchangeable.
* Both bids are always open; a player with no surviving pair under either bid keeps 0.
* Chance: the shuffle and a decision-independent roll tape are drawn from the env's
  generator at `reset`, so the same seed gives every agent the same cards and dice.

## Search

* The rules-core state is `env.unwrapped.game_state`. **For search use
  `state.clone_resampled(rng)`**: the cards, the placed dice and this turn's rolls stay
  and the rolls of the turns to come are drawn from `rng`. It keeps the deal: a search
  for one player should also resample the cards that player cannot see. `state.clone()`
  keeps the real future rolls and is for replays and tests only.

## Batched env

```python
import gymnasium, envs
vec_env = gymnasium.make_vec("RollFive-v0", num_envs=1024, num_players=4, mode="tournament")   # 1024 games per step
observations, infos = vec_env.reset(seed=0)                    # game i is the single env's game of seed 0 + i
observations, rewards, terminations, truncations, infos = vec_env.step(vec_env.action_space.sample())
```

The native batched env (`envs/batched/vector_env.py`, the rules in Numba kernels in
`envs/batched/roll_five.py`) plays the single env's games, seed for seed, with the same options;
`infos["action_mask"]` is `(N, 32)`. Its speed: `python benchmarks/env_speed.py --batched`
(the docs' *Batched env speed* page holds the last run, with its machine and load).

## Version history

* v0: initial release.
* The native batched env (`gymnasium.make_vec`, above) added; the games are unchanged, and so is the version.
"""

from envs.aec import aec_api
from envs.games.roll_five import RollFive
from envs.parallel import parallel_api
from envs.single_agent import single_agent_api

GAME = RollFive
raw_env, env = aec_api(GAME, "roll_five_v0", __name__)
parallel_env = parallel_api(GAME, "roll_five_v0", __name__)
gym_env = single_agent_api(GAME, __name__)

__all__ = ["GAME", "env", "gym_env", "parallel_env", "raw_env"]
