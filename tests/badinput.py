"""Shared helpers of the bad-input property tests: bad values, odd graphs, and the check that
a call either works or fails with one of privcut's own errors, within a time limit."""

from __future__ import annotations

import inspect
import math
import re
import signal
import traceback
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import privcut

PACKAGE = Path(privcut.__file__).resolve().parent

LIMIT = 5.0
"""Seconds one call may take before it counts as a hang."""

SETTINGS = settings(
    max_examples=15,
    derandomize=True,
    deadline=None,  # the alarm below is the limit, for every call including the first
    database=None,
    suppress_health_check=list(HealthCheck),
)

BAD = [
    None,
    "1",
    "",
    True,
    1 + 1j,
    [1.0],
    (),
    math.nan,
    math.inf,
    -math.inf,
    0,
    0.0,
    -1,
    -1e-300,
    1e300,
    10**400,
    -(10**400),
    1e-300,
    5e-324,
    2**53 + 1,
    np.float64("nan"),
    np.int64(-1),
]
"""Values of the wrong type, out of range, or extreme, for any parameter."""


def graph_of(edges=(), nodes=(), *, directed=False, multi=False) -> nx.Graph:
    cls = {
        (False, False): nx.Graph,
        (True, False): nx.DiGraph,
        (False, True): nx.MultiGraph,
        (True, True): nx.MultiDiGraph,
    }[directed, multi]
    G = cls()
    G.add_nodes_from(nodes)
    G.add_edges_from(edges)
    return G


def _weighted(weight) -> nx.Graph:
    G = nx.path_graph(3)
    G[0][1]["weight"] = weight
    return G


GRAPHS = {
    "empty": lambda: nx.Graph(),
    "one node": lambda: graph_of(nodes=[0]),
    "one node directed": lambda: graph_of(nodes=["a"], directed=True),
    "two nodes": lambda: graph_of([(0, 1)]),
    "two isolated": lambda: graph_of(nodes=[0, 1]),
    "path 5": lambda: nx.path_graph(5),
    "directed path": lambda: nx.path_graph(4, create_using=nx.DiGraph),
    "complete 4": lambda: nx.complete_graph(4),
    "multigraph": lambda: graph_of([(0, 1), (0, 1)], multi=True),
    "self-loop": lambda: graph_of([(0, 1), (1, 1)]),
    "weight 2": lambda: _weighted(2.0),
    "weight -1": lambda: _weighted(-1.0),
    "weight nan": lambda: _weighted(math.nan),
    "weight 0.5": lambda: _weighted(0.5),
    "weight str": lambda: _weighted("x"),
    "tuple labels": lambda: graph_of([((0, 1), (1, 2)), ((1, 2), (2, 3))]),
    "unicode labels": lambda: graph_of([("é", "ß"), ("ß", "日本"), ("日本", "\u2028")]),
    "hash labels": lambda: graph_of([("#a", "%b"), ("%b", "# c")]),
    "mixed labels": lambda: graph_of([(1, "1"), ("1", 2.5), (2.5, (1,))]),
    "not a graph": lambda: [(0, 1)],
    "none": lambda: None,
    "matrix": lambda: np.eye(3),
}
"""Graphs (and non-graphs) by name; built fresh for each call."""


class Hang(BaseException):
    """Raised by the alarm when a call runs past LIMIT seconds."""


def _alarm(signum, frame):
    raise Hang


@contextmanager
def time_limit(seconds: float = LIMIT):
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def raised_by_privcut(error: BaseException) -> bool:
    """Whether the exception's last frame is in privcut's own code (not numpy, networkx...)."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and Path(frames[-1].filename).resolve().is_relative_to(PACKAGE)


def parameter_names(function: Callable) -> list[str]:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return []


def names_one(message: str, names) -> bool:
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", message) for n in names)


ALIASES = {
    "F": ("query matrix", "matrix"),
    "matrix": ("query matrix",),
    "A": ("matrix",),
    "h": ("histogram",),
    "G": ("graph",),
    "H": ("graph",),
    "name": ("bundled graph",),
    "noisy": ("NoisyGraph",),
    "queries": ("query", "queries", "S", "T"),
}
"""How messages may name a parameter besides its name: by what it is (``F`` is the query
matrix, ``h`` the histogram)."""


def check_call(function: Callable, *args, names=(), **kwargs):
    """Call ``function``; pass if it returns, or raises a privcut error, a KeyError from
    privcut naming a missing label, or a ValueError/TypeError raised by privcut whose message
    names one of the parameters (``names`` plus the function's own). Fail on a hang (LIMIT
    seconds) or any other exception. Returns the result, or None after an allowed error."""
    allowed = set(names) | set(parameter_names(function))
    allowed |= {alias for name in list(allowed) for alias in ALIASES.get(name, ())}
    description = f"{getattr(function, '__qualname__', function)}(args={args!r}, kwargs={kwargs!r})"
    try:
        with time_limit():
            result = function(*args, **kwargs)
            if inspect.isgenerator(result):
                result = [item for _, item in zip(range(20), result, strict=False)]
            return result
    except Hang:
        pytest.fail(f"{description} ran for more than {LIMIT} s")
    except privcut.PrivcutError:
        return None
    except KeyError as error:
        message = str(error.args[0]) if error.args else ""
        if not (raised_by_privcut(error) and "not in" in message):
            pytest.fail(f"{description}: KeyError not naming a label: {_trace(error)}")
    except (ValueError, TypeError) as error:
        if not raised_by_privcut(error) or not names_one(str(error), allowed):
            pytest.fail(f"{description}: {_trace(error)} (names checked: {sorted(allowed)})")
    except Exception as error:
        pytest.fail(f"{description}: {_trace(error)}")
    return None


def _trace(error: BaseException) -> str:
    return "".join(traceback.format_exception(error, limit=-4))
