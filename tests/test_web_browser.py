"""The web page in a real browser: Debian's chromium, headless, driven by Playwright for
Python against ``tabletop serve``'s app on a loopback port.

One whole game of every env is played by clicking the page's moves (the buttons, and
Invers's arrows at the board's edge), one game of agents is watched (step, play, pause),
and one recorded game is replayed forward and back. Dice are picked by clicking them and
rolled with one button (Inverted Dice, Six Hundred), Invers's pushes made from the edge,
at a desktop's width (1280 px) and a phone's (390 px), where the page must not scroll
sideways. A screenshot of each is saved in the test's temporary folder, and also in
``$TABLETOP_SCREENS`` when that is set (the set shown in a change's notes).

The browser is the system's ``chromium`` (``.ci/run`` installs it with apt); Playwright
never downloads one. Without it these tests are skipped, saying so. No assertion is
about time: waits are generous, for a busy machine.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from agents.inverted_dice import optimal
from agents.inverted_dice.solver import NUM_STATES, Solution
from agents.match import play_game, start_game
from agents.registry import make_agent
from envs.games.inverted_dice import NUM_BOXES
from envs.registry import make_game
from training import record
from training.web.app import create_app
from training.web.background import serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 60_000

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).is_file(), reason="needs the system's chromium (apt-get install chromium)"
)

#: Per env: options, seats (P0 first) and how many of the person's moves to make before the screenshot.
GAMES = {
    "inverted_dice": ({}, ["human"], 4),
    "six_hundred": ({}, ["human"], 4),
    "invers": ({"max_plies": 40}, ["human", "greedy"], 6),
    "roll_five": ({"mode": "tournament"}, ["human", "heuristic", "random"], 3),
    "lost_dice": ({"rolls_per_player": 3}, ["human", "heuristic"], 2),
    "keldice": ({"rolls_per_player": 3}, ["heuristic", "human"], 2),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serving(create_app(tmp_path_factory.mktemp("checkpoints"))) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 (of the dev extra: only where chromium runs these)

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield launched
        launched.close()


#: The widths the page is looked at: a desktop's and a phone's.
WIDTHS = (1280, 390)
PHONE = 600  #: narrower than this, the page is opened as a phone opens it (touch, twice the pixels)


@pytest.fixture
def open_page(browser, server):
    """Open the page at a width (px), ready, at the instant speed; closed after the test."""
    contexts = []

    def opened(width: int):
        phone = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True} if width < PHONE else {}
        context = browser.new_context(viewport={"width": width, "height": 844 if width < PHONE else 900}, **phone)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(server + "/")
        page.wait_for_selector("body[data-ready=yes]")
        page.select_option("#speed", "0")
        return page

    yield opened
    for context in contexts:
        context.close()


@pytest.fixture
def page(open_page):
    return open_page(1100)


def screenshot(page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    folder = os.environ.get("TABLETOP_SCREENS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def start(page, env: str, options: dict, seats: list[str], seed: int = 1) -> None:
    page.select_option("#game", env)
    page.fill("#players", str(len(seats)))
    for name, value in options.items():
        field = page.locator(f"[name=option-{name}]")
        if field.evaluate("node => node.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))
    page.dispatch_event("#players", "change")  # the seat menus are asked for this table
    page.wait_for_selector("#seats[data-ready=yes]")
    for seat, choice in enumerate(seats):
        page.select_option(f"#seat-{seat}", choice)
    page.fill("#seed", str(seed))
    page.click("#start")


def wait_turn(page) -> str:
    """Wait until the person is to move or the game is over; which of the two."""
    page.wait_for_selector("body[data-state=human], body[data-state=over]")
    return page.get_attribute("body", "data-state")


def fits(page) -> bool:
    """The page does not scroll sideways."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def shown_dice(page) -> list[int]:
    """The faces of the dice the page draws, leftmost first (each die's label: "die 5")."""
    labels = page.eval_on_selector_all(".dice svg.die", "dice => dice.map((d) => d.getAttribute('aria-label'))")
    return [int(label.split()[-1]) for label in labels]


