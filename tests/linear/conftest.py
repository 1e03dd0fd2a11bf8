import numpy as np
import pytest


@pytest.fixture
def neighbours():
    """A count histogram and the one with an element added to coordinate 1."""
    h = np.array([3, 1, 2, 0, 5])
    return h, h + np.eye(5, dtype=int)[1]
