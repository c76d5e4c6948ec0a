"""The training example runs end to end on a tiny budget and really learns."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_bidding.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_bidding", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bidding_example_trains_and_measures_itself_in_the_arena(
    capsys: pytest.CaptureFixture[str],
) -> None:
    example = load()
    result = example.main(["--episodes", "150", "--eval-deals", "8", "--seed", "3"])
    out = capsys.readouterr().out
    assert "before training" in out and "after training" in out
    for key in ("before", "after"):
        mean, lo, hi = result[key]
        assert lo <= mean <= hi
    assert np.isfinite(result["policy"].theta).all()
    assert np.abs(result["policy"].baseline).sum() > 0  # the updates happened


def test_the_policy_gradient_moves_towards_a_rewarded_limit() -> None:
    example = load()
    policy = example.LimitPolicy()
    x = np.zeros(example.FEATURES)
    x[0] = 1.0
    start = policy.probabilities(x)[3]
    for _ in range(50):
        policy.learn(x, 3, reward=1.0, lr=0.1, lr_base=0.0)
    assert policy.probabilities(x)[3] > start
    assert policy.greedy(x) == 3