def server_view(page) -> dict:
    """The view the page last drew: the server's answer, with the moves it recorded."""
    return page.evaluate("current.view")


@pytest.mark.parametrize("env", sorted(GAMES))
def test_a_whole_game_of_every_env_played_by_clicking(page, env, tmp_path):
    options, seats, before_screenshot = GAMES[env]
    start(page, env, options, seats)
    clicks = 0
    while wait_turn(page) == "human":
        moves = page.locator("[data-action]:visible")  # the buttons shown and the arrows at Invers's edge
        if moves.count() == 0:  # rerolls only (the inverted sum's box is taken): every die picked, then rolled
            for die in page.locator("button.pick").all():
                die.click()
            moves = page.locator("#reroll[data-action]")
        assert moves.count() > 0
        moves.last.click()  # the last legal move: a score, a push or a whole reroll, which moves the game on
        clicks += 1
        if clicks == before_screenshot:
            wait_turn(page)
            screenshot(page, tmp_path, env)
        assert clicks < 300, "the game did not end"
    result = page.text_content("#result")
    assert page.is_visible("#result") and result.strip()
    assert page.locator("#legal button").count() == 0
    logged = page.locator("#log li").count()
    assert logged >= clicks and page.locator("#log li", has_text="(you)").count() == clicks
    screenshot(page, tmp_path, f"{env}-over")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("env", sorted(GAMES))
def test_every_game_fits_a_desktop_and_a_phone(open_page, env, width, tmp_path):
    """A few moves into a game, the page does not scroll sideways (screenshot ``<env>-<width>``)."""
    options, seats, moves = GAMES[env]
    page = open_page(width)
    start(page, env, options, seats, seed=4)
    for _ in range(min(moves, 2)):
        assert wait_turn(page) == "human"
        shown = page.locator("[data-action]:visible")
        if shown.count() == 0:  # rerolls only: every die picked, then rolled
            for die in page.locator("button.pick").all():
                die.click()
            shown = page.locator("#reroll[data-action]")
        shown.first.click()
    wait_turn(page)
    assert fits(page)
    screenshot(page, tmp_path, f"{env}-{width}")


def test_the_seats_offer_only_agents_that_can_play_the_table(page, tmp_path):
    def offered(env: str, players: int) -> list[str]:
        page.select_option("#game", env)
        page.fill("#players", str(players))
        page.dispatch_event("#players", "change")
        page.wait_for_selector("#seats[data-ready=yes][data-preparing=no]")  # the optimal agent may be solving
        return page.eval_on_selector_all("#seat-0 option", "options => options.map((o) => o.value)")

    solitaire = offered("inverted_dice", 1)
    assert {"human", "heuristic", "optimal", "ppo", "td"} <= set(solitaire) and "ppo+search" not in solitaire
    table_of_two = offered("inverted_dice", 2)
    assert {"human", "random", "heuristic"} == set(table_of_two)
    assert "td: plays solitaire only; this table has 2 players" in page.text_content("#not-offered")
    screenshot(page, tmp_path, "seats-not-offered")
    assert "ppo+search" in offered("invers", 2)
    assert "td" in offered("lost_dice", 1)  # the solo game's trained turn-value agent
    page.select_option("#seat-0", "td")
    screenshot(page, tmp_path, "lost-dice-solo-td")
    assert "td" in offered("keldice", 1)  # and solo Keldice's
    assert "td" not in offered("keldice", 2)


