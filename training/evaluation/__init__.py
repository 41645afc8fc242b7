"""Evaluation: agents played against each other with honest statistics, reports, rating ladders."""
