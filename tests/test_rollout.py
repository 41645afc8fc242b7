"""The rollout agent and what it stands on: states sampled from a player's view (``Game.sample_state``)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import Agent, RandomAgent, acts_in_batch
from agents.match import play_game
from agents.registry import check_spec, make_agent, parse_spec
from agents.rollout import RolloutAgent
from envs.games.inverted_dice import NUM_BOXES, NUM_ROUNDS, SCORE, InvertedDice, InvertedDiceV0, cross_out_action
from envs.registry import get_entry, make_game

#: Every env, at the table sizes whose views differ (the opponents' blocks, the seat to read off them).
TABLES = [
    ("inverted_dice", {}),
    ("inverted_dice", {"num_players": 3, "free_cross_out": True}),
    ("six_hundred", {}),
    ("six_hundred", {"num_players": 3}),
    ("invers", {}),
    ("lost_dice", {"num_players": 1}),
    ("lost_dice", {"num_players": 3}),
    ("keldice", {"num_players": 2}),
    ("keldice", {"num_players": 4}),
    ("roll_five", {}),
    ("roll_five", {"num_players": 4, "mode": "tournament"}),
]


def random_positions(game, count: int, seed: int = 0, stride: int = 1):
    """``count`` positions of seeded random games as ``(state, player to act)``: every ``stride``-th
    decision, so that a few hundred spread over many games, from their starts to their ends."""
    rng = np.random.default_rng(seed)
    found, decisions = [], 0
    while len(found) < count:
        state = game.new_initial_state(rng)
        while not state.is_terminal() and len(found) < count:
            for player in state.acting_players():
                if decisions % stride == 0:
                    found.append((state.clone(), player))
                decisions += 1
            for player in state.acting_players():
                state.apply(player, int(rng.choice(np.flatnonzero(state.legal_mask(player)))))
    return found


@pytest.mark.parametrize("env, options", TABLES, ids=[f"{e}-{o}" for e, o in TABLES])
def test_a_sampled_state_shows_the_player_exactly_their_view_and_plays_on(env, options):
    """The sample is a state that player could be in: their observation, to the bit; their legal
    actions among its own; and a game that plays on to its end."""
    game = make_game(env, **options)
    rng = np.random.default_rng(1)
    for k, (state, player) in enumerate(random_positions(game, 300, stride=11)):
        observation = state.observe(player)
        sampled = game.sample_state(observation, rng)
        decider = sampled.acting_players()[0]
        np.testing.assert_array_equal(sampled.observe(decider), observation, err_msg=f"position {k}")
        assert (sampled.legal_mask(decider) >= state.legal_mask(player)).all(), f"position {k}"
        if k % 25 == 0:
            while not sampled.is_terminal():
                for seat in sampled.acting_players():
                    sampled.apply(seat, int(rng.choice(np.flatnonzero(sampled.legal_mask(seat)))))


def test_the_legacy_inverted_dice_view_samples_too():
    """``inverted_dice_v0``'s view has no section progress: the sheets are drawn without it."""
    game = InvertedDiceV0(num_players=2)
    rng = np.random.default_rng(2)
    for state, player in random_positions(game, 200, stride=7):
        observation = state.observe(player)
        np.testing.assert_array_equal(game.sample_state(observation, rng).observe(player), observation)


@pytest.mark.parametrize("env, options", [("inverted_dice", {"num_players": 4}), ("six_hundred", {"num_players": 3})])
def test_the_dice_games_read_the_seat_off_the_sheets(env, options):
    """Parallel solitaire: the seats before the player to act have one more entry this round, so
    the sample seats the player where they sit (and gives the others the right turns left)."""
    game = make_game(env, **options)
    rng = np.random.default_rng(3)
    for state, player in random_positions(game, 200, stride=7):
        assert game.sample_state(state.observe(player), rng).acting_players() == (player,)


