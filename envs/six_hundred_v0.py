"""# Six Hundred

| Import               | `from envs import six_hundred_v0`                            |
|----------------------|--------------------------------------------------------------|
| Gymnasium id         | `SixHundred-v0` (single agent; other seats are opponents)    |
| PettingZoo id        | `tabletop/six_hundred_v0` (AEC)                              |
| Actions              | Discrete                                                     |
| Parallel API         | No (turn-based)                                              |
| Agents               | `agents= ['player_0', ...]`, 1 to 6 (default 1)              |
| Action shape         | (1,)                                                         |
| Action values        | Discrete(82)                                                 |
| Observation shape    | (120 + 37 × (players − 1),)                                  |
| Observation values   | [0, 1]                                                       |

Six Hundred (in Reiner Knizia's *Dice Games Properly Explained*) is a six-dice poker
game: in each of eighteen rounds a player rolls up to three times, setting dice aside for
good, and writes the six dice into one of eighteen categories. The complete rules, with
every ruling: `docs/rules/six_hundred.md`.

## Creation

```python
from envs import six_hundred_v0
env = six_hundred_v0.env(num_players=3, render_mode="ansi")   # PettingZoo AEC
raw = six_hundred_v0.raw_env()                                # without wrappers

import gymnasium, envs
from agents.registry import make_agent
env = gymnasium.make("SixHundred-v0")                         # solitaire
bot = make_agent("six_hundred", "heuristic", six_hundred_v0.GAME(num_players=2))
env = gymnasium.make("SixHundred-v0", num_players=2, opponents=bot)
```

Keyword arguments: `num_players` (1..6, default 1), `reward_mode` (`"score"`,
`"win"` or `"margin"`, default by player count), `render_mode` (`"ansi"`, `"human"`, `"rgb_array"`).
The Gymnasium env also takes `opponents`, `learner_seat`, and `illegal_action` /
`illegal_reward` (an illegal action ends the episode with reward −1 by default) (see
`envs.single_agent`).

## Turn and the dice

The six dice are rolled. After each roll the player either **scores** (writes the six
dice into an open category, which ends the turn) or **locks** some of the unlocked dice
and rolls the others; at most three rolls. A locked die stays locked until the turn
ends. The dice are shown **locked dice first, in ascending order, then the unlocked dice
in ascending order**: with `k` dice locked, dice 1..k are the locked ones and dice
k+1..6 can still be rolled.

## Action space

| id     | action                                                                   |
|--------|--------------------------------------------------------------------------|
| 0..63  | lock the dice at the set bits of the id, then roll every die still unlocked |
| 64..81 | score category `c` (0..17) with action `64 + c`                          |

A lock's bit `i − 1` is die `i` (1-based, in the shown order): 0 = roll the unlocked dice
without locking more, 1 = lock die 1, 2 = lock die 2, 3 = dice 1 and 2, 48 = dice 5 and 6.
The categories: 64 Ones, 65 Twos, 66 Threes, 67 Fours, 68 Fives, 69 Sixes, 70 Rung 1,
71 Rung 2, 72 Rung 3, 73 Rung 4, 74 Four of a Kind, 75 Five of a Kind, 76 Odds, 77 Evens,
78 Series, 79 Pairs, 80 Triplets, 81 Sextet.

`envs.games.six_hundred.lock_action(positions)` and `score_action(category)` build ids;
`env.unwrapped.game.action_name(a)` names any id ("lock dice 2,3 and roll the rest",
"score Rung 2").

## Legal actions mask

`observation["action_mask"]` (int8; Gymnasium: `action_masks()` and
`info["action_mask"]`) is 1 for:

* lock-and-roll `a`: on the first and second roll, when `a` sets no bit of an
  already-locked die and at least one die is left to roll (locking every die would
  roll nothing: to stop, score);
* score category `c`: `c` is open (after any roll; dice that do not fit score 0).

The acting player's mask is never empty (an open category always remains). A
non-acting player's mask is all zeros.

## Observation space

A float32 vector from the observing player's point of view:

| index     | meaning                                                                |
|-----------|------------------------------------------------------------------------|
| 0..35     | the dice: six one-hots of the face (1..6), die 1 first (shown order)   |
| 36..41    | die `i` is locked                                                      |
| 42..47    | count of each face 1..6 among the six dice, / 6                        |
| 48..65    | the points the dice would score now in each category, / 36            |
| 66..68    | one-hot of the roll number 1..3                                        |
| 69..86    | own categories: 1 while open                                           |
| 87..104   | own points written per category, / 36 (0 while open)                   |
| 105..112  | own rungs 1..4: lowest and highest value each may still hold (below), / 36 |
| 113       | own Numbers total toward the bonus: min(total, 80) / 80                |
| 114       | own Numbers bonus earned                                               |
| 115       | own ladder still able to ascend (no rung penalty yet certain)          |
| 116       | own game bonus still possible (ladder alive, no 0 outside the Sextet)  |
| 117       | own score / 599                                                        |
| 118       | own turns left (this one included) / 18                                |
| 119       | 1 if the dice on the table are this player's (this player is to act)   |
| 120..     | for each other player in seat order after this one: 18 points written / 36, 18 open flags, score / 599 |

The rungs' bounds are those with the ladder strictly ascending; a written rung holds its
value twice, and all eight are 0 once the ladder is broken.

The dice are those of the player to act; score sheets are public in the physical game,
so nothing is hidden. Named offsets: `envs.games.six_hundred.OBS_*`.

## Rewards

* `reward_mode="score"` (default with one player): each write pays its points and the
  Numbers bonus pays +35 on the write that reaches 80. The rung penalty and the game
  bonus are settled on the last move of the game, so a broken ladder is paid there as
  one negative reward (minus the four rung values) and the game bonus as +36. A
  solitaire episode's return is the final score (0..599).
* `reward_mode="win"` (default with several players): 0 until the end, then +1 for every
  player with the highest total, −1 for the others; 0 for all if every total is equal.
* `reward_mode="margin"`: each step pays each player the change of their lead, their
  total minus the best other player's (solo: the score); an episode's return is the
  final lead, so points an opponent gains count against the player.

## Rulings (`docs/rules/six_hundred.md`)

* Scoring is allowed after any roll; any open category may take the dice, for 0 when
  they do not fit it.
* Rung penalty: unless Rung 1 < Rung 2 < Rung 3 < Rung 4 (strictly, so equal values
  fail), all four rungs score 0. It is settled at the end of the game; until then the
  score counts rungs at face value and observation entry 115 tells whether the ladder
  can still ascend.
* Pairs: three pairs, with four equal dice counting as two pairs, so 4+2 equal dice and
  six equal dice are three pairs (three of a kind is one pair only). Triplets: two
  triples, six equal dice count. A sextet therefore fits Four and Five of a Kind, Pairs,
  Triplets and Sextet.
* Game bonus +36, after the rung penalty: every category scores at least 1, or the only
  zero is the Sextet.
* Maximum score 599, not the rule text's 600: Numbers 126 (six of each face) + Numbers
  bonus 35 + rungs 138 (they must differ, so at best 33, 34, 35, 36) + clusters 138
  (Odds holds at most six 5s = 30) + patterns 126 + game bonus 36. The rule text's 600
  matches no combination of scores under its own rules.
* Where the rule text is silent: a turn may end with dice locked and unlocked alike
  (all six are written); locking without rolling is no action of its own, since
  scoring does the same. The Numbers bonus is paid once, when the Numbers total first
  reaches 80.
* Several players: parallel solitaire in turn order (every player plays round 1, then
  round 2, ...); highest total wins; equal totals share the win.
* Chance uses a decision-independent dice tape (see `envs.games.six_hundred`): the same
  seed gives every agent the same dice.

## Global state, search and action names

* `env.state()` (PettingZoo; `env.state_space` is `Box(0, 1)`) is every seat's
  observation side by side, seat 0 first: shape (players × observation size,),
  e.g. (120,) solitaire and (314,) for two. Together it holds the whole position
  (every sheet, the dice, whose turn), for centralised critics.
* The rules-core state is `env.unwrapped.game_state`. **For search use
  `state.clone_resampled(rng)`**: the dice on the table stay and every roll to come is
  drawn from `rng`, so an expectimax or MCTS look-ahead samples futures. `state.clone()`
  keeps the game's real future dice (the dice tape) and is for replays and tests only.
  States compare with `==` and hash by position (`state.key()`), never by future dice,
  for transposition tables.
* `game.action_from_name("lock dice 1,2 and roll the rest")` is the exact inverse of
  `game.action_name`.
* `render_mode="rgb_array"` draws the dice and the score sheet; `python -m training.record
  --env six_hundred --agent heuristic out.gif` records a whole game.

## Batched env

```python
import gymnasium, envs
vec_env = gymnasium.make_vec("SixHundred-v0", num_envs=1024, num_players=3)   # 1024 games per step
observations, infos = vec_env.reset(seed=0)                    # game i is the single env's game of seed 0 + i
observations, rewards, terminations, truncations, infos = vec_env.step(vec_env.action_space.sample())
```

The native batched env (`envs/batched/vector_env.py`, the rules in Numba kernels in
`envs/batched/six_hundred.py`) plays the single env's games, seed for seed, with the same options;
`infos["action_mask"]` is `(N, 82)`. Its speed: `python benchmarks/env_speed.py --batched`
(the docs' *Batched env speed* page holds the last run, with its machine and load).

## Version history

* v0: initial release.
* The native batched env (`gymnasium.make_vec`, above) added; the games are unchanged, and so is the version.
"""

from envs.aec import aec_api
from envs.games.six_hundred import SixHundred
from envs.single_agent import single_agent_api

GAME = SixHundred
raw_env, env = aec_api(GAME, "six_hundred_v0", __name__)
gym_env = single_agent_api(GAME, __name__)

__all__ = ["GAME", "env", "gym_env", "raw_env"]
