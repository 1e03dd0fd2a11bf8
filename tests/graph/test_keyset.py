"""The hash set of pair keys (privcut.graph.keyset) against Python's set."""

import numpy as np
import pytest

from privcut.graph.keyset import KeyTable


@pytest.mark.parametrize("seed", range(4))
def test_keyset_is_a_set_under_removes_and_adds(seed):
    rng = np.random.default_rng(seed)
    high = [50, 10**6, 2**31, 2**62][seed]  # dense keys (long probes) to 62-bit keys
    keys = np.unique(rng.integers(0, high, 40))
    held, reference = KeyTable(keys, high=high), set(keys.tolist())  # 32- or 64-bit slots
    for _ in range(30):  # swap-like rounds: some out, as many new in
        out = rng.choice(np.array(sorted(reference)), size=min(8, len(reference)), replace=False)
        held.remove(out)
        reference -= set(out.tolist())
        new = np.setdiff1d(np.unique(rng.integers(0, high, 12)), np.array(sorted(reference)))
        held.add(new)
        reference |= set(new.tolist())
        queries = np.concatenate([rng.integers(0, high, 60), out, new])
        expected = [int(q) in reference for q in queries]
        assert held.contains(queries).tolist() == expected
        assert len(held) == len(reference)


def test_keyset_refuses_to_remove_a_missing_key():
    held = KeyTable(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="not in the set"):
        held.remove(np.array([4]))


def test_keyset_keeps_never_used_slots_under_churn_and_growth():
    """Review r8 F2': remove-then-add churn used to fill every slot with tombstones, and a
    lookup of an absent key then never ended; a set grown past its table hung in add."""
    held = KeyTable(np.array([0, 1, 2]))
    for step in range(200):  # one key out, a new one in
        held.remove(np.array([step]))
        held.add(np.array([step + 3]))
    assert held.contains(np.array([10**6, 202, 5])).tolist() == [False, True, False]
    grown = KeyTable(np.array([7]))
    grown.add(np.arange(100, 5_100))  # 5,000 keys into a table built for one
    assert len(grown) == 5_001 and grown.contains(np.array([7, 5_099, 5_100])).tolist() == [
        True,
        True,
        False,
    ]
