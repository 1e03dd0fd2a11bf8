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
