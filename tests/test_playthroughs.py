"""Each registered env replays its golden playthrough exactly (see tests/playthrough.py)."""

import difflib

import pytest

from tests.playthrough import VERSIONS, golden_path, record


@pytest.mark.parametrize("name", list(VERSIONS))
def test_playthrough_matches_the_golden_file(name):
    path = golden_path(name)
    assert path.is_file(), f"no golden playthrough for {name}: run `python -m tests.playthrough`"
    recorded = record(name)
    expected = path.read_text()
    if recorded != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), recorded.splitlines(True), "golden", "now", n=1))
        pytest.fail(f"{name} no longer replays its golden playthrough:\n{diff[:4000]}")