@pytest.mark.parametrize("env", ["six_hundred", "invers"])
def test_nothing_is_drawn_where_the_view_shows_everything(env):
    """Six Hundred's view shows every sheet; Invers hides nothing and has no chance: the sample
    is the very position (equal keys: every seat's view), whatever the generator."""
    game = make_game(env, num_players=2)
    rng = np.random.default_rng(4)
    for state, player in random_positions(game, 150, stride=5):
        assert game.sample_state(state.observe(player), rng) == state


def test_the_hidden_part_and_the_future_are_drawn_afresh():
    """Roll Five: the other players' cards differ from sample to sample, the observer's never;
    a dice game: the dice to come differ, the dice on the table never."""
    game = make_game("roll_five", num_players=3)
    state, player = random_positions(game, 10)[7]
    rng = np.random.default_rng(5)
    samples = [game.sample_state(state.observe(player), rng) for _ in range(20)]
    assert {s.cards(0) for s in samples} == {state.cards(player)}
    assert len({(s.cards(1), s.cards(2)) for s in samples}) > 10
    game = make_game("inverted_dice")
    state, player = random_positions(game, 1)[0]
    samples = [game.sample_state(state.observe(player), rng) for _ in range(20)]
    assert {s.dice for s in samples} == {state.dice}
    rolled = set()
    for sample in samples:
        sample.apply(player, 30)  # reroll all five dice: the tape's next row
        rolled.add(sample.dice)
    assert len(rolled) > 10


@pytest.mark.parametrize(
    "env, options, message",
    [
        ("six_hundred", {"num_players": 2}, "six_hundred: sample_state needs the observation of the player to act"),
        ("lost_dice", {}, "lost_dice: sample_state needs the observation of the player to act"),
        ("roll_five", {}, "roll_five: sample_state needs the observation of a player to act"),
    ],
)
def test_a_view_of_a_player_not_to_act_is_refused_in_one_line(env, options, message):
    game = make_game(env, **options)
    state = game.new_initial_state(np.random.default_rng(0))
    waiting = next(p for p in range(game.num_players) if p not in state.acting_players()[:1])
    if env == "roll_five":  # everyone acts at once: one who has committed waits
        state.apply(waiting, int(np.flatnonzero(state.legal_mask(waiting))[0]))
    with pytest.raises(ValueError, match=f"^{message}$"):
        game.sample_state(state.observe(waiting), np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"an observation has shape \("):
        game.sample_state(np.zeros(3, np.float32), np.random.default_rng(0))


# -- the rollout agent -------------------------------------------------------------------


class ObservationHash(Agent):
    """A deterministic base that acts in batch: the legal action a hash of the observation picks,
    the same through ``act`` and ``act_batch`` (so rollouts can be replayed on the core)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[int(np.asarray(observation, np.float64).sum() * 1000) % legal.size])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)])


class CrossOut(Agent):
    """An Inverted Dice base that crosses out the last box whenever it may, else takes the first legal action."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        cross = cross_out_action(NUM_BOXES)
        return cross if action_mask[cross] else int(np.flatnonzero(action_mask)[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)])


#: Every env, briefly: a game of each with two continuations per move (Invers cut short).
GAMES = [
    ("inverted_dice", {}),
    ("six_hundred", {"num_players": 2}),
    ("invers", {"max_plies": 40}),
    ("lost_dice", {"num_players": 3, "rolls_per_player": 6}),
    ("keldice", {"num_players": 2, "rolls_per_player": 6}),
    ("roll_five", {"num_players": 3}),
]


@pytest.mark.parametrize("env, options", GAMES, ids=[e for e, _ in GAMES])
def test_the_rollout_agent_plays_legal_moves_in_every_env_and_repeats_its_games_from_a_seed(env, options):
    """play_game raises on an illegal move; the same seed plays the same game (the game loop
    reseeds the agent, which reseeds its random base)."""
    game = make_game(env, **options)
    agent = make_agent(env, "rollout:n=2", game)
    seats = [agent] + [RandomAgent(game)] * (game.num_players - 1)
    state, history = play_game(game, seats, seed=11)
    assert state.is_terminal() and any(player == 0 for player, _ in history)
    assert play_game(game, seats, seed=11)[1] == history