def test_a_solo_keldice_game_of_td_is_watched_to_its_end(page, tmp_path):
    """Solo Keldice with the shipped turn-value agent in the seat, run to the end: the moves the
    page shows are those the agent plays from the same seed alone."""
    start(page, "keldice", {}, ["td"], seed=3)
    page.wait_for_selector("body[data-state=agent], body[data-state=over]")
    if page.get_attribute("body", "data-state") == "agent":
        page.click("#run")
    page.wait_for_selector("body[data-state=over]")
    assert page.is_visible("#result") and page.text_content("#result").strip()
    view = server_view(page)
    game = make_game("keldice", num_players=1)
    state, history = play_game(game, [make_agent("keldice", "td", game)], 3)
    assert [(m["player"], m["action"]) for m in view["moves"]] == list(history)
    assert view["scores"] == state.scores().tolist()
    screenshot(page, tmp_path, "keldice-solo-td-over")


def test_watching_agents_step_play_and_pause(page, tmp_path):
    start(page, "invers", {"max_plies": 30}, ["greedy", "random"])
    page.wait_for_selector("body[data-state=agent]")
    assert page.locator("#legal button").count() == 0 and page.is_visible("#watch-controls")
    page.click("#step")
    page.wait_for_selector("#log li")
    assert page.locator("#log li").count() == 1
    page.select_option("#speed", "1500")
    page.click("#run")
    page.wait_for_function("document.querySelectorAll('#log li').length >= 2")
    page.click("#pause")
    paused = page.locator("#log li").count()
    page.wait_for_timeout(3500)  # two moves' time at this speed
    assert page.locator("#log li").count() <= paused + 1  # a move already asked for may still land
    page.select_option("#speed", "0")
    page.click("#run")
    page.wait_for_selector("body[data-state=over]")
    assert page.text_content("#result").startswith(("Won by", "A draw"))
    screenshot(page, tmp_path, "watch-invers")


def test_replaying_a_recorded_game_forward_and_back(page, tmp_path):
    path = tmp_path / "roll_five.jsonl"
    assert record.main(["--env", "roll_five", "--agent", "heuristic", "--players", "3", "--seed", "2", str(path)]) == 0
    page.click("#show-replay")
    page.set_input_files("#record-file", str(path))
    page.click("#open-record")
    page.wait_for_selector("body[data-state=replay]")
    count = page.locator("#step-count")
    assert count.text_content() == "0 / 18"
    for _ in range(3):
        page.click("#forward")
    page.wait_for_function("document.getElementById('step-count').textContent === '3 / 18'")
    assert page.locator("#log li").count() == 3
    page.click("#back")
    page.wait_for_function("document.getElementById('step-count').textContent === '2 / 18'")
    screenshot(page, tmp_path, "replay-roll_five")
    page.click("#last")
    page.wait_for_selector("body[data-state=over]")
    assert count.text_content() == "18 / 18" and page.is_visible("#result")
    assert page.locator(".card.down").count() == 0  # a spectator sees every card
    page.click("#first")
    page.wait_for_function("document.getElementById('step-count').textContent === '0 / 18'")
    assert page.locator("#log li").count() == 0


