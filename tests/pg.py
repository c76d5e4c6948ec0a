"""The throw-away PostgreSQL server of the tests: ``twentynine.benchmarks.throwaway``
(the load benchmark starts one too)."""

from twentynine.benchmarks.throwaway import (
    SUPERUSER,
    Cluster,
    Unavailable,
    find_bindir,
    start_cluster,
)

__all__ = ["SUPERUSER", "Cluster", "Unavailable", "find_bindir", "start_cluster"]
