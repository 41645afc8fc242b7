"""# Inverted Dice

| Import               | `from envs import inverted_dice_v1`                          |
|----------------------|--------------------------------------------------------------|
| Gymnasium id         | `InvertedDice-v1` (single agent; other seats are opponents)   |
| PettingZoo id        | `tabletop/inverted_dice_v1` (AEC)                            |
| Actions              | Discrete                                                     |
| Parallel API         | No (turn-based)                                              |
| Agents               | `agents= ['player_0', ...]`, 1 to 5 (default 1)              |
| Action shape         | (1,)                                                         |
| Action values        | Discrete(52)                                                 |
| Observation shape    | (112 + 21 × (players − 1),)                                  |
| Observation values   | [0, 1]                                                       |

Inverted Dice (Simon K. Jensen, 2016) is Yahtzee with *inverted sums*: the value of a roll
of five dice is 21 minus the sum of the distinct values it shows, always 1..20. Each
player has boxes 1..20 and fills one per turn over twenty rounds. Rules: `docs/rules/inverted_dice.md`.

## Creation

```python
from envs import inverted_dice_v1
env = inverted_dice_v1.env(num_players=3, render_mode="ansi")       # PettingZoo AEC
raw = inverted_dice_v1.raw_env(num_players=1, free_cross_out=True)  # without wrappers

import gymnasium
from agents.registry import make_agent
from envs.registry import make_game
env = gymnasium.make("InvertedDice-v1")                              # solitaire
bot = make_agent("inverted_dice", "heuristic", make_game("inverted_dice", num_players=2))
env = gymnasium.make("InvertedDice-v1", num_players=2, opponents=bot)
```

Keyword arguments: `num_players` (1..5, default 1), `free_cross_out` (default False),
`reward_mode` (`"score"`, `"win"` or `"margin"`, default by player count), `render_mode`
(`"ansi"`, `"human"`, `"rgb_array"`). The Gymnasium env also takes `opponents`,
`learner_seat`, and `illegal_action` / `illegal_reward` (an illegal action ends the
episode with reward −1 by default) (see `envs.single_agent`).

## Turn and the dice

A turn: the five dice are rolled; after each roll the player scores the inverted sum or
rerolls any non-empty subset (kept dice may be rerolled later), at most two rerolls.
The dice are always shown in ascending order: *die 1* is the lowest die on the table.

## Action space

| id     | action                                                                   |
|--------|--------------------------------------------------------------------------|
| 0..30  | reroll a subset of the dice (the bits of `a + 1`, below)                 |
| 31     | score the current inverted sum in its box                                |
| 32..51 | cross out box 1..20 (write 0): action `31 + b` crosses out box `b`       |

A reroll `a` rerolls die `i` (1-based, in ascending order) when bit `i − 1` of `a + 1` is
set: 0 = die 1, 1 = die 2, 2 = dice 1 and 2, 30 = all five.
`envs.games.inverted_dice.reroll_action(positions)` and `cross_out_action(box)` build
ids; `env.unwrapped.game.action_name(a)` names any id.

## Legal actions mask

`observation["action_mask"]` (int8; Gymnasium: `action_masks()` and
`info["action_mask"]`) is 1 for:

* rerolls: on the first and second roll;
* score: whenever the box of the current inverted sum is open;
* cross out box `b`: `b` is open and either (third roll and the inverted sum's box is
  taken) or `free_cross_out=True` (after any roll). So after the third roll scoring is
  forced when possible, exactly as the official rule "an available result is registered".

The acting player's mask is never empty. A non-acting player's mask is all zeros.

## Observation space

A float32 vector from the observing player's point of view:

| index     | meaning                                                               |
|-----------|-----------------------------------------------------------------------|
| 0..29     | the dice: five one-hots of the face (1..6), die 1 first               |
| 30..35    | count of each face 1..6, divided by 5                                 |
| 36..55    | one-hot of the current inverted sum 1..20                             |
| 56..58    | one-hot of the roll number 1..3                                       |
| 59..78    | own boxes 1..20: 1 while open                                         |
| 79..81    | own low / middle / high bonus still achievable (no box of it crossed out, not yet earned) |
| 82..84    | own low / middle / high bonus earned                                  |
| 85        | own score / 360                                                       |
| 86        | own turns left (this one included) / 20                               |
| 87        | 1 if the dice on the table are this player's (this player is to act)  |
| 88..107   | planning: per box 1..20, the chance of ending this turn on it if every remaining reroll aims at it alone |
| 108..110  | planning: low / middle / high section progress, boxes scored / section size |
| 111       | planning: points that scoring now would write / 20                    |
| 112..     | for each other player in seat order after this one: 20 open-box flags and score / 360 |

The chances of 88..107 are exact, from the dice and the rolls left. Both planning parts
on the dice, 88..107 and 111, are 0 for a box that is taken (111: the inverted sum's box)
and whenever the dice are not this player's.

The dice are those of the player to act; score sheets are public in the physical game,
so nothing is hidden.

## Rewards

* `reward_mode="score"` (default with one player): each write pays its points, and a
  section bonus pays +50 on the write that completes it. A solitaire episode's return is
  the final score (0..360).
* `reward_mode="win"` (default with several players): 0 until the end, then +1 for every
  player with the highest total, −1 for the others; if all totals are equal, 0 for all
  (so two players with equal totals draw, and in a larger game equal top totals all
  count as wins — "equal totals share the win").
* `reward_mode="margin"`: each step pays each player the change of their lead, their
  total minus the best other player's (solo: the score); an episode's return is the
  final lead, so points an opponent gains count against the player.

## Rulings and options (`docs/rules/inverted_dice.md`)

* Crossing out is only possible after the third roll when the inverted sum's box is
  taken; `free_cross_out=True` allows it after any roll (Yahtzee scratching), and then a
  player may also cross out instead of scoring after the third roll.
* Bonuses need every box of the section *scored*; a crossed-out box loses the bonus.
* Chance uses a decision-independent dice tape (see `envs.games.dice_rounds`): the
  same seed gives every agent the same dice sequence.

## Reference scores (solitaire)

Optimal play (exact solver, `python -m agents.inverted_dice.solver`) scores 226.19 on
average (standard deviation 34.45). `free_cross_out=True` leaves the optimum unchanged:
crossing out instead of scoring, or before the third roll, never gains in expectation.
The `optimal` bot (`agents.inverted_dice.optimal.OptimalAgent`) plays that policy. How the
bots and the shipped agents score against it: the docs' results pages
(`python training/results_pages.py` makes them from `make results`' reports).

## Global state, search and action names

* `env.state()` (PettingZoo; `env.state_space` is `Box(0, 1)`) is every seat's
  observation side by side, seat 0 first: shape (players × observation size,),
  e.g. (112,) solitaire and (266,) for two. Together it holds the whole position
  (every sheet, the dice, whose turn), for centralised critics.
* The rules-core state is `env.unwrapped.game_state`. **For search use
  `state.clone_resampled(rng)`**: the dice on the table stay and every roll to come is
  drawn from `rng`, so an expectimax or MCTS look-ahead samples futures. `state.clone()`
  keeps the game's real future dice (the dice tape) and is for replays and tests only.
  States compare with `==` and hash by position (`state.key()`), never by future dice,
  for transposition tables.
* `game.action_from_name("reroll dice 1,3")` is the exact inverse of `game.action_name`.
* `render_mode="rgb_array"` draws the dice and the score sheet; `python -m training.record
  --env inverted_dice --agent heuristic out.gif` records a whole game.

## Batched env

```python
import gymnasium, envs
# 1024 games per step
vec_env = gymnasium.make_vec("InvertedDice-v1", num_envs=1024, num_players=2, free_cross_out=True)
observations, infos = vec_env.reset(seed=0)  # game i is the single env's game of seed 0 + i
observations, rewards, terminations, truncations, infos = vec_env.step(vec_env.action_space.sample())
```

The native batched env (`envs/batched/vector_env.py`, the rules in Numba kernels in
`envs/batched/inverted_dice.py`) plays the single env's games, seed for seed, with the same options;
`infos["action_mask"]` is `(N, 52)`. Its speed: `python benchmarks/env_speed.py --batched`
(the docs' *Batched env speed* page holds the last run, with its machine and load).

## Version history

* v1: planning features (entries 88..111): per-box hit chances this turn, section
  progress and the points of scoring now, so that a learner need not work out dice
  probabilities itself; other players' blocks move from 88 to 112. Actions unchanged.
* v0: initial release (`inverted_dice_v0`, still registered: the same game and actions
  with the 88-entry observation).
* The native batched env (`gymnasium.make_vec`, above) added; the games are unchanged, and so is the version.
"""

from envs.aec import aec_api
from envs.games.inverted_dice import InvertedDice
from envs.single_agent import single_agent_api

GAME = InvertedDice
raw_env, env = aec_api(GAME, "inverted_dice_v1", __name__)
gym_env = single_agent_api(GAME, __name__)

__all__ = ["GAME", "env", "gym_env", "raw_env"]
