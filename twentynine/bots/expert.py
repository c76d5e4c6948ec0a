"""The expert: the frozen ``expert-v1`` with contract decisions by simulation
and play that values card points once the outcome is equal.
"""

from __future__ import annotations

from .expert_v1 import ExpertV1Bot


class ExpertBot(ExpertV1Bot):
    level = "expert"
