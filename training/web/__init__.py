"""Play, watch and replay the games in a web browser: ``tabletop serve``.

:mod:`training.web.app` is the Starlette app (the page and its JSON API),
:mod:`training.web.sessions` the games and replays it holds and the view of one seat,
:mod:`training.web.tables` each game's table as the page draws it, and
:mod:`training.web.catalogue` what the browser may choose (games, options, agents).
The page itself is ``static/`` (HTML, CSS and one script, no build step).
"""
