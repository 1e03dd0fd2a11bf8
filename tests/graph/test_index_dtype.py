"""Issue 18 (memory): the release's node ids and edge positions in 4 bytes where they fit
(:func:`~privcut.graph.arrays.index_dtype`), 8 above; either way the same release. The
switch is forced to 64 bits here (as for n or |E| above 2^31) and the releases compared."""

import numpy as np
import pytest

from privcut import synthetic_graph
from privcut.datasets import community_graph
from privcut.graph import arrays, assortativity, pairing, sparse


def _release(groups):
    A, labels = community_graph(1500, 6, 8, seed=3, as_sparse=True)
    options = {}
    if groups is not None:  # the swaps within block pairs
        options["groups"] = dict(enumerate(labels.tolist()))
        options["measurements"] = [
            "edge-count",
            "degrees",
            "degree-sequence",
            "blocks",
            "assortativity",
        ]
    H = synthetic_graph(A, 1.0, method="sparse", rng=5, **options)
    return H.indices.copy(), H.indptr.copy(), H.graph["privcut"]["mechanism"]


@pytest.mark.parametrize("groups", [None, "labels"])
def test_the_release_is_the_same_with_64_bit_indices(monkeypatch, groups):
    narrow = _release(groups)
    wide = lambda high: np.dtype(np.int64)  # noqa: E731
    for module in (assortativity, pairing, sparse):
        monkeypatch.setattr(module, "index_dtype", wide)
    widened = _release(groups)
    assert sparse.SWAPS in narrow[2]
    assert np.array_equal(narrow[0], widened[0]) and np.array_equal(narrow[1], widened[1])
    assert narrow[2] == widened[2]


def test_index_dtype_switches_at_two_to_the_31():
    assert arrays.index_dtype(2**31) == np.int32 and arrays.index_dtype(2**31 + 1) == np.int64
    assert arrays.index_dtype(0) == np.int32
