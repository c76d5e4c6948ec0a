"""Benchmarks behind `twentynine bench`: they print figures, they are not tests."""