@pytest.mark.parametrize("width", WIDTHS)
def test_inverted_dice_picked_by_clicking_them_are_rerolled_with_one_button(open_page, width, tmp_path):
    page = open_page(width)
    start(page, "inverted_dice", {}, ["human"], seed=5)
    assert wait_turn(page) == "human"
    assert shown_dice(page) == [1, 3, 5, 5, 5]
    dice, reroll = page.locator("#table button.pick"), page.locator("#reroll")
    assert dice.count() == 5 and reroll.is_disabled() and page.text_content("#reroll-why") == "click the dice to reroll"
    assert page.locator("#legal > button").all_text_contents() == ["score the inverted sum"]
    assert page.locator("#table-moves button").count() == 31 and not page.is_visible("#table-moves button")
    for k in (0, 3, 4, 0):  # die 1 picked and put back: dice 4 and 5 stay picked
        dice.nth(k).click()
    assert [dice.nth(k).get_attribute("aria-pressed") for k in range(5)] == ["false"] * 3 + ["true"] * 2
    assert page.text_content("#reroll-why") == "reroll dice 4,5" and reroll.get_attribute("data-action") == "23"
    assert fits(page)
    page.mouse.move(0, 0)  # no die under the pointer: its hover outline is not a pick
    screenshot(page, tmp_path, f"inverted_dice-picked-{width}")
    reroll.click()
    assert wait_turn(page) == "human"
    state, _ = start_game(make_game("inverted_dice"), [None], 5)
    state.apply(0, 23)
    assert server_view(page)["moves"] == [
        {"number": 1, "player": 0, "action": 23, "name": "reroll dice 4,5", "outcome": ""}
    ]
    assert shown_dice(page) == state.sheet_picture()["dice"] == [1, 3, 4, 4, 5]
    assert "roll 2/3" in page.text_content("#status") and page.locator("button.pick[aria-pressed=true]").count() == 0
    page.click("#table-moves summary")  # every reroll is also a button
    page.get_by_role("button", name="reroll dice 1", exact=True).click()
    assert wait_turn(page) == "human"
    assert server_view(page)["moves"][-1]["name"] == "reroll dice 1" and "roll 3/3" in page.text_content("#status")
    assert dice.count() == 0 and page.locator("#reroll, #table-moves").count() == 0  # no reroll left: dice stay


