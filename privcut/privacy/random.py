"""Sources of randomness.

A real release must draw its noise from a cryptographically secure source;
seeded generators exist only to make tests and experiments reproducible.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["RandomState", "check_random_state", "secure_generator"]

RandomState = None | int | np.integer | np.random.Generator
"""What every ``rng`` argument in privcut accepts."""


def secure_generator() -> np.random.Generator:
    """Return a NumPy generator whose stream is cryptographically secure.

    The bit generator is AES-128 in counter mode (``randomgen.AESCounter``,
    hardware AES where the CPU has it), keyed with 128 bits from the operating
    system's secure entropy source (``os.urandom``). Unlike NumPy's default
    PCG64, its output cannot be predicted from earlier output, so noise drawn
    from it does not leak the data it protects.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> 0.0 <= float(secure_generator().random()) < 1.0
    True
    """
    from randomgen import AESCounter

    key = int.from_bytes(os.urandom(16), "little")
    return np.random.Generator(AESCounter(key=key))


def check_random_state(rng: RandomState) -> np.random.Generator:
    """Turn an ``rng`` argument into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        ``None`` (what a real release should use) gives a fresh
        :func:`secure_generator`. An ``int`` seeds NumPy's default generator
        and a ``Generator`` is used as is: both are reproducible and are for
        tests and experiments only, since a seeded stream is predictable.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        If ``rng`` is of another type (a bool, a float, a legacy ``RandomState``).
    ValueError
        If ``rng`` is a negative integer.

    Examples
    --------
    >>> int(check_random_state(0).integers(10)) == int(check_random_state(0).integers(10))
    True
    """
    if rng is None:
        return secure_generator()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"rng seed must be a non-negative integer, got {rng}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"rng must be None (secure randomness, for real releases), an int seed or a "
        f"numpy.random.Generator (reproducible, for tests), got {type(rng).__name__}"
    )
