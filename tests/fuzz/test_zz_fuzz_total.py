"""After a full run of tests/fuzz (this file sorts last): were enough inputs run?"""

from __future__ import annotations

import pytest

from tests.fuzz.budget import BUDGET, SCALE, TARGET_INPUTS
from tests.fuzz.targets import COUNTS


def test_budget_meets_the_target():
    assert sum(BUDGET.values()) >= TARGET_INPUTS


def test_every_fuzz_test_ran_its_inputs():
    missing = [name for name in BUDGET if not COUNTS[name]]
    if missing:
        pytest.skip(f"not a full run of tests/fuzz (did not run: {', '.join(missing)})")
    for name, budget in BUDGET.items():
        # hypothesis runs exactly max_examples inputs unless a test fails first
        assert COUNTS[name] >= round(budget * SCALE), name
    if SCALE >= 1:
        assert sum(COUNTS.values()) >= TARGET_INPUTS
