"""The web page in a real browser: Debian's chromium, headless, driven by Playwright for
Python against ``tabletop serve``'s app on a loopback port.

One whole game of every env is played by clicking the page's move buttons, one game
of agents is watched (step, play, pause), and one recorded game is replayed forward and
back. A screenshot of each game is saved in the test's temporary folder, and also in
``$TABLETOP_SCREENS`` when that is set (the set shown in a change's notes), with one
at a phone's width (390 px), where the page must not scroll sideways.

The browser is the system's ``chromium`` (``.ci/run`` installs it with apt); Playwright
never downloads one. Without it these tests are skipped, saying so. No assertion is
about time: waits are generous, for a busy machine.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

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


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(WAIT_MS)
    opened.goto(server + "/")
    opened.wait_for_selector("body[data-ready=yes]")
    opened.select_option("#speed", "0")
    yield opened
    context.close()


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


@pytest.mark.parametrize("env", sorted(GAMES))
def test_a_whole_game_of_every_env_played_by_clicking(page, env, tmp_path):
    options, seats, before_screenshot = GAMES[env]
    start(page, env, options, seats)
    clicks = 0
    while wait_turn(page) == "human":
        buttons = page.locator("#legal button")
        assert buttons.count() > 0
        buttons.last.click()  # the last legal move: a score or a push, which moves the game on
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


def test_the_page_fits_a_phone(browser, server, tmp_path):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready=yes]")
    page.select_option("#speed", "0")
    start(page, "roll_five", {}, ["human", "heuristic"], seed=4)
    for _ in range(2):
        assert wait_turn(page) == "human"
        page.locator("#legal button").first.click()
    wait_turn(page)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, tmp_path, "roll_five-phone")
    start_invers = page.locator("#show-setup")
    start_invers.click()
    start(page, "invers", {}, ["human", "greedy"])
    assert wait_turn(page) == "human"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, tmp_path, "invers-phone")
    context.close()


def test_the_seats_offer_only_agents_that_can_play_the_table(page, tmp_path):
    def offered(env: str, players: int) -> list[str]:
        page.select_option("#game", env)
        page.fill("#players", str(players))
        page.dispatch_event("#players", "change")
        page.wait_for_selector("#seats[data-ready=yes]")
        return page.eval_on_selector_all("#seat-0 option", "options => options.map((o) => o.value)")

    solitaire = offered("inverted_dice", 1)
    assert {"human", "heuristic", "optimal", "ppo", "td"} <= set(solitaire) and "ppo+search" not in solitaire
    table_of_two = offered("inverted_dice", 2)
    assert {"human", "random", "heuristic"} == set(table_of_two)
    assert "td: agent 'td': the inverted_dice turn-value agent plays solitaire" in page.text_content("#not-offered")
    screenshot(page, tmp_path, "seats-not-offered")
    assert "ppo+search" in offered("invers", 2)


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
