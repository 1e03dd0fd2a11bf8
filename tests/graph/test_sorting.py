"""The sorts behind the sparse generator and the clustering measurement (issue 18, speed):
the same permutation as NumPy's stable sort, for every key width."""

import numpy as np
import pytest

from privcut.graph.sorting import (
    dense_ranks,
    packed_argsort,
    radix_argsort,
    row_ranks,
    smallest,
    stable_argsort,
)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.intp])
@pytest.mark.parametrize("bits", [1, 16, 17, 33, 63])
def test_stable_argsort_is_numpys_stable_argsort(dtype, bits):
    rng = np.random.default_rng(bits)
    for size in (0, 1, 2, 500):
        keys = rng.integers(0, 2**bits, size).astype(dtype)
        keys[: size // 3] = keys[size // 3 : 2 * (size // 3)]  # repeats: ties keep their order
        assert stable_argsort(keys).tolist() == np.argsort(keys, kind="stable").tolist()


@pytest.mark.parametrize("bits", [16, 17, 22, 23, 32, 33, 40, 54, 55, 60, 63])
def test_the_comparison_sort_of_wide_keys_is_numpys_stable_sort(bits):
    """Keys of more than 16 bits with their indices in the low bits sorted at once, in
    32-bit words where both fit (up to 22 bits for 1000 keys), else 64 (up to 54), and the
    radix passes again where they do not fit in 64 bits."""
    rng = np.random.default_rng(bits)
    for size in (63, 64, 1000):
        keys = rng.integers(0, 2**bits, size, dtype=np.int64)
        keys[: size // 3] = keys[size // 3 : 2 * (size // 3)]  # repeats: ties keep their order
        assert stable_argsort(keys).tolist() == np.argsort(keys, kind="stable").tolist()


@pytest.mark.parametrize("bits", [1, 16, 17, 40, 54])
def test_the_packed_sort_and_the_radix_passes_are_numpys_stable_sort_at_any_width(bits):
    """Each way stable_argsort may take gives the same permutation on its own (the packed
    sort below 2^16 too, where stable_argsort takes one pass), and the packed sort refuses
    keys and positions wider than 64 bits."""
    rng = np.random.default_rng(bits)
    for size in (0, 1, 1000):
        keys = rng.integers(0, 2**bits, size, dtype=np.int64)
        keys[: size // 3] = keys[size // 3 : 2 * (size // 3)]  # repeats: ties keep their order
        expected = np.argsort(keys, kind="stable").tolist()
        assert packed_argsort(keys).tolist() == expected
        assert radix_argsort(keys).tolist() == expected
    with pytest.raises(ValueError, match="more than 64"):
        packed_argsort(np.array([2**60, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]))


def test_dense_ranks_are_numpy_unique_s_count_and_inverse():
    """Counted without a sort for integers spanning fewer than n (noisy degrees, with
    negatives), by numpy.unique otherwise (fractions, wide spans, NaN, empty)."""
    rng = np.random.default_rng(4)
    cases = [
        rng.integers(-20, 50, 300).astype(float),
        rng.integers(0, 10**6, 50).astype(float),
        np.round(rng.normal(0.0, 10.0, 200)) + 0.5 * (rng.random(200) < 0.1),
        np.array([3.0, np.nan, 3.0]),
        np.zeros(0),
    ]
    for values in cases:
        count, level = dense_ranks(values)
        distinct, inverse = np.unique(values, return_inverse=True)
        assert count == distinct.size and level.tolist() == inverse.tolist()


@pytest.mark.parametrize("width", [1, 7, 8, 9, 63, 64, 65, 90, 200])
def test_row_ranks_are_numpy_unique_s_count_and_inverse_over_rows(width):
    """Rows of 0/1 (a workload's membership: which side of each query a node is on),
    repeated, at widths around the byte and 64-bit word boundaries."""
    rng = np.random.default_rng(width)
    for density in (0.02, 0.5, 0.98):
        bits = rng.random((40, width)) < density
        bits = bits[rng.integers(0, 40, 300)]
        bits[-1] = bits[-2] = True  # all-ones rows, and all-zero ones
        bits[0] = bits[1] = False
        count, ranks = row_ranks(bits)
        distinct, inverse = np.unique(bits, axis=0, return_inverse=True)
        assert count == len(distinct) and ranks.tolist() == np.ravel(inverse).tolist()
    assert row_ranks(np.zeros((0, width), dtype=bool))[0] == 0


def test_row_ranks_of_rows_without_columns_are_one_empty_row():
    count, ranks = row_ranks(np.zeros((3, 0), dtype=bool))
    distinct, inverse = np.unique(np.zeros((3, 0), dtype=bool), axis=0, return_inverse=True)
    assert (count, ranks.tolist()) == (len(distinct), np.ravel(inverse).tolist()) == (1, [0] * 3)


def test_smallest_is_the_head_of_numpys_stable_argsort_on_every_cpu():
    """The k smallest, ties to the earlier position, in increasing position: what
    argsort(kind="stable")[:k] holds, where argpartition's choice among tied values follows
    the CPU's sorting kernels (the pinned closing swaps differed on an AVX2 machine)."""
    rng = np.random.default_rng(5)
    for values in (rng.integers(0, 4, 200), rng.integers(0, 4, 200).astype(float), np.zeros(9)):
        for k in (-1, 0, 1, 2, 50, 199, 200, 300):
            expected = np.sort(np.argsort(values, kind="stable")[: max(k, 0)])
            assert smallest(values, k).tolist() == expected.tolist()
