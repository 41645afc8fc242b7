"""# Inverted Dice, v0 (superseded by `inverted_dice_v1`)

| Import               | `from envs import inverted_dice_v0`                          |
|----------------------|--------------------------------------------------------------|
| Gymnasium id         | `InvertedDice-v0` (single agent; other seats are opponents)   |
| PettingZoo id        | `tabletop/inverted_dice_v0` (AEC)                            |
| Agents               | `agents= ['player_0', ...]`, 1 to 5 (default 1)              |
| Action values        | Discrete(52)                                                 |
| Observation shape    | (88 + 21 × (players − 1),)                                   |
| Observation values   | [0, 1]                                                       |

The first release of Inverted Dice, kept registered so that code and agents written for
it keep working. The game, its options (`num_players`, `free_cross_out`), the actions,
the mask, the rewards and the rulings are those of `inverted_dice_v1`, whose env card is
the manual (`python -c "import envs.inverted_dice_v1 as m; print(m.__doc__)"`); the rules
are in `docs/rules/inverted_dice.md`. The one difference is the observation: v0 has
entries 0..87 of v1's table (dice, face counts, inverted sum, roll, open boxes, live and
earned bonuses, score, turns left, whose dice) without v1's planning features (88..111),
so the other players' blocks start at 88 instead of 112.

```python
from envs import inverted_dice_v0
env = inverted_dice_v0.env(num_players=2)
import gymnasium, envs
env = gymnasium.make("InvertedDice-v0")   # Gymnasium warns that v1 is the current version
```

## Version history

* v1: planning features added (see `inverted_dice_v1`).
* v0: initial release.
"""

from envs.aec import aec_api
from envs.games.inverted_dice import InvertedDiceV0
from envs.single_agent import single_agent_api

GAME = InvertedDiceV0
raw_env, env = aec_api(GAME, "inverted_dice_v0", __name__)
gym_env = single_agent_api(GAME, __name__)

__all__ = ["GAME", "env", "gym_env", "raw_env"]
