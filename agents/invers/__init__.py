"""Invers bots: a one-ply greedy player (:mod:`.greedy`) and an alpha-beta search (:mod:`.search`),
and the network's search in compiled code (:mod:`.compiled_network_search`), registered here
for :func:`agents.search.network_search`."""

from agents.compiled_searches import register_network_search


def _compiled_network_search(network, max_plies: int, **options):
    """:class:`~agents.invers.compiled_network_search.CompiledNetworkSearch`, imported when a search is made."""
    from agents.invers.compiled_network_search import CompiledNetworkSearch  # noqa: PLC0415 (torch and Numba)

    return CompiledNetworkSearch(network, max_plies, **options)


register_network_search("invers", _compiled_network_search)
