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

Without ``groups``, ``measurements="auto"`` on the sparse path of an undirected 0/1 graph
decides whether to buy them (:func:`decide_groups`: the sweep's noisy edge count drawn
first, bought when ``epsilon * 2 m~ / n >=``
:data:`~privcut.graph.planning.AUTO_GROUPS_THRESHOLD`; the count is reused by the sweep
when bought, charged as :data:`DECISION` when not); ``groups=NO_GROUPS`` opts out.

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

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from privcut.exceptions import PrivacyParameterError
from privcut.graph.communities import (
    PrivateCommunities,
    SweepMechanism,
    private_communities,
    read_graph,
    sweep_communities,
)
from privcut.graph.planning import AUTO_GROUPS_THRESHOLD, COMMUNITY_SHARE
from privcut.graph.universe import EdgeUniverse
from privcut.privacy import Noise, check_epsilon, exact_split
from privcut.privacy.random import RandomState, check_random_state
from privcut.privacy.validation import check_scalar
from privcut.records import Record, Spend

__all__ = [
    "DECISION",
    "MECHANISMS",
    "NO_GROUPS",
    "PRIVATE",
    "CommunityStep",
    "DecisionStep",
    "GroupsDecision",
    "PrivateGroups",
    "ReleasedCommunities",
    "check_accounting",
    "decide_groups",
    "decision_budget",
    "labels_of",
    "leading_spends",
    "release_communities",
    "resolve_groups",
]

PRIVATE = "private"
"""``groups=PRIVATE`` buys the groups with :data:`~privcut.graph.planning.COMMUNITY_SHARE`
of epsilon (:class:`PrivateGroups` with its defaults)."""

NO_GROUPS = "none"
"""``groups=NO_GROUPS`` never buys groups: a release without groups and without
``measurements="auto"``'s decision (:func:`decide_groups`) and its spend."""

DECISION = "decision: edge-count"
"""The name of the decision's spend in the report's ``measurements`` when it decided not
to buy communities (when it bought them, its count is the partition's
``"communities: edge-count"``)."""

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
    defaults, an instance itself; None for anything else (public groups, none, or
    :data:`NO_GROUPS`). Another string is a ValueError naming the choices.

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
        if groups == NO_GROUPS:
            return None
        raise ValueError(
            f"groups must be a public mapping node -> group, {PRIVATE!r} (a partition bought "
            f"with a share of epsilon), PrivateGroups(share=...) or {NO_GROUPS!r} (none, "
            f"never bought), got {groups!r}"
        )
    return None


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
        return leading_spends(self.spends(), measured, self.epsilon)

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


def leading_spends(
    leading: Sequence[Spend], measured: Sequence[Spend], epsilon: float
) -> tuple[Spend, ...]:
    """A whole release's spends: ``leading`` (fractions of the whole ``epsilon`` already)
    followed by ``measured``, whose shares, fractions of the rest, become fractions of the
    whole (the last share is the exact remainder), checked by :func:`check_accounting`.

    Examples
    --------
    >>> first = Spend("first", 0.25, 0.25, "discrete_laplace", 4.0, 1.0)
    >>> rest = Spend("rest", 1.0, 0.75, "discrete_laplace", 4.0 / 3.0, 1.0)
    >>> [spend.share for spend in leading_spends([first], [rest], 1.0)]
    [0.25, 0.75]
    """
    rescaled = [
        Spend(s.name, s.epsilon / epsilon, s.epsilon, s.noise, s.scale, s.sensitivity)
        for s in measured
    ]
    spends = [*leading, *rescaled]
    last = spends[-1]
    remainder = float(1 - sum(Fraction(spend.share) for spend in spends[:-1]))
    spends[-1] = Spend(last.name, remainder, last.epsilon, last.noise, last.scale, last.sensitivity)
    check_accounting(spends, epsilon)
    return tuple(spends)


