"""``groups="private"``: a synthetic release whose groups are bought with a share of its
budget (issue 18) instead of given as public input.

:func:`~privcut.graph.synthetic.synthetic_graph` with ``groups="private"`` (or a
:class:`PrivateGroups`) runs one step before its measurements: :func:`release_communities`
spends ``share * epsilon`` on a private partition -- by default
:func:`~privcut.graph.communities.sweep_communities` (one exponential-mechanism sweep in
noisy-degree order), or ``PrivateGroups(method="super-graph")``'s
:func:`~privcut.graph.communities.private_communities` (PrivGraph's community phases,
**Yuan et al. 2023**) -- and hands the released partition to
the rest of the release as its groups, which then measures the block-pair counts, the
degrees and so on at the remaining epsilon (:func:`~privcut.graph.planning.plan_measurements`;
on the sparse path with the shares of
``SparseGenerator.default_measurements(..., private=True)``). The partition is part of the
release (a private output, not a public input): the report's ``communities``
(:class:`ReleasedCommunities`), the NetworkX node attribute ``"community"``, or
:attr:`~privcut.graph.arrays.SyntheticArray.communities`.

Privacy: (epsilon, 0)-DP under edge-level neighbours (same public node set, one vertex pair
differs). The community step is ``share * epsilon``-DP (the claim of
:func:`~privcut.graph.communities.sweep_communities` or of :func:`private_communities`:
McSherry & Talwar 2007, Ghosh, Roughgarden, Sundararajan 2009, Yuan et al. 2023); the
measurements, given its output, are ``(1 - share) * epsilon``-DP for every fixed partition
(:func:`~privcut.graph.measurement.measure`); the partition is chosen by the first
mechanism's output only, so adaptive basic composition (Dwork and Roth 2014, Thm 3.16)
gives their sum, epsilon. The split of epsilon between the two is exact
(:meth:`PrivateGroups.split`), and the report's spends are checked to add up to it.
Everything else (the plan's split for the rest, fitting, generating, bounding) reads only
the released partition, the measurements, public values and fresh randomness.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privcut.exceptions import PrivacyParameterError
from privcut.graph.communities import (
    PrivateCommunities,
    private_communities,
    sweep_communities,
)
from privcut.graph.planning import COMMUNITY_SHARE
from privcut.graph.universe import EdgeUniverse
from privcut.privacy import Noise, check_epsilon, exact_split
from privcut.privacy.random import RandomState
from privcut.privacy.validation import check_scalar
from privcut.records import Record, Spend

__all__ = [
    "MECHANISMS",
    "PRIVATE",
    "CommunityStep",
    "PrivateGroups",
    "ReleasedCommunities",
    "check_accounting",
    "labels_of",
    "release_communities",
    "resolve_groups",
    "stand_in_groups",
]

PRIVATE = "private"
"""``groups=PRIVATE`` buys the groups with :data:`~privcut.graph.planning.COMMUNITY_SHARE`
of epsilon (:class:`PrivateGroups` with its defaults)."""

MECHANISMS = {
    "sweep": "private communities (one exponential-mechanism sweep, McSherry & Talwar 2007)",
    "super-graph": "private communities (PrivGraph's community phases, Yuan et al. 2023)",
}
"""The community step's name in the release's mechanism, by :attr:`PrivateGroups.method`."""

PREFIX = "communities: "
"""The prefix of the community step's spends in the report's ``measurements``
(``"communities: degrees"``, ``"communities: sweep"``, ``"communities: edge-count"`` by
default; ``"communities: super-graph"`` and ``"communities: adjustment"`` for
``method="super-graph"``)."""


@dataclass(frozen=True)
class PrivateGroups:
    """How ``groups="private"`` buys its partition: pass an instance as ``groups=`` of
    :func:`~privcut.graph.synthetic.synthetic_graph` to choose another share.

    Attributes
    ----------
    share : float
        The fraction of the release's whole epsilon spent on the partition, strictly
        between 0 and 1; default :data:`~privcut.graph.planning.COMMUNITY_SHARE`.
    group_size : int, optional
        ``method="super-graph"`` only: nodes per random group of the super-graph
        (PrivGraph's N1), as for :func:`~privcut.graph.communities.private_communities`
        (its default when None).
    resolution : float, optional
        ``method="super-graph"`` only: Louvain's resolution (> 0, default 1); larger gives
        more, smaller communities.
    method : {"sweep", "super-graph"}
        The partition's mechanism: :func:`~privcut.graph.communities.sweep_communities`
        (default; several times the other's NMI in ``benchmarks/communities.py``) or
        :func:`~privcut.graph.communities.private_communities`.
    labels : int, optional
        ``method="sweep"`` only: the most communities (its ``labels``; default
        :func:`~privcut.graph.communities.sweep_labels` of the partition's epsilon).

    Examples
    --------
    >>> PrivateGroups().share, PrivateGroups().method
    (0.35, 'sweep')
    >>> PrivateGroups(group_size=30)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: group_size applies to method='super-graph' only; pass PrivateGroups(...
    >>> PrivateGroups(share=0.5).split(1.0)
    (0.5, 0.5)
    >>> PrivateGroups(share=1.0)
    Traceback (most recent call last):
    ...
    ValueError: share must be a finite number in (0, 1), got 1.0
    """

    share: float = COMMUNITY_SHARE
    group_size: int | None = None
    resolution: float | None = None
    method: str = "sweep"
    labels: int | None = None

    def __post_init__(self) -> None:
        share = check_scalar(self.share, "share", float, low=0.0, high=1.0, closed="neither")
        object.__setattr__(self, "share", share)
        if not isinstance(self.method, str) or self.method not in MECHANISMS:
            raise ValueError(f"method must be one of {sorted(MECHANISMS)}, got {self.method!r}")
        own = {"sweep": ("labels",), "super-graph": ("group_size", "resolution")}
        for method, names in own.items():
            for name in names:
                if method != self.method and getattr(self, name) is not None:
                    raise ValueError(
                        f"{name} applies to method={method!r} only; pass "
                        f"PrivateGroups(method={method!r}, {name}=...) or drop it"
                    )
        if self.group_size is not None:
            check_scalar(self.group_size, "group_size", int, low=1)
        if self.labels is not None:
            check_scalar(self.labels, "labels", int, low=1)
        if self.resolution is not None:
            resolution = check_scalar(
                self.resolution, "resolution", float, low=0.0, closed="neither"
            )
            object.__setattr__(self, "resolution", resolution)

    def split(self, epsilon: float) -> tuple[float, float]:
        """The partition's epsilon and the rest's, summing to ``epsilon`` exactly
        (:func:`~privcut.privacy.exact_split`). A PrivacyParameterError when epsilon is
        too small to split into two positive parts.

        Examples
        --------
        >>> communities, rest = PrivateGroups().split(0.3)
        >>> communities + rest == 0.3, Fraction(communities) + Fraction(rest) == Fraction(0.3)
        (True, True)
        """
        epsilon = check_epsilon(epsilon)
        communities, rest = exact_split(epsilon, (self.share, 1.0 - self.share))
        if not (communities > 0.0 and rest > 0.0):
            raise PrivacyParameterError(
                f"epsilon {epsilon!r} is too small to split between the private communities "
                f"(share {self.share}) and the rest of the release; give a larger epsilon"
            )
        return communities, rest


@dataclass(frozen=True)
class ReleasedCommunities(Record):
    """The report's part on a partition bought by ``groups="private"`` (``communities`` of
    :class:`~privcut.graph.report.SyntheticRelease`); the partition itself is released
    with the graph (node attribute ``"community"``, or ``SyntheticArray.communities``).

    Attributes
    ----------
    mechanism : str
        How the partition was found (a value of :data:`MECHANISMS`).
    communities : int
        The number of released communities (non-empty).
    share : float
        Its fraction of the release's epsilon.
    epsilon : float
        Its epsilon (its spends, ``"communities: ..."``, in the report's
        ``measurements``).

    Examples
    --------
    >>> ReleasedCommunities(MECHANISMS["sweep"], 3, 0.2, 0.2).to_dict()["communities"]
    3
    """

    mechanism: str
    communities: int
    share: float
    epsilon: float


def resolve_groups(groups: object) -> PrivateGroups | None:
    """The :class:`PrivateGroups` that ``groups`` asks for: ``"private"`` gives the
    defaults, an instance itself; None for anything else (public groups or none). Another
    string is a ValueError naming the choices.

    Examples
    --------
    >>> resolve_groups("private") == PrivateGroups(), resolve_groups({0: "a"})
    (True, None)
    """
    if isinstance(groups, PrivateGroups):
        return groups
    if isinstance(groups, str):
        if groups == PRIVATE:
            return PrivateGroups()
        raise ValueError(
            f"groups must be a public mapping node -> group, {PRIVATE!r} (a partition bought "
            f"with a share of epsilon) or PrivateGroups(share=...), got {groups!r}"
        )
    return None


def stand_in_groups(nodes: Sequence[Hashable]) -> dict[Hashable, int]:
    """Two public stand-in groups (alternate nodes) for checking the plan of the rest of a
    release before any noise is drawn, when its groups are not released yet.

    Examples
    --------
    >>> stand_in_groups("abc")
    {'a': 0, 'b': 1, 'c': 0}
    """
    return {node: index % 2 for index, node in enumerate(nodes)}


def check_accounting(spends: Sequence[Spend], epsilon: float) -> None:
    """The accounting check: the spends' epsilons add up to ``epsilon`` exactly (as
    rationals), else a RuntimeError (a bug, never bad input).

    Examples
    --------
    >>> check_accounting([Spend("a", 0.5, 0.5, "laplace", 2.0, 1.0)], 1.0)
    Traceback (most recent call last):
    ...
    RuntimeError: accounting: the spends add up to 0.5, not the release's epsilon 1.0
    """
    total = sum(Fraction(spend.epsilon) for spend in spends)
    if total != Fraction(epsilon):
        raise RuntimeError(
            f"accounting: the spends add up to {float(total)!r}, not the release's epsilon "
            f"{epsilon!r}"
        )


@dataclass(frozen=True, eq=False)
class CommunityStep:
    """The community step's result inside a release (:func:`release_communities`).

    Attributes
    ----------
    found : PrivateCommunities
        The released partition and its own spends.
    choice : PrivateGroups
        How it was bought.
    epsilon : float
        The whole release's epsilon (the partition's and the rest's).

    Examples
    --------
    >>> import networkx as nx
    >>> step = release_communities(nx.karate_club_graph(), 1.0, PrivateGroups(), rng=0)
    >>> [spend.name for spend in step.spends()]
    ['communities: degrees', 'communities: sweep', 'communities: edge-count']
    >>> step.record().epsilon, step.record().communities == step.found.communities
    (0.35, True)
    """

    found: PrivateCommunities
    choice: PrivateGroups
    epsilon: float

    def groups(self) -> dict[Hashable, int]:
        """The released partition, node -> community (the rest's ``groups``)."""
        return self.found.groups()

    def record(self) -> ReleasedCommunities:
        """The report's part."""
        return ReleasedCommunities(
            MECHANISMS[self.choice.method],
            self.found.communities,
            self.choice.share,
            self.found.epsilon,
        )

    def spends(self) -> tuple[Spend, ...]:
        """The partition's spends as the release's: named ``"communities: ..."``, each
        share a fraction of the whole epsilon."""
        return tuple(
            Spend(
                PREFIX + spend.name,
                spend.epsilon / self.epsilon,
                spend.epsilon,
                spend.noise,
                spend.scale,
                spend.sensitivity,
            )
            for spend in self.found.spends
        )

    def release_spends(self, measured: Sequence[Spend]) -> tuple[Spend, ...]:
        """The whole release's spends: the partition's leading the measurements' (whose
        shares, fractions of the rest, become fractions of the whole; the last share is
        the exact remainder), checked by :func:`check_accounting`."""
        rescaled = [
            Spend(s.name, s.epsilon / self.epsilon, s.epsilon, s.noise, s.scale, s.sensitivity)
            for s in measured
        ]
        spends = [*self.spends(), *rescaled]
        last = spends[-1]
        remainder = float(1 - sum(Fraction(spend.share) for spend in spends[:-1]))
        spends[-1] = Spend(
            last.name, remainder, last.epsilon, last.noise, last.scale, last.sensitivity
        )
        check_accounting(spends, self.epsilon)
        return tuple(spends)

    def sampler_tv(self) -> float:
        """Bound on the community step's integer noise draws' total variation distance
        from exact, per discrete Laplace spend: one draw per node for ``"degrees"``, one for
        ``"edge-count"``, and at most one per unordered pair of the ``super_groups`` public
        random groups for ``"super-graph"`` (the zero-count pairs' survivors are drawn from
        the same tail)."""
        groups = self.found.super_groups
        draws = {
            "degrees": len(self.found.nodes),
            "edge-count": 1,
            "super-graph": groups * (groups + 1) // 2,
        }
        return sum(
            Noise("discrete_laplace", spend.scale).tv_bound(draws[spend.name])
            for spend in self.found.spends
            if spend.noise == "discrete_laplace"
        )


def release_communities(
    G,
    epsilon: float,
    choice: PrivateGroups,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    rng: RandomState = None,
) -> CommunityStep:
    """Buy a release's partition: ``choice.method``'s mechanism
    (:func:`~privcut.graph.communities.sweep_communities` or
    :func:`~privcut.graph.communities.private_communities`) on G at ``choice``'s share of
    ``epsilon`` (the first part of :meth:`PrivateGroups.split`).

    Privacy: ``choice.share * epsilon``-DP under edge-level neighbours (same public node
    set, one vertex pair differs), that mechanism's claim (its proof in its docstring:
    McSherry & Talwar 2007 for the sweep; Yuan et al. 2023 for the super-graph). Its
    spends are checked to add up to that part exactly (a RuntimeError otherwise, a bug).
    Complexity: the mechanism's; O(|E| log |E| + n (K + log n)) for the sweep with K
    labels, O(n K + |E| + g^2) for g = ceil(n / group_size) super-graph groups.

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph or square scipy.sparse adjacency
        The private graph, read as 0/1.
    epsilon : float
        The whole release's epsilon.
    choice : PrivateGroups
        The share and the community options.
    nodes, directed : optional
        A sparse G's public node labels and kind, as for :func:`private_communities`.
    rng : None, int or numpy.random.Generator
        ``None`` (secure randomness) for real releases; seeds are for tests.

    Returns
    -------
    CommunityStep

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.disjoint_union(nx.complete_graph(8), nx.complete_graph(8))
    >>> choice = PrivateGroups(share=0.5, group_size=4, method="super-graph")
    >>> step = release_communities(G, 4.0, choice, rng=0)
    >>> step.found.labels.shape, sum(Fraction(spend.epsilon) for spend in step.spends()) == 2
    ((16,), True)
    """
    if not isinstance(choice, PrivateGroups):
        raise TypeError(f"choice must be a PrivateGroups, got {type(choice).__name__}")
    part = choice.split(epsilon)[0]
    if choice.method == "sweep":
        found = sweep_communities(
            G, part, nodes=nodes, directed=directed, labels=choice.labels, rng=rng
        )
    else:
        found = private_communities(
            G,
            part,
            nodes=nodes,
            directed=directed,
            group_size=choice.group_size,
            resolution=1.0 if choice.resolution is None else choice.resolution,
            rng=rng,
        )
    step = CommunityStep(found, choice, float(epsilon))
    check_accounting(step.spends(), part)
    return step


def labels_of(step: CommunityStep, universe: EdgeUniverse) -> np.ndarray:
    """The released community of every node of ``universe``, in its order (int64): the
    partition's own labels, read on the same public node order (checked: a RuntimeError,
    a bug, otherwise). O(n), no per-node Python step."""
    if step.found.nodes != universe.nodes:
        raise RuntimeError("the released partition's node order is not the release's")
    return step.found.labels
