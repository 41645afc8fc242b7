"""Games kept: the JSON-lines record format and its replay (:mod:`~training.records.game_record`),
and a game played to a record or an animated GIF (:mod:`~training.records.recording`).

``tabletop record`` writes them, the evaluation's ``--record-games`` and the web page too,
and ``tabletop serve`` replays a record step by step.
"""