def release_communities(
    G,
    epsilon: float,
    choice: PrivateGroups,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    rng: RandomState = None,
    noisy_edges: int | None = None,
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
    noisy_edges : int, optional
        ``method="sweep"`` only: the sweep's noisy edge count when already drawn with its
        law (by :func:`decide_groups`; see
        :func:`~privcut.graph.communities.sweep_communities`); its spend stays the
        partition's ``"communities: edge-count"``.

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
    if noisy_edges is not None and choice.method != "sweep":
        raise ValueError("noisy_edges is the sweep's edge count: use it with method='sweep'")
    part = choice.split(epsilon)[0]
    if choice.method == "sweep":
        found = sweep_communities(
            G,
            part,
            nodes=nodes,
            directed=directed,
            labels=choice.labels,
            rng=rng,
            noisy_edges=noisy_edges,
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


def decision_budget(epsilon: float) -> tuple[float, float, float]:
    """The public budget of ``measurements="auto"``'s decision (:func:`decide_groups`):
    ``(count, charged, rest)``. ``count`` is the epsilon its noisy edge count is drawn at,
    the sweep's own edge-count epsilon under ``groups="private"``
    (``SweepMechanism().parts(PrivateGroups().split(epsilon)[0])[1]``, 0.0175 of
    epsilon), so that a decision to buy hands the sweep its count and costs nothing extra;
    ``charged`` is what the report charges the count when the decision is not to buy:
    ``count`` rounded up to a multiple of ``math.ulp(epsilon)`` (at most one ulp more; an
    epsilon-DP mechanism is epsilon'-DP for every epsilon' >= epsilon), so that ``rest =
    epsilon - charged``, the release's epsilon then, is a float exactly.

    Examples
    --------
    >>> count, charged, rest = decision_budget(1.0)
    >>> round(count, 6), 0 <= charged - count <= math.ulp(1.0)
    (0.0175, True)
    >>> Fraction(charged) + Fraction(rest) == 1
    True
    """
    return _decision_budget(check_epsilon(epsilon))


@lru_cache(maxsize=64)
def _decision_budget(epsilon: float) -> tuple[float, float, float]:
    """:func:`decision_budget` of a checked epsilon, computed once per value (a release
    asks for it up to five times; exact rational arithmetic)."""
    count = SweepMechanism().parts(PrivateGroups().split(epsilon)[0])[1]
    quantum = Fraction(math.ulp(epsilon))
    charged = math.ceil(Fraction(count) / quantum) * quantum
    return count, float(charged), float(Fraction(epsilon) - charged)


@dataclass(frozen=True)
class GroupsDecision(Record):
    """The report's part on ``measurements="auto"``'s decision to buy private communities
    (``groups_decision`` of :class:`~privcut.graph.report.SyntheticRelease`), all of it a
    function of the noisy edge count and public values.

    Attributes
    ----------
    rule : str
        The rule, in words.
    statistic : float
        ``epsilon * 2 m~ / n``: the release's epsilon times the noisy average degree.
    threshold : float
        The rule's threshold (:data:`~privcut.graph.planning.AUTO_GROUPS_THRESHOLD`).
    bought : bool
        Whether communities were bought (``statistic >= threshold``).
    epsilon : float
        The noisy edge count's epsilon: when bought, the partition's
        ``"communities: edge-count"``; otherwise :data:`DECISION`'s.

    Examples
    --------
    >>> GroupsDecision("rule", 14.0, 12.0, True, 0.0175).to_dict()["bought"]
    True
    """

    rule: str
    statistic: float
    threshold: float
    bought: bool
    epsilon: float


@dataclass(frozen=True, eq=False)
class DecisionStep:
    """The decision's result inside a release (:func:`decide_groups`).

    Attributes
    ----------
    noisy_edges : int
        The noisy edge count (at least 1), drawn at ``decision_budget(epsilon)[0]``.
    n : int
        The public node count.
    epsilon : float
        The whole release's epsilon.
    threshold : float
        The rule's threshold.

    Examples
    --------
    >>> step = DecisionStep(300, 50, 1.0, 12.0)
    >>> step.statistic, step.bought, step.choice() == PrivateGroups()
    (12.0, True, True)
    >>> step = DecisionStep(250, 50, 1.0, 12.0)
    >>> step.bought, step.spend().name, round(step.spend().share, 6), round(step.rest(), 6)
    (False, 'decision: edge-count', 0.0175, 0.9825)
    """

    noisy_edges: int
    n: int
    epsilon: float
    threshold: float = AUTO_GROUPS_THRESHOLD

    @property
    def statistic(self) -> float:
        """``epsilon * 2 m~ / n``."""
        return self.epsilon * 2.0 * self.noisy_edges / self.n

    @property
    def bought(self) -> bool:
        """The decision: ``statistic >= threshold``."""
        return self.statistic >= self.threshold

    def choice(self) -> PrivateGroups | None:
        """``PrivateGroups()`` (the defaults of ``groups="private"``) when bought, else
        None."""
        return PrivateGroups() if self.bought else None

    def rest(self) -> float:
        """The release's epsilon after the decision when not bought
        (:func:`decision_budget`)."""
        return decision_budget(self.epsilon)[2]

    def record(self) -> GroupsDecision:
        """The report's part."""
        count, charged, _ = decision_budget(self.epsilon)
        rule = (
            "private communities (groups='private') bought when epsilon * 2 m~ / n >= "
            f"{self.threshold:g} (m~: the sweep's noisy edge count, drawn first)"
        )
        return GroupsDecision(
            rule, self.statistic, self.threshold, self.bought, count if self.bought else charged
        )

    def spend(self) -> Spend:
        """The noisy edge count's spend when not bought: :data:`DECISION`, charged
        ``decision_budget(epsilon)[1]``; its scale is the draw's (discrete Laplace,
        sensitivity 1)."""
        count, charged, _ = decision_budget(self.epsilon)
        noise = Noise.for_laplace(count, 1.0, integer=True)
        return Spend(DECISION, charged / self.epsilon, charged, noise.kind, noise.scale, 1.0)

    def release_spends(self, measured: Sequence[Spend]) -> tuple[Spend, ...]:
        """The whole release's spends when not bought: the decision's leading the
        measurements' (made at :meth:`rest`; their shares, fractions of it, become
        fractions of the whole, the last the exact remainder), checked by
        :func:`check_accounting`."""
        return leading_spends((self.spend(),), measured, self.epsilon)

    def sampler_tv(self) -> float:
        """Bound on the one discrete Laplace draw's total variation distance from exact
        (when not bought; when bought it is the partition's, counted there)."""
        return Noise("discrete_laplace", self.spend().scale).tv_bound(1)


def decide_groups(
    G,
    epsilon: float,
    *,
    nodes: Sequence[Hashable] | None = None,
    directed: bool | None = None,
    threshold: float = AUTO_GROUPS_THRESHOLD,
    rng: RandomState = None,
) -> DecisionStep:
    """``measurements="auto"``'s decision to buy private communities on an undirected 0/1
    graph without public groups: draw the noisy edge count ``m~`` (discrete Laplace,
    sensitivity 1, at ``decision_budget(epsilon)[0]``, 0.0175 of epsilon: the law of the
    sweep's own edge count under ``groups="private"``,
    :meth:`~privcut.graph.communities.SweepMechanism.edge_count`) and buy when ``epsilon
    * 2 m~ / n >= threshold`` (default
    :data:`~privcut.graph.planning.AUTO_GROUPS_THRESHOLD`, 12, measured there).

    Privacy: ``decision_budget(epsilon)[0]``-DP under edge-level neighbours (same public
    node set, one vertex pair differs, which moves the edge count by 1): the discrete
    Laplace mechanism (Ghosh, Roughgarden, Sundararajan 2009); the decision is
    post-processing of it and public values (Dwork and Roth 2014, Prop. 2.1), so it may be
    released, and everything chosen from it afterwards composes adaptively (Thm 3.16).
    When bought, the count is the partition's step 2 (handed to
    :func:`~privcut.graph.communities.sweep_communities` as ``noisy_edges``, not drawn
    again): the release's spends are those of ``groups="private"``, nothing extra; when
    not, the release charges it ``decision_budget(epsilon)[1]`` and runs at the rest.
    Complexity: O(n + |E|) to read G.

    Parameters
    ----------
    G : networkx.Graph or square symmetric scipy.sparse adjacency
        The private graph, read as 0/1.
    epsilon : float
        The whole release's epsilon (public).
    nodes, directed : optional
        A sparse G's public node labels and kind, as for
        :func:`~privcut.graph.communities.sweep_communities`; directed graphs are refused.
    threshold : float
        The rule's threshold, > 0.
    rng : None, int or numpy.random.Generator
        ``None`` (secure randomness) for real releases; seeds are for tests.

    Returns
    -------
    DecisionStep

    Examples
    --------
    >>> import networkx as nx
    >>> decide_groups(nx.complete_graph(30), 1.0, rng=0).bought  # 2 m / n = 29
    True
    >>> decide_groups(nx.path_graph(30), 1.0, rng=0).bought  # about 2
    False
    """
    epsilon = check_epsilon(epsilon)
    threshold = check_scalar(threshold, "threshold", float, low=0.0, closed="neither")
    universe, adjacency = read_graph(G, "decide_groups", nodes, directed)
    if universe.directed:
        raise ValueError(
            "decide_groups decides for undirected graphs only (directed releases never buy "
            "communities automatically): pass an undirected graph, or groups='private'"
        )
    part = PrivateGroups().split(epsilon)[0]
    noisy = SweepMechanism().edge_count(adjacency.nnz // 2, part, check_random_state(rng))
    return DecisionStep(noisy, universe.n, epsilon, threshold)
