"""# Invers

| Import               | `from envs import invers_v0`                                  |
|----------------------|---------------------------------------------------------------|
| Gymnasium id         | `Invers-v0` (single agent; the other seat is an opponent)     |
| PettingZoo id        | `tabletop/invers_v0` (AEC)                                    |
| Actions              | Discrete                                                      |
| Parallel API         | No (turn-based)                                               |
| Agents               | `agents= ['player_0', 'player_1']` (yellow, red)              |
| Action shape         | (1,)                                                          |
| Action values        | Discrete(24)                                                  |
| Observation shape    | (151,)                                                        |
| Observation values   | [0, 1]                                                        |

Invers (Philippe Proux, 1991) is an abstract sliding-tile game for two. A 6×6 board is
filled with 18 yellow and 18 red tiles in a checkerboard, colour side up; each player
holds one more tile of their colour, dot side up. A move pushes the tile in hand into a
row or column; the tile pushed out at the far end is flipped dot side up and becomes the
mover's next tile in hand. The first colour with every tile flipped wins. The complete
rules, with every ruling and option: `docs/rules/invers.md`.

## Creation

```python
from envs import invers_v0
env = invers_v0.env(render_mode="ansi")            # PettingZoo AEC
raw = invers_v0.raw_env(max_plies=200)             # without wrappers

import gymnasium, envs
from agents.registry import make_agent
env = gymnasium.make("Invers-v0")                  # learner vs a random opponent
bot = make_agent("invers", "search:depth=2", invers_v0.GAME())
env = gymnasium.make("Invers-v0", opponents=bot, learner_seat=1)
```

Keyword arguments: `max_plies` (default 400), `reward_mode` (`"win"` by default,
`"score"` or `"margin"`), `render_mode` (`"ansi"`, `"human"`, `"rgb_array"`). The Gymnasium env
also takes `opponents`, `learner_seat`, and `illegal_action` / `illegal_reward` (an illegal
action ends the episode with reward −1 by default) (see `envs.single_agent`).

## Agents

`player_0` plays **yellow** and moves first; `player_1` plays **red**. The set-up
position has yellow on row 1, column 1 (the top-left corner).

## Action space

An action pushes the tile in hand into one entry point. Rows and columns are counted
from 1, rows top to bottom, columns left to right; the arrow in an action's name is the
direction the tiles move:

```
                 12 13 14 15 16 17    column c from the top (↓): id 11 + c
                  ↓  ↓  ↓  ↓  ↓  ↓
     column       1  2  3  4  5  6
     row 1   0 →  .  .  .  .  .  .  ← 6
     row 2   1 →  .  .  .  .  .  .  ← 7
     row 3   2 →  .  .  .  .  .  .  ← 8
     row 4   3 →  .  .  .  .  .  .  ← 9
     row 5   4 →  .  .  .  .  .  .  ← 10
     row 6   5 →  .  .  .  .  .  .  ← 11
                  ↑  ↑  ↑  ↑  ↑  ↑
                 18 19 20 21 22 23    column c from the bottom (↑): id 17 + c

     row r from the left (→): id r − 1;  row r from the right (←): id 5 + r
```

| id     | action            | the tile that falls out  |
|--------|-------------------|--------------------------|
| 0..5   | row 1..6 →        | column 6 of that row     |
| 6..11  | row 1..6 ←        | column 1 of that row     |
| 12..17 | column 1..6 ↓     | row 6 of that column     |
| 18..23 | column 1..6 ↑     | row 1 of that column     |

`env.unwrapped.game.action_name(a)` names an id (`"row 3 ←"`); the blocks are
`envs.games.invers.ROW_FROM_LEFT` (0), `ROW_FROM_RIGHT` (6), `COLUMN_FROM_TOP` (12) and
`COLUMN_FROM_BOTTOM` (18), plus the 0-based line index.

## Legal actions mask

`observation["action_mask"]` (int8; Gymnasium: `action_masks()` and
`info["action_mask"]`) is 1 for every push whose falling tile is not an opponent's
flipped tile: any colour-side-up tile, or one's own flipped tile, may be pushed out.
Pushing a line straight back is allowed. A non-acting player's mask is all zeros. The
player to move always has a legal push in a real game (a block needs an opponent's
flipped tile on all 20 border cells, and a colour has only 19 tiles).

## Observation space

A float32 vector from the observing player's point of view ("own" = the observer's
colour). The board is not turned round for red: cell `6·(row−1) + (column−1)` is the
same square for both players.

| index     | meaning                                                          |
|-----------|------------------------------------------------------------------|
| 0..35     | own tiles colour side up (1 where one lies), row by row          |
| 36..71    | own tiles dot side up (flipped)                                  |
| 72..107   | opponent's tiles colour side up                                  |
| 108..143  | opponent's tiles dot side up                                     |
| 144, 145  | own tile in hand is of own colour / of the opponent's colour     |
| 146, 147  | opponent's tile in hand is of own colour / of the opponent's colour |
| 148       | 1 if the observer is to move                                     |
| 149       | 1 if the observer plays red (player 1)                           |
| 150       | plies played / `max_plies`                                       |

Invers hides nothing, so the observation is the whole state:
`envs.games.invers.InversState.from_observation(game, observation)` rebuilds it (this
is how the search bot plans from what it is given).

## Rewards

* `reward_mode="win"` (default): 0 until the end, then +1 for the winner, −1 for the
  loser, 0 for both on a draw (equal flipped tiles, or truncation at `max_plies`).
* `reward_mode="score"`: each push pays each player the change in their count of
  flipped tiles of their own colour (so flipping an opponent's tile pays *them* +1); the
  first push also pays each player the flipped tile in their hand at the start, so an
  episode's return is the final count.
* `reward_mode="margin"`: each step pays each player the change of their lead, their
  total minus the best other player's (solo: the score); an episode's return is the
  final lead, so points an opponent gains count against the player.

## Episode end

* A colour with no colour-side-up tile left on the board (all 19 flipped) wins at once.
  This is checked after every push, so a player can lose by flipping the opponent's
  last tile.
* A player to move with no legal push ends the game: more flipped tiles of one's own
  colour wins, equal is a draw. Only constructed positions reach it (see above), and
  there the blocker always has more flipped tiles (at least 20 against at most 16).
* Truncation: after `max_plies` plies (both players' pushes together) a game still
  running is a draw; `truncations` is True and the rewards are 0. A rule ending on the
  last ply wins over the limit.

## Rulings and options (`docs/rules/invers.md`, "End of the game")

* "Flipped tiles" for the no-move end and for `scores()` counts every tile of a
  player's colour dot side up, wherever it lies: on the board, in their hand or in the
  opponent's hand. It starts at 1 (the tile in hand) and reaching 19 is the win.
* The fallen tile becomes the mover's tile in hand whatever its colour, so a player who
  pushes out an opponent's tile must later push that flipped tile back in.
* Invers has no chance: the seed changes nothing in the game.
* `max_plies` (house rule, default 400) is the truncation limit; any positive integer.

## Global state, search and action names

* `env.state()` (PettingZoo; `env.state_space` is `Box(0, 1)`) is both seats'
  observations side by side, yellow's first: shape (302,).
* The rules-core state is `env.unwrapped.game_state`. Invers has no chance, so
  `state.clone_resampled(rng)` is `state.clone()`; search code written for every game
  should call `clone_resampled`. States compare with `==` and hash by position
  (`state.key()`) for transposition tables.
* `game.action_from_name("row 3 →")` is the exact inverse of `game.action_name`.
* `state.children(player)` gives every legal push's resulting position at once (the
  child observations for the next mover, and the outcome where a push ends the game),
  computed on arrays: a network search's frontier in one call.
* `game.symmetries()`: the board's quarter turns and mirrors (7 besides the identity)
  as index maps of the observation and the actions; a turned position has the same value
  for both players (training augments its minibatches with them).

## Batched env

```python
import gymnasium, envs
vec_env = gymnasium.make_vec("Invers-v0", num_envs=1024, max_plies=200)   # 1024 games per step
observations, infos = vec_env.reset(seed=0)                    # game i is the single env's game of seed 0 + i
observations, rewards, terminations, truncations, infos = vec_env.step(vec_env.action_space.sample())
```

The native batched env (`envs/batched/vector_env.py`, the rules in Numba kernels in
`envs/batched/invers.py`) plays the single env's games, seed for seed, with the same options;
`infos["action_mask"]` is `(N, 24)`. Its speed: `python benchmarks/env_speed.py --batched`
(the docs' *Batched env speed* page holds the last run, with its machine and load).

## Version history

* v0: initial release.
* The native batched env (`gymnasium.make_vec`, above) added; the games are unchanged, and so is the version.
"""

from envs.aec import aec_api
from envs.games.invers import Invers
from envs.single_agent import single_agent_api

GAME = Invers
raw_env, env = aec_api(GAME, "invers_v0", __name__)
gym_env = single_agent_api(GAME, __name__)

__all__ = ["GAME", "env", "gym_env", "raw_env"]
