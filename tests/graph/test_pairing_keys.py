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


class _Counting:
    """A generator that counts the draws a step asks for (rounds are read off them)."""

    def __init__(self, seed: int) -> None:
        self.generator, self.calls = np.random.default_rng(seed), 0

    def permutation(self, size):
        self.calls += 1
        return self.generator.permutation(size)

    def random(self, size=None):
        self.calls += 1
        return self.generator.random(size)


def test_rejoining_and_the_last_draws_stop_at_a_round_that_places_too_few():
    """Stubs whose only pair is an edge already (a hub's last stubs, all of whose partners
    are neighbours) are handed on after one round, not after the 31 and 32 rounds
    allowed (pairing.STALL_SHARE); stubs that can be placed still are."""
    n, key = 5, pairing.pair_keys(np.array([0]), np.array([1]), 5, False)
    stuck = (np.zeros(4, np.int64), np.ones(4, np.int64), np.zeros(4, np.int64))
    pooled = np.array([False])
    counting = _Counting(0)
    edges, left = pairing.rejoined(stuck, pooled, n, False, counting, pairing.KeySet(key), 31)
    assert edges[0].size == 0 and left[0].size == 4
    assert counting.calls == 1  # the first shuffle, one round, no second shuffle
    counting = _Counting(0)
    (found, _), short = pairing._rest(stuck, pooled, pairing.KeySet(key), n, False, counting)
    assert found.size == 0 and short.tolist() == [True]
    assert counting.calls == 2  # one round: a draw for each side
    free = (np.array([0, 2]), np.array([3, 4]), np.zeros(2, np.int64))
    edges, left = pairing.rejoined(free, pooled, n, False, _Counting(0), pairing.KeySet(key), 31)
    assert edges[0].size + left[0].size == 2 and edges[0].size >= 1