def test_a_few_rollouts_find_the_obvious_move():
    """Inverted Dice, the last round, only box 20 open, five 1s on the table (inverted sum 20):
    scoring it is worth 20 for sure, a reroll at most that, crossing the box out nothing."""
    game = InvertedDice(free_cross_out=True)
    tape = np.random.default_rng(0).integers(1, 7, size=game.tape_shape)
    tape[0, NUM_ROUNDS - 1, 0] = 1
    state = game.new_state_from_tape(tape)
    for box in range(1, NUM_BOXES):
        state.apply(0, cross_out_action(box))
    assert state.open_boxes(0) == (NUM_BOXES,) and state.current_inverted_sum == NUM_BOXES
    agent = RolloutAgent(game, seed=0, n=4)
    assert agent.act(state.observe(0), state.legal_mask(0)) == SCORE
    values = agent.move_ends(state.observe(0), np.array([0, SCORE, cross_out_action(NUM_BOXES)])).mean(axis=1)
    assert values[1] == NUM_BOXES and values[2] == 0 and values[0] <= NUM_BOXES


def test_the_batched_rollouts_are_the_cores_games():
    """Each candidate played on each determinization to its end by the base, one game at a time on
    the rules core, ends as the twin's rows do, to the last bit."""
    game = make_game("lost_dice", num_players=3, rolls_per_player=4)
    n = 3
    agent = RolloutAgent(game, seed=0, base=ObservationHash(game), n=n)
    base = ObservationHash(game)
    for state, player in random_positions(game, 12, seed=6, stride=3):
        observation, mask = state.observe(player), state.legal_mask(player)
        candidates = np.flatnonzero(mask)
        agent.rng = np.random.default_rng(9)
        batched = agent.move_ends(observation, candidates)
        rng = np.random.default_rng(9)
        by_hand = np.zeros((len(candidates), n))
        for k in range(n):
            sampled = game.sample_state(observation, rng)
            for c, action in enumerate(candidates.tolist()):
                game_on = sampled.clone()
                game_on.apply(0, action)
                while not game_on.is_terminal():
                    seat = game_on.acting_players()[0]
                    game_on.apply(seat, base.act(game_on.observe(seat), game_on.legal_mask(seat)))
                by_hand[c, k] = game_on.returns()[0]
        np.testing.assert_array_equal(batched, by_hand)


def test_rollout_specs_parse_and_bad_options_are_one_line_errors():
    assert parse_spec("rollout:n=8,base=ppo:path=runs/a,b") == ("rollout", {"n": 8, "base": "ppo:path=runs/a,b"})
    assert parse_spec("rollout:base=search:depth=3") == ("rollout", {"base": "search:depth=3"})
    game = InvertedDice()
    agent = make_agent("inverted_dice", "rollout:n=3,base=ppo", game, seed=0)
    assert isinstance(agent, RolloutAgent) and agent.n == 3 and acts_in_batch(agent.base)
    for spec, start, end in [
        ("rollout:n=0", "rollout: n must be a positive integer (continuations per legal move), got 0", ""),
        ("rollout:n=2.5", "rollout: n must be a positive integer (continuations per legal move), got 2.5", ""),
        ("rollout:base=genius", "unknown agent 'genius' for inverted_dice: expected one of ", ""),
        (
            "rollout:depth=3",
            "agent spec 'rollout:depth=3': ",
            "'depth'; RolloutAgent options: ['base', 'n', 'confidence']",
        ),
    ]:
        with pytest.raises(ValueError) as error:
            make_agent("inverted_dice", spec, game)
        message = str(error.value)
        assert message.startswith(start) and message.endswith(end) and "\n" not in message, message
    with pytest.raises(ValueError, match=r"agent spec 'search:depht=2': .*'depht'"):
        check_spec("invers", "rollout:n=2,base=search:depht=2")  # the base is checked up front too
    with pytest.raises(
        ValueError, match=r"^rollout: the base 'OneAtATime' cannot act in batch \(it has no act_batch\)"
    ):
        RolloutAgent(game, base=OneAtATime(game))


