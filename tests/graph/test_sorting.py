"""The radix sorts behind the sparse generator and the clustering measurement (issue 18,
speed): the same permutation as NumPy's stable sort, for every key width."""

import numpy as np
import pytest

from privcut.graph.sorting import sorted_keys, stable_argsort


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.intp])
@pytest.mark.parametrize("bits", [1, 16, 17, 33, 63])
def test_stable_argsort_is_numpys_stable_argsort(dtype, bits):
    rng = np.random.default_rng(bits)
    for size in (0, 1, 2, 500):
        keys = rng.integers(0, 2**bits, size).astype(dtype)
        keys[: size // 3] = keys[size // 3 : 2 * (size // 3)]  # repeats: ties keep their order
        assert stable_argsort(keys).tolist() == np.argsort(keys, kind="stable").tolist()
        assert sorted_keys(keys).tolist() == np.sort(keys).tolist()