@pytest.mark.parametrize("width", WIDTHS)
def test_six_hundred_locks_the_dice_not_picked_and_rolls_the_rest(open_page, width, tmp_path):
    page = open_page(width)
    start(page, "six_hundred", {}, ["human"], seed=4)
    assert wait_turn(page) == "human"
    assert shown_dice(page) == [4, 5, 6, 6, 6, 6]
    dice, reroll = page.locator("#table button.pick"), page.locator("#reroll")
    assert reroll.is_disabled()  # nothing picked: locking all six would leave nothing to roll
    dice.nth(0).click()
    dice.nth(1).click()
    assert page.text_content("#reroll-why") == "lock dice 3,4,5,6 and roll the rest"
    reroll.click()
    assert wait_turn(page) == "human"
    state, _ = start_game(make_game("six_hundred"), [None], 4)
    state.apply(0, 60)
    assert server_view(page)["moves"][-1]["action"] == 60 and shown_dice(page) == list(state.dice)
    assert page.locator(".die-slot.locked").count() == 4 and dice.count() == 2  # locked dice are not buttons
    assert "locked" in page.text_content(".dice .note")
    dice.nth(0).click()
    assert page.text_content("#reroll-why") == "lock dice 6 and roll the rest"
    assert fits(page)
    screenshot(page, tmp_path, f"six_hundred-locked-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_invers_pushes_are_made_from_the_board_s_edge(open_page, width, tmp_path):
    page = open_page(width)
    start(page, "invers", {}, ["human", "greedy"])
    assert wait_turn(page) == "human"
    arrows = page.locator("#table .push")
    assert arrows.count() == 24 and page.locator("#legal > button").count() == 0  # the buttons: a closed list
    row_3 = page.locator('#table .push[data-action="2"]')
    assert row_3.get_attribute("aria-label") == "push: row 3 →" and row_3.locator("title").text_content() == "row 3 →"
    row_3.hover()
    assert page.text_content("#push-hint") == "row 3 →"
    assert fits(page)
    screenshot(page, tmp_path, f"invers-edge-{width}")
    row_3.click()
    assert wait_turn(page) == "human"
    view = server_view(page)
    assert view["moves"][0] == {"number": 1, "player": 0, "action": 2, "name": "row 3 →", "outcome": ""}
    assert view["moves"][1]["player"] == 1 and view["table"][1]["hands"][0] == "r"  # row 3's red end tile fell out
    page.click("#table-moves summary")
    arrow = arrows.first  # the keyboard's way: focus an arrow, then Enter
    action, name = int(arrow.get_attribute("data-action")), arrow.locator("title").text_content()
    arrow.focus()
    assert page.text_content("#push-hint") == name
    page.keyboard.press("Enter")
    assert wait_turn(page) == "human"
    assert server_view(page)["moves"][2] == {"number": 3, "player": 0, "action": action, "name": name, "outcome": ""}
    assert page.is_visible("#table-moves button")  # the list opened stays open from move to move


def test_the_page_answers_at_once_while_the_optimal_agent_is_prepared(browser, monkeypatch, tmp_path):
    """No solution cached: the first game's optimal agent solves for minutes. The page offers
    every other agent at once, says the optimal one is being prepared, and offers it once
    ready; Start waits only for the seat menus. The solve is held here until released."""
    released = threading.Event()

    def unsolved(free_cross_out=False, cache_dir=None, force=False):
        released.wait()  # the solve (1.5-2 minutes of CPU time where nothing is cached), held by the test
        return Solution(bool(free_cross_out), NUM_BOXES, np.zeros(NUM_STATES), np.zeros(NUM_STATES))

    monkeypatch.setattr(optimal, "cached_solution", unsolved)
    with serving(create_app(tmp_path / "checkpoints")) as url:
        try:
            context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            held = []

            def hold(route):
                held.append(route)

            page.route("**/api/agents", hold)  # the first seating's answer held back
            page.goto(url + "/")
            while not held:
                page.wait_for_timeout(50)
            # the seats are not known yet: Start stays clickable, and a click waits for them
            assert page.get_attribute("#seats", "data-ready") == "no" and page.is_enabled("#start")
            held[0].continue_()
            page.unroute("**/api/agents")
            page.wait_for_selector("body[data-ready=yes]")
            assert page.input_value("#game") == "inverted_dice"
            assert page.get_attribute("#seats", "data-preparing") == "yes"
            note = "preparing the optimal agent (about 2 min): offered here once ready"  # the networks load in seconds
            page.wait_for_function("note => document.getElementById('preparing').textContent === note", arg=note)
            offered = page.eval_on_selector_all("#seat-0 option", "options => options.map((o) => o.value)")
            assert {"human", "heuristic", "ppo", "td"} <= set(offered) and "optimal" not in offered
            assert page.is_enabled("#start") and fits(page)
            screenshot(page, tmp_path, "preparing-optimal-390")
            page.set_viewport_size({"width": 1280, "height": 900})
            screenshot(page, tmp_path, "preparing-optimal-1280")
            request = urllib.request.Request(
                url + "/api/sessions",
                json.dumps({"env": "inverted_dice", "options": {}, "seats": ["optimal"]}).encode(),
                {"Content-Type": "application/json"},
            )
            with pytest.raises(urllib.error.HTTPError) as refused:  # not built twice: asked for, it is refused
                urllib.request.urlopen(request)
            assert refused.value.code == 503
            assert json.loads(refused.value.read())["error"].startswith("preparing the optimal agent (about 2 min)")
            released.set()
            page.wait_for_selector("#seats[data-preparing=no]")
            assert "optimal" in page.eval_on_selector_all("#seat-0 option", "options => options.map((o) => o.value)")
            assert page.locator("#preparing").count() == 0
            page.select_option("#seat-0", "heuristic")
            page.click("#start")
            page.wait_for_selector("body[data-state=agent]")  # a game of agents: watched
            context.close()
        finally:
            released.set()


def test_one_click_on_start_right_after_editing_the_players_starts_the_game(page, tmp_path):
    """The click that leaves the Players box (its change asks for the seats anew) was swallowed:
    Start was disabled as the click landed, and a second click was needed."""
    page.select_option("#game", "invers")
    page.wait_for_selector("#seats[data-ready=yes]")
    page.select_option("#game", "lost_dice")  # Players carries over as 2
    page.wait_for_selector("#seats[data-ready=yes]")
    page.fill("#players", "1")  # typed, the box still focused
    page.click("#start")  # once
    assert wait_turn(page) == "human"
    assert page.text_content("#seats-line") == "Lost Dice: P0 (you)"
    screenshot(page, tmp_path, "lost_dice-solo-one-click")


def test_the_solo_lost_dice_log_names_each_throw_and_the_legend_what_a_pass_costs(page, tmp_path):
    """A newcomer's question: what did my roll throw, and what does pass cost? The log's line of a
    roll names the faces on the table, a pass's the roll it spent; the legend says it (screenshot)."""
    start(page, "lost_dice", {}, ["human"], seed=4)
    assert wait_turn(page) == "human"
    assert "pass spends it without throwing" in page.text_content("#table")
    page.click("#legal button:text-is('pass')")
    page.wait_for_selector("#log li:has-text('a roll spent without throwing, 29 left')")
    assert wait_turn(page) == "human"
    page.click("#legal button:text-is('roll')")
    page.wait_for_selector("#log li:has-text('threw')")
    line = page.locator("#log li").last.text_content()
    assert line == f"P0 (you): roll → {server_view(page)['moves'][-1]['outcome']}" and " threw " in line, line
    screenshot(page, tmp_path, "lost_dice-solo-log")


def set_players(page, count: int) -> None:
    """Type the number of players and leave the field, as a person does (its change event)."""
    page.fill("#players", str(count))
    page.press("#players", "Tab")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_menus_speak_to_a_player_and_fit_a_phone(open_page, width, tmp_path):
    """The reasons an agent is not offered, the options' labels and defaults, an error and a
    game's first line, in a player's words, on a page that never scrolls sideways."""
    page = open_page(width)
    page.select_option("#game", "inverted_dice")
    set_players(page, 2)
    page.wait_for_selector("#seats[data-ready=yes][data-preparing=no]")
    page.click("#not-offered > summary")
    reasons = page.locator("#not-offered > ul > li")
    assert page.evaluate("document.getElementById('not-offered').open") and reasons.count() == 4
    ppo = reasons.filter(has_text="ppo: trained")
    assert ppo.evaluate("li => li.firstChild.textContent") == "ppo: trained for 1 player; this table has 2 players"
    assert "expects observations (112,)" in ppo.get_attribute("title")  # the server's words: a tooltip, and
    ppo.locator("details > summary").click()  # a detail opened on request
    assert "expects observations (112,)" in ppo.locator("code").text_content()
    assert fits(page)
    screenshot(page, tmp_path, f"not-offered-{width}")

    page.select_option("#game", "lost_dice")
    page.wait_for_selector("#seats[data-ready=yes]")
    assert page.locator("[name=option-variant]").count() == 0  # Keldice is its own game, not a variant here
    assert page.text_content("#options label") == "Rolls per player "
    rolls = {}
    for count in (1, 2, 3, 4):
        set_players(page, count)
        rolls[count] = page.input_value("[name=option-rolls_per_player]")
    assert rolls == {1: "30", 2: "25", 3: "20", 4: "20"}  # the rules' defaults by table size
    page.fill("[name=option-rolls_per_player]", "7")
    set_players(page, 2)
    assert page.input_value("[name=option-rolls_per_player]") == "7"  # a value the person set stays
    set_players(page, 9)
    page.wait_for_selector("#error:visible")
    assert page.text_content("#error") == "Lost Dice is played by 1 to 4 players, not 9" and page.is_disabled("#start")
    assert fits(page)
    screenshot(page, tmp_path, f"lost_dice-error-{width}")
    set_players(page, 2)
    page.wait_for_selector("#seats[data-ready=yes]")
    page.select_option("#seat-1", "heuristic")
    page.fill("#seed", "1")
    page.click("#start")
    assert wait_turn(page) == "human"
    assert page.text_content("#status") == "Lost Dice - player 0 to start their turn"
    assert page.text_content("#seats-line") == "Lost Dice: P0 (you), P1 (heuristic)"
    assert fits(page)
    screenshot(page, tmp_path, f"lost_dice-start-{width}")
