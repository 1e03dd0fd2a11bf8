"""The report step: a synthetic graph's typed release, :class:`SyntheticRelease`, whose
:meth:`~privcut.records.Record.to_dict` is ``H.graph["privcut"]`` and the command line's
JSON (one schema for both). It holds public inputs and functions of the noisy
measurements only: no timings, no exact counts.
"""

from __future__ import annotations

from dataclasses import dataclass

from privcut.graph.generation import Generated
from privcut.graph.measurement import Measurements
from privcut.graph.private_groups import (
    CommunityStep,
    DecisionStep,
    GroupsDecision,
    ReleasedCommunities,
    check_accounting,
)
from privcut.privacy import effective_delta
from privcut.records import Bound, Record, SolverSummary, Spend

__all__ = ["SyntheticRelease"]


@dataclass(frozen=True)
class SyntheticRelease(Record):
    """The report of :func:`~privcut.graph.synthetic.synthetic_graph` and
    :func:`~privcut.graph.synthetic.synthetic_from_noisy`.

    Attributes
    ----------
    mechanism : str
        The measurements and the generator, with the results they rest on.
    method : str
        The generator (``"dense"``).
    epsilon, delta : float
        The guarantee: (epsilon, 0)-DP under edge-level neighbours.
    sampler_tv : float
        Bound on the integer noise draws' total variation distance from exact.
    effective_delta : float
        ``delta + (1 + e**epsilon) sampler_tv``, as for :class:`~privcut.linear.LinearRelease`.
    beta : float
        Failure probability of each bound.
    weight : str or None
        How G was read: None as a 0/1 graph (integer noise), an edge attribute name as
        weights in [0, 1] (grid noise).
    oracle : str or None
        The cut oracle (None without randomized response).
    rounding : str or None
        ``"random"`` (a 0/1 graph) or None (weighted).
    tau : float or None
        The constraint level used (None without randomized response).
    solver : SolverSummary
        The projection's last violation (``objective``), iterations, cuts, convergence.
    certified_distance, noise_bound : float or None
        Randomized response's bound terms: certified ``||x - z||_C`` and the noise's
        uniform bound (GRU12 §6.1).
    rounding_bound : float or None
        Bernstein's bound for the rounding (GRU12 Remark 6.3; 0 without rounding).
    cut_error_bound : float
        The bound on every cut's error (the ``"arbitrary-cut"`` one).
    trivial_bound : float
        The bound every cut satisfies from the release's public facts (twice, for a
        Graph, the larger of the released and the noisy upper edge count); every other
        bound is clipped to it.
    measurements : tuple of Spend
        Each measurement's name, share, epsilon, noise, scale and sensitivity; with
        ``groups="private"`` led by the partition's (``"communities: degrees"``,
        ``"communities: sweep"``, ``"communities: edge-count"`` by default). Their epsilons add
        up to ``epsilon`` (checked on creation: a RuntimeError otherwise).
    dropped_measurements : tuple of str
        Requested measurements whose share came out too small to take.
    workload : dict
        Workload class -> weight the split was chosen for.
    predicted_errors : dict
        Workload class -> predicted mean absolute error (data-independent).
    workload_bounds : dict
        Workload class -> :class:`~privcut.records.Bound` (bound and its source).
    edge_count : float
        The released graph's edge count (weight sum when weighted).
    communities : ReleasedCommunities or None
        With ``groups="private"``: the released partition's count, share and epsilon (the
        partition itself is the node attribute ``"community"``, or
        ``SyntheticArray.communities``); None otherwise.
    groups_decision : GroupsDecision or None
        With ``measurements="auto"`` on the sparse path of an undirected 0/1 graph without
        groups: the decision to buy private communities or not, its statistic, threshold
        and epsilon (:func:`~privcut.graph.private_groups.decide_groups`); when not bought
        its spend, ``"decision: edge-count"``, leads ``measurements``. None otherwise.

    ``oracle``, ``rounding``, ``tau``, ``certified_distance``, ``noise_bound`` and
    ``rounding_bound`` are the generator's own terms
    (:attr:`~privcut.graph.generation.Generated.terms`), None for a generator without
    such a term.

    Examples
    --------
    >>> import networkx as nx
    >>> from privcut.graph.synthetic import synthetic_graph
    >>> report = synthetic_graph(nx.path_graph(8), 1.0, rng=0).graph["privcut"]
    >>> list(report)[:4], report["solver"]["converged"] in (True, False)
    (['mechanism', 'method', 'epsilon', 'delta'], True)
    """

    mechanism: str
    method: str
    epsilon: float
    delta: float
    sampler_tv: float
    effective_delta: float
    beta: float
    weight: str | None
    oracle: str | None
    rounding: str | None
    tau: float | None
    solver: SolverSummary
    certified_distance: float | None
    noise_bound: float | None
    rounding_bound: float | None
    cut_error_bound: float
    trivial_bound: float
    measurements: tuple[Spend, ...]
    dropped_measurements: tuple[str, ...]
    workload: dict
    predicted_errors: dict
    workload_bounds: dict[str, Bound]
    edge_count: float
    communities: ReleasedCommunities | None = None
    groups_decision: GroupsDecision | None = None

    def __post_init__(self) -> None:
        """The accounting check: the spends add up to epsilon."""
        check_accounting(self.measurements, self.epsilon)

    @classmethod
    def of(
        cls,
        measured: Measurements,
        generated: Generated,
        bounds: tuple[dict[str, Bound], Bound],
        *,
        method: str,
        beta: float,
        note: str = "",
        communities: CommunityStep | None = None,
        decision: DecisionStep | None = None,
    ) -> SyntheticRelease:
        """The report of a release from its steps' results (all public or noisy): the
        generator's ``method`` name, the release's ``beta``, a ``note`` on how the
        generator was chosen (appended to the mechanism), and with ``groups="private"`` the
        community step (its spends lead, epsilon is the whole release's); with
        ``measurements="auto"``'s ``decision`` not to buy communities, its spend leads."""
        plan, terms = measured.plan, generated.terms
        workload_bounds, trivial = bounds
        steps = " + ".join((*plan.measurements, generated.mechanism))
        epsilon, spends, sampler_tv = plan.epsilon, measured.spends(), measured.sampler_tv
        if communities is not None:
            steps = f"{communities.record().mechanism} + {steps}"
            epsilon, spends = communities.epsilon, communities.release_spends(spends)
            sampler_tv += communities.sampler_tv()
        elif decision is not None:
            steps = f"private communities decision (noisy edge count, not bought) + {steps}"
            epsilon, spends = decision.epsilon, decision.release_spends(spends)
            sampler_tv += decision.sampler_tv()
        return cls(
            mechanism=f"synthetic_graph: {steps}{note}",
            method=method,
            epsilon=epsilon,
            delta=0.0,
            sampler_tv=sampler_tv,
            effective_delta=effective_delta(epsilon, 0.0, sampler_tv),
            beta=beta,
            weight=plan.weight,
            oracle=terms.get("oracle"),
            rounding=terms.get("rounding"),
            tau=terms.get("tau"),
            solver=generated.solver,
            certified_distance=terms.get("certified_distance"),
            noise_bound=terms.get("noise_bound"),
            rounding_bound=terms.get("rounding_bound"),
            cut_error_bound=workload_bounds["arbitrary-cut"].bound,
            trivial_bound=trivial.bound,
            measurements=spends,
            dropped_measurements=tuple(plan.dropped),
            workload=dict(plan.workload),
            predicted_errors=dict(plan.predicted),
            workload_bounds=workload_bounds,
            edge_count=generated.edge_count,
            communities=None if communities is None else communities.record(),
            groups_decision=None if decision is None else decision.record(),
        )
