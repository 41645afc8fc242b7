"""# Lost Dice (and Keldice)

| Import               | `from envs import lost_dice_v0`                               |
|----------------------|---------------------------------------------------------------|
| Gymnasium id         | `LostDice-v0` (single agent; other seats are opponents)       |
| PettingZoo id        | `tabletop/lost_dice_v0` (AEC)                                 |
| Actions              | Discrete                                                      |
| Parallel API         | No (turn-based; offers are decided out of turn order)         |
| Agents               | `agents= ['player_0', ...]`, 1 to 4 (default 2)               |
| Action shape         | (1,)                                                          |
| Action values        | Discrete(20)                                                  |
| Observation shape    | (77 + 118 × players,)                                         |
| Observation values   | [-1, 1]                                                       |

Lost Dice is Lost Cities played with three custom dice: one die gives the colour, the
other two add up to the number written in that colour's column of the score sheet
(R Y B G W). Columns must rise; a `$` among the value dice is an investment that
multiplies the column. A thrown result a player does not want is discarded and offered
to the other players. Keldice, the designer's variant, has dice with bonus symbols and
columns that may run down as well as up; it is `variant="keldice"` here and also its own
env, `keldice_v0` / `Keldice-v0`. Full rules with every ruling: `docs/rules/lost_dice.md`.

## Creation

```python
from envs import lost_dice_v0
env = lost_dice_v0.env(render_mode="ansi")                         # PettingZoo AEC, 2 players
env = lost_dice_v0.env(variant="keldice", num_players=3)           # Keldice for three
raw = lost_dice_v0.raw_env(num_players=1, rolls_per_player=30)     # solitaire, without wrappers

import gymnasium, envs
env = gymnasium.make("LostDice-v0")                                # learner vs a random opponent
env = gymnasium.make("Keldice-v0", num_players=3, learner_seat=1)

from agents.registry import make_agent
game = env.unwrapped.game
env = gymnasium.make("Keldice-v0", num_players=3, opponents=make_agent("keldice", "heuristic", game))
```

Keyword arguments: `num_players` (1..4, default 2), `variant` (`"lost_dice"` default,
or `"keldice"`; the `keldice_v0` env has no such argument), `rolls_per_player` (default
25 for two players, 30 solo, 20 for three or four; Keldice 20), `dice_file` (a YAML file
of the dice faces, default `envs/games/dice/<variant>.yaml`; see *Dice* below),
`reward_mode` (`"win"` by default with several players, `"score"` solo, or `"margin"`),
`render_mode` (`"ansi"`, `"human"`, `"rgb_array"`: the ansi sheet drawn as a picture). The
Gymnasium env also takes `opponents`, `learner_seat`, and `illegal_action` /
`illegal_reward` (an illegal action ends the episode with reward −1 by default) (see
`envs.single_agent`).

## Dice

Three dice of six faces, each face a number 1..6 or `$` and a colour R Y B G W or K
(black). Default faces (`envs/games/dice/lost_dice.yaml`):

| die | faces                              |
|-----|------------------------------------|
| 1   | `$`/K, 5/Y, 4/G, 1/R, 3/W, 2/B      |
| 2   | 5/K, 4/B, 3/G, 2/Y, 1/W, 5/R        |
| 3   | 1/Y, 1/G, 2/R, 5/W, 4/K, 3/B        |

Keldice (`envs/games/dice/keldice.yaml`; number/colour/bonus symbol, V = 2 VP,
S = wishing stone, E = extra roll, - = none):

| die | faces                                          |
|-----|------------------------------------------------|
| 1   | 1/W/-, 2/K/S, 2/R/S, 3/B/V, 4/G/E, 5/Y/V        |
| 2   | 1/B/E, 2/Y/V, 3/G/V, 3/K/-, 4/R/S, 5/W/S        |
| 3   | 1/Y/S, 2/G/V, 3/R/E, 3/W/-, 4/K/S, 5/B/V        |

A throw is **played** by choosing the die that gives the colour (K or `$` as the colour
die: any colour); the other two add up to the value (2..10 with these dice). If one of
the two value dice shows `$`, the play is an investment in that colour instead. In
Keldice, two value dice with the same bonus symbol earn it. A dice file with a wrong
face count, an unknown colour or symbol, a number out of 1..6 or a `$` in Keldice is a
`DiceFileError` naming the file, the die and the face.

## Turn sequence and whose decision it is

`acting_players()` (and so `agent_selection`, and in the Gymnasium env the seat whose
policy is asked) always names the player who decides, in or out of the usual turn order.

```
2 players (the offer is the first decision of the next turn):
  player_0: roll ──> throw: play it, or discard it ──┐
  player_1: [roll | pass | take the offered throw]  <┘   (take: play it, it was this turn's roll)
  player_1: throw: play it, or discard ...

3 players, player_0 discards:
  player_1: take / decline        (asked first: the discarder's left)
  player_2: take / decline        (asked only if player_1 declined)
  player_1: roll | pass           (player_1's turn, unless player_1 took the throw:
                                   then that was their turn, and player_2 is next)
  A player who takes plays the throw at once and skips their next turn.
```

A player is asked only if they have a roll left and a legal play for the throw (take is
never a dead end: a taken throw must be played). When the next player is the only one
who could take it (always with two players), the offer is folded into their turn's
first decision, as drawn above. Solitaire: a discard is offered to no one.

## Action space

| id     | action                                                              |
|--------|---------------------------------------------------------------------|
| 0      | roll (turn start)                                                   |
| 1      | pass (turn start: no roll, nothing offered)                         |
| 2      | take the offered throw                                              |
| 3      | decline the offered throw (3–4 players, asked out of turn)          |
| 4      | discard the throw on the table                                      |
| 5..19  | play the throw: die `d` (1..3) gives colour `c` (0..4 = R Y B G W): id `5 + 5 (d − 1) + c` |

`envs.games.lost_dice.play_action(die, colour)` builds a play id (0-based die);
`env.unwrapped.game.action_name(a)` names any id (`"die 2 as colour → Red"`), and
`game.describe_play(play)` names what a play writes (`"Red 7"`, `"Blue 6 + wishing stone"`).

## Legal actions mask

`observation["action_mask"]` (int8; Gymnasium: `action_masks()` and
`info["action_mask"]`) is exact in every phase:

* turn start: roll and pass; take as well when a throw is on offer to this player;
* offer decision (out of turn): take and decline;
* a throw to play: every play the throw offers that the column allows (numbers strictly
  rising — Keldice: strictly up or down, the second number fixing the way; investments
  while the column has at most two numbers and fewer than three investments), and
  discard unless the throw was taken. With no legal play only discard is allowed.

A non-acting player's mask is all zeros.

## Observation space

A float32 vector from the observing player's point of view; everything is public.
Named offsets: `envs.games.lost_dice.OBS_*`, `COL_*`, `PL_*`.

| index   | meaning                                                                 |
|---------|-------------------------------------------------------------------------|
| 0..2    | phase one-hot: turn start, a throw to play, an offer decision           |
| 3       | 1 if the observer is to act                                             |
| 4       | 1 if the throw shown is a discarded throw on offer                      |
| 5..22   | the throw shown (to play, or on offer): per die 1..3, one-hot of its face (the file's order) |
| 23..37  | per play id 5..19: the number it would write / 12 (0: no such play, or an investment) |
| 38..52  | per play id 5..19: 1 if it is an investment                             |
| 53..61  | Keldice: per colour die 1..3, one-hot of the bonus (V, S, E) the other two earn |
| 62..76  | per play id 5..19: 1 if the observer could write it now                 |
| 77..    | one block of 118 per player: the observer's, then the others in seat order after them |

Player block (offset `77 + 118 k`):

| index    | meaning                                                                 |
|----------|-------------------------------------------------------------------------|
| 0..109   | columns R, Y, B, G, W: 22 entries each, colour `c` at `22 c` (below)    |
| 110      | Keldice: wishing stones / 10 (capped at 1)                              |
| 111      | Keldice: VP symbols earned / 10 (capped at 1)                           |
| 112      | score now / 800 (Keldice: / 100), clipped to [-1, 1]                    |
| 113      | rolls left / rolls per player                                           |

A column's 22 entries, from its offset on:

| offset   | meaning                                                                 |
|----------|-------------------------------------------------------------------------|
| +0..12   | one-hot of the last number written (+0: none)                           |
| +13      | numbers written / 11                                                    |
| +14      | their sum / 77                                                          |
| +15..18  | one-hot of the investments 0..3                                         |
| +19, +20 | Keldice: the column runs up, down (both 0 until fixed)                  |
| +21      | what the column scores now / 200 (Keldice: / 10)                        |
| 114      | turns still to skip (after taking offers out of turn) / 3, capped       |
| 115      | 1 if this player is to act                                              |
| 116      | 1 if it is this player's turn in the turn order                         |
| 117      | 1 if this player discarded the throw on offer                           |

## Rewards

* `reward_mode="win"` (default with several players): 0 until the end, then +1 for every
  player with the highest total, −1 for the others; 0 for all if every total is equal.
* `reward_mode="score"` (default solo): each step pays each player the change of their
  running score, the score the sheet would have if the game ended now (starting a
  column pays −20). Keldice starts at −4 for zero wishing stones, and the first step
  pays it, so in both games an episode's return is the final score.
* `reward_mode="margin"`: each step pays each player the change of their lead, their
  total minus the best other player's (solo: the score); an episode's return is the
  final lead, so points an opponent gains count against the player.

## Scoring

* Lost Dice, per started column: (sum of numbers − 20) × (1 + investments), then +20
  with eight or more entries (numbers and investments). Empty columns score 0.
* Keldice: per colour 0, −4, −3, 2, 3, 6, 10 for 0, 1, 2, 3, 4, 5, 6+ numbers; −4, −3,
  2, 3, 6, 10 for 0, 1, 2, 3, 4, 5+ wishing stones; +2 per VP symbol.

## Episode end

When every player has used all their rolls (roll, pass and take each use one; a
Keldice extra roll does not). A discard of the last roll is still offered to anyone
with a roll left. Highest total wins; equal totals draw.

## Rulings and options

* Each turn starts with roll / pass / take, each one of the player's rolls; a player
  with no legal play must discard. A taken throw must be played.
* Offers go round from the discarder's left, asking only players with a roll left and a
  legal play; the next player, when alone in that, decides at the start of their turn.
  With 3–4 players a taker skips their next turn (the discarder's left neighbour: the
  turn about to start). Several takes mean several skipped turns.
* A Keldice extra roll is thrown at once by the player who earned it, whoever's turn it
  is, and may itself be discarded (and offered) or earn another.
* `$` as the colour die is wild, as is black; two `$` among the value dice are one
  investment. Keldice dice files may not contain `$`.
* `rolls_per_player` **(option)**; `dice_file` **(option)** for one's own printed dice.
* Chance is a per-player throw tape drawn at reset: a player's k-th throw of the game
  is the same for a given seed whatever anyone decides (common random numbers).

## Search

* The rules-core state is `env.unwrapped.game_state`. **For search use
  `state.clone_resampled(rng)`**: the sheets and the throw on the table stay and every
  throw to come is drawn from `rng`. `state.clone()` keeps the game's real future
  throws (the throw tape) and is for replays and tests only.
* `game.score_bounds()` gives the exact range of the running score for the game's dice
  and `rolls_per_player` (Lost Dice defaults: −400 to 408 / 320 / 272 for 30 / 25 / 20
  rolls).

## Batched env

```python
import gymnasium, envs
vec_env = gymnasium.make_vec("LostDice-v0", num_envs=1024, num_players=3)   # 1024 games per step
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
from envs.games.lost_dice import LostDice
from envs.single_agent import single_agent_api

GAME = LostDice
raw_env, env = aec_api(GAME, "lost_dice_v0", __name__)
gym_env = single_agent_api(GAME, __name__)

__all__ = ["GAME", "env", "gym_env", "raw_env"]
