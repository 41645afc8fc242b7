"""Parity of the OpenSpiel games with the PettingZoo envs: same chance, same actions, same game.

    python -m tests.openspiel_parity --env roll_five --players 3 --games 2000

Each game is played in lockstep on a seeded PettingZoo AEC env and on the OpenSpiel game
(:mod:`envs.integrations.openspiel`): the same random legal actions go to both, and every chance node
of the OpenSpiel game is resolved with the outcome the env's seeded draw gave (read off
the env's dice tape, throw or deal). At every decision the legal actions and the whole
state (``state_tensor``) must agree; at the end both must be over, and the OpenSpiel
returns must equal the env's rewards added up.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pyspiel

from envs.core import ChanceEvent, GameState
from envs.integrations.openspiel import PREFIX
from envs.registry import get_entry


def seeded_value(event: ChanceEvent, explicit: GameState, seeded: GameState):
    """The value the seeded env drew for ``event``, pending in ``explicit`` (the env has played the same moves)."""
    if event.resolve == "_dealt":  # Roll Five: card ``index`` of the deal
        (index,) = event.args
        return seeded.cards(index // 5)[index % 5]
    if event.resolve == "_thrown":  # Lost Dice: the throw now on the table
        return seeded.throw
    rolled = len(event.distribution.values[0])
    if event.resolve == "_rolled" and event.args:  # Roll Five: one player's roll this turn
        (player,) = event.args
        return tuple(sorted(seeded._rolls[player][explicit._turn][:rolled]))
    # Inverted Dice and Six Hundred: the tape row of this roll of this turn
    return tuple(sorted(seeded._tape[explicit._player][explicit._round][explicit.roll - 1][:rolled]))


def resolve_chance(state: pyspiel.State, seeded: GameState) -> None:
    """Resolve every pending chance node of ``state`` as the seeded env drew it."""
    while state.is_chance_node():
        explicit = state.play.state
        event = explicit._chance_queue[0]
        value = seeded_value(event, explicit, seeded)
        state.apply_action(event.distribution.outcomes[event.distribution.values.index(value)])


def play_one(env_name: str, num_players: int, seed: int, options: dict | None = None) -> int:
    """Play one game in lockstep; return its number of decisions (raises AssertionError on any difference)."""
    module = get_entry(env_name).load_module()
    env = module.env(num_players=num_players, **(options or {}))
    env.reset(seed=seed)
    seeded = env.unwrapped.game_state
    params = {"players": num_players, **(options or {})}
    state = pyspiel.load_game(PREFIX + env_name, params).new_initial_state()
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    agents = {agent: seat for seat, agent in enumerate(env.possible_agents)}
    decisions = 0
    resolve_chance(state, seeded)
    while not state.is_terminal():
        assert not seeded.is_terminal(), "the env ended first"
        acting = seeded.acting_players()
        assert np.array_equal(state.play.state.state_tensor(), seeded.state_tensor()), "states differ"
        joint = []
        for seat in acting:
            legal = np.flatnonzero(seeded.legal_mask(seat)).tolist()
            assert state.legal_actions(seat) == legal, f"legal actions differ for player {seat}"
            joint.append(int(rng.choice(legal)))
        for seat, action in zip(acting, joint):
            assert agents[env.agent_selection] == seat
            env.step(action)
            for agent in env.agents:
                totals[agent] += env.rewards[agent]
        if state.is_simultaneous_node():
            state.apply_actions(joint)
        else:
            state.apply_action(joint[0])
        decisions += 1
        resolve_chance(state, seeded)
    assert seeded.is_terminal(), "the OpenSpiel game ended first"
    rewards = [totals[agent] for agent in env.possible_agents]
    assert np.allclose(state.returns(), rewards), f"returns {state.returns()} != rewards {rewards}"
    return decisions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", type=json.loads, default=None, help="game options as JSON")
    args = parser.parse_args(argv)
    decisions = sum(play_one(args.env, args.players, args.seed + g, args.options) for g in range(args.games))
    print(f"{args.env} players={args.players}: {args.games} games, {decisions} decisions, all equal")


if __name__ == "__main__":
    main()
