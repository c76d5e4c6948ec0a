"""29 for game-AI research: PettingZoo, OpenSpiel and Gymnasium environments,
and arenas that run on a Dask cluster.

The modules need the ``research`` extra (``pip install twentynine[research]``);
importing this package alone needs nothing beyond numpy.
"""
