"""The pairing's key lookups (privcut.graph.pairing) against numpy.isin."""

import numpy as np

from privcut.graph import pairing


def test_holds_is_membership_of_the_sorted_distinct_keys_in_any_keys():
    """``_holds(keys, distinct)`` (searches for ``keys``) answers as ``_member(distinct,
    sorted keys)`` (searches for ``distinct``), for fewer or more keys, repeats among the
    keys, keys beyond both ends and empty sides."""
    rng = np.random.default_rng(5)
    for high, size, count in [(40, 10, 30), (10**6, 300, 50), (10**6, 50, 300), (2**40, 0, 9)]:
        distinct = np.unique(rng.integers(0, high, size))
        keys = np.concatenate([rng.integers(-5, high + 5, count), distinct[: size // 4]])
        expected = np.isin(distinct, keys)
        assert pairing._holds(keys, distinct).tolist() == expected.tolist()
        assert pairing._member(distinct, np.sort(keys)).tolist() == expected.tolist()
        assert not pairing._holds(keys[:0], distinct).any()
