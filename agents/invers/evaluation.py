"""The Invers search bot's evaluation: its weights, in hundredths of a flipped tile.

A position is worth, to its player to move: ``TILE`` per flipped tile of its colour, less
the opponent's; ``EDGE_TILE`` per push that would flip one of its own tiles (its tile
colour side up on the far end), less the opponent's; ``BLOCK`` per push its flipped tiles
block for the opponent, less the reverse; ``FLIP_NOW`` if it can flip one of its tiles at
once. A won game is worth ``WIN`` less the game's ply, so quicker wins come first.

The compiled search (:mod:`agents.invers.compiled_search`) and its Python reference
(:mod:`agents.invers.reference_search`) each compute it their own way from these numbers,
which live here so that neither takes them from the other.
"""

# Tuned in matches of depth-3 and depth-4 searches against each other, 40 games a pairing, seats swapped.
TILE = 100  #: per flipped tile of one's own colour, minus the opponent's
EDGE_TILE = 45  #: per push that would flip one of one's own tiles, minus the opponent's
BLOCK = 3  #: per push one's flipped tiles block for the opponent, minus the reverse
FLIP_NOW = 25  #: the side to move can flip one of its own tiles at once
WIN = 1_000_000  #: a won game, less its ply