class OneAtATime(Agent):
    """A base with ``act`` only."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])


BATCH_BASES = [("random", {}), ("heuristic", {"confidence": 1.0}), ("search", {})]


@pytest.mark.parametrize("base, options", BATCH_BASES, ids=[b for b, _ in BATCH_BASES])
def test_in_batch_each_position_gets_the_move_it_gets_alone(base, options):
    """``act_batch`` with a generator per row decides every position together, as a copy of the
    agent with that generator decides it alone (the random base draws per row, the search bot
    breaks ties at random, the heuristic with ``confidence`` plays its own move when unsure);
    without ``rngs``, the rows one after the other from the agent's own generator."""
    game = make_game("lost_dice", num_players=3, rolls_per_player=4)
    positions = random_positions(game, 30, seed=4, stride=2)
    observations = np.array([state.observe(player) for state, player in positions])
    masks = np.array([state.legal_mask(player) for state, player in positions])
    agent = RolloutAgent(game, seed=0, base=base, n=3, **options)
    agent.twin = get_entry(game.name).batched_class()(game, 5 * game.num_actions * agent.n)  # blocks of a few positions
    alone, drawn = [], []
    for k, (observation, mask) in enumerate(zip(observations, masks)):
        agent.rng = np.random.default_rng(100 + k)
        alone.append(agent.act(observation, mask))
        drawn.append(agent.rng.bit_generator.state)
    rngs = [np.random.default_rng(100 + k) for k in range(len(masks))]
    np.testing.assert_array_equal(agent.act_batch(observations, masks, rngs=rngs), alone)
    assert [r.bit_generator.state for r in rngs] == drawn  # each row drew what its position drew alone
    one, batched = (
        RolloutAgent(game, seed=7, base=base, n=3, **options),
        RolloutAgent(game, seed=7, base=base, n=3, **options),
    )
    expected = [one.act(o, m) for o, m in zip(observations, masks)]
    np.testing.assert_array_equal(batched.act_batch(observations, masks), expected)
    assert batched.rng.bit_generator.state == one.rng.bit_generator.state


def test_with_confidence_it_keeps_the_bases_move_unless_another_is_surely_better():
    """confidence: the base's own move stands against noise; a move that is better for sure still wins."""
    game = make_game("lost_dice", num_players=2, rolls_per_player=4)
    base = ObservationHash(game)
    agent = RolloutAgent(game, seed=0, base=base, n=8, confidence=1e9)  # nothing is ever that sure
    for state, player in random_positions(game, 12, seed=3, stride=2):
        observation, mask = state.observe(player), state.legal_mask(player)
        assert agent.act(observation, mask) == base.act_batch(observation[None], mask[None])[0]
    game = InvertedDice(free_cross_out=True)  # the forced position above: scoring is worth 20 for sure
    tape = np.random.default_rng(0).integers(1, 7, size=game.tape_shape)
    tape[0, NUM_ROUNDS - 1, 0] = 1
    state = game.new_state_from_tape(tape)
    for box in range(1, NUM_BOXES):
        state.apply(0, cross_out_action(box))
    crossing = RolloutAgent(game, seed=0, base=CrossOut(game), n=4, confidence=2.0)
    assert crossing.act(state.observe(0), state.legal_mask(0)) == SCORE
    with pytest.raises(ValueError, match="^rollout: confidence needs n of 2 or more"):
        RolloutAgent(game, n=1, confidence=1.0)
