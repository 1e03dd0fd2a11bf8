"""Wall-clock timings of releases, logged and never released: the time reading G takes
grows with its edge count, so it stays out of every report."""

from __future__ import annotations

import logging

__all__ = ["LOGGER", "log_timings"]

LOGGER = logging.getLogger("privcut")
"""Timings go here (DEBUG), never into a release."""


def log_timings(name: str, seconds: float, timings: dict[str, float]) -> None:
    """Log a release's wall-clock time and its split at DEBUG level on the ``privcut``
    logger (``extra``: ``seconds``, ``timings``), never into the release: the time reading
    G takes grows with its edge count.

    Examples
    --------
    >>> log_timings("synthetic_graph", 0.5, {"noise": 0.1})  # silent unless DEBUG is on
    """
    split = ", ".join(f"{step} {value:.3f} s" for step, value in timings.items())
    LOGGER.debug(
        "%s: %.3f s (%s)",
        name,
        seconds,
        split,
        extra={"seconds": seconds, "timings": dict(timings)},
    )
