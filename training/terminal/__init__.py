"""Playing in the terminal (``tabletop play``): one game against any agent, as text."""
