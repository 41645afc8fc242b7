"""python -m training.record: a whole game as a GIF, and bad input refused in one line."""

from __future__ import annotations

from PIL import Image

from training import record


def test_a_game_of_invers_becomes_a_gif(tmp_path, capsys):
    out = tmp_path / "invers.gif"
    assert record.main(["--env", "invers", "--agent", "greedy", "--frame-ms", "10", str(out)]) == 0
    frames = int(capsys.readouterr().out.split(": ")[1].split()[0])
    with Image.open(out) as gif:
        assert 1 < gif.n_frames <= frames  # Pillow may merge identical frames


def test_bad_input_is_one_line_and_exit_code_2(tmp_path, capsys):
    out = tmp_path / "x.gif"
    assert record.main(["--env", "invers", "--agent", "nope", str(out)]) == 2
    assert capsys.readouterr().err.startswith("error: --agent: unknown agent 'nope' for invers")
    assert record.main(["--env", "invers", "--players", "3", str(out)]) == 2
    assert capsys.readouterr().err.startswith("error: --players: invers: num_players must be")
    assert not out.exists()


def test_an_output_that_cannot_be_written_is_refused_before_the_game_is_played(tmp_path, capsys):
    missing = tmp_path / "no-such-folder" / "x.gif"
    assert record.main(["--env", "invers", str(missing)]) == 2
    assert capsys.readouterr().err == f"error: output {missing}: the folder {missing.parent} does not exist\n"
    assert record.main(["--env", "invers", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err
        == f"error: output {tmp_path} is a folder; give the .gif file to write, e.g. {tmp_path / 'invers.gif'}\n"
    )
    assert record.main(["--env", "invers", "--frame-ms", "0", str(tmp_path / "x.gif")]) == 2
    assert capsys.readouterr().err == "error: --frame-ms must be positive, got 0\n"
    assert list(tmp_path.iterdir()) == []
