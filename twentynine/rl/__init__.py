"""29 for game-AI research: PettingZoo, OpenSpiel and Gymnasium environments,
and arenas that run on a Dask cluster (see docs/research.md).

Each module needs its library from the ``research`` extra
(``pip install 'twentynine[research]'``); this package imports none of them.
"""
