import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from privcut import PrivacyParameterError
from privcut.graph import planning
from privcut.graph.planning import plan_measurements
from privcut.privacy import Noise

GROUPS = {v: v // 10 for v in range(40)}


@pytest.mark.parametrize("epsilon", [0.1, 0.3, 1.0, 2.0, 7.3])
@pytest.mark.parametrize(
    "measurements",
    ["auto", ["edge-count", "randomized-response"], ["degrees", "blocks", "edge-count"]],
)
def test_shares_sum_to_epsilon_exactly(epsilon, measurements):
    groups = GROUPS if measurements == "auto" or "blocks" in measurements else None
    plan = plan_measurements(range(40), epsilon, measurements, groups=groups)
    assert math.fsum(plan.epsilons) == epsilon
    assert sum(Fraction(e) for e in plan.epsilons) - Fraction(epsilon) <= Fraction(epsilon) * 2**-52
    for name, eps, noise in zip(plan.measurements, plan.epsilons, plan.noise, strict=True):
        assert noise.scale == pytest.approx(planning.SENSITIVITY[name] / eps)
        assert noise.kind == "discrete_laplace"


def test_plan_reads_public_values_only_and_is_deterministic():
    one = plan_measurements(range(1000), 1.0, groups={v: v // 50 for v in range(1000)})
    two = plan_measurements(list(range(1000)), 1.0, groups={v: v // 50 for v in range(1000)})
    assert one.epsilons == two.epsilons and one.measurements == two.measurements
    assert set(one.predicted) == {
        "within-group",
        "between-group",
        "group-vs-rest",
        "bisection",
        "arbitrary-cut",
    }
    blocks = one.noise[one.measurements.index("blocks")]
    assert one.predicted["between-group"] == pytest.approx(blocks.mean_absolute)


def test_degrees_have_sensitivity_two():
    plan = plan_measurements(range(10), 1.0, {"degrees": 0.5, "edge-count": 0.5})
    noise = dict(zip(plan.measurements, plan.noise, strict=True))
    assert noise["degrees"].scale == 4.0 and noise["edge-count"].scale == 2.0


def test_more_weight_on_a_class_moves_budget_to_its_measurement():
    groups = {v: v // 50 for v in range(1000)}
    group_heavy = plan_measurements(
        range(1000),
        1.0,
        groups=groups,
        workload={"between-group": 4, "bisection": 1, "arbitrary-cut": 1},
    )
    cut_heavy = plan_measurements(
        range(1000),
        1.0,
        groups=groups,
        workload={"between-group": 1, "bisection": 1, "arbitrary-cut": 4},
    )
    share = lambda plan, name: plan.epsilons[plan.measurements.index(name)]  # noqa: E731
    assert share(group_heavy, "blocks") > share(cut_heavy, "blocks")
    assert share(group_heavy, "randomized-response") < share(cut_heavy, "randomized-response")


def test_split_beats_other_splits_on_its_objective():
    """The chosen split's weighted log error is at most that of any split on a grid."""
    groups = {v: v // 50 for v in range(1000)}
    plan = plan_measurements(
        range(1000), 1.0, ["edge-count", "blocks", "randomized-response"], groups=groups
    )
    shape = planning._Shape(1000, False, True, tuple([50] * 20))
    names = ("edge-count", "blocks", "randomized-response")
    shares = dict.fromkeys(names, 1e-12) | {
        n: e for n, e in zip(plan.measurements, plan.epsilons, strict=True)
    }
    chosen = planning._objective(
        np.log([shares[n] for n in names]), names, plan.workload, 1.0, shape
    )
    for a, b in itertools.product(np.linspace(0.05, 0.9, 18), repeat=2):
        if a + b < 0.99:
            other = planning._objective(np.log([a, b, 1 - a - b]), names, plan.workload, 1.0, shape)
            assert chosen <= other + 1e-6


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"measurements": ["blocks"]}, ValueError, "needs groups"),
        ({"measurements": ["edge-count"], "groups": GROUPS}, ValueError, "add it to measurements"),
        ({"measurements": ["edges"]}, ValueError, "measurement must be one of"),
        ({"measurements": []}, ValueError, "at least one"),
        ({"measurements": ["degrees", "degrees"]}, ValueError, r"repeat a name; \['degrees'\]"),
        ({"measurements": "blocks"}, ValueError, "'auto' or a list"),
        ({"measurements": {"edge-count": 0.5, "randomized-response": 0.6}}, ValueError, "sum to 1"),
        ({"workload": {"cliques": 1.0}}, ValueError, "workload class must be one of"),
        ({"workload": {"within-group": 1.0}}, ValueError, "not answered"),
        ({"workload": {"bisection": -1.0}}, ValueError, ">= 0"),
        ({"workload": {"bisection": 0.0}}, ValueError, "positive weight"),
        ({"workload": [("bisection", 1.0)]}, TypeError, "mapping"),
    ],
)
def test_bad_plans_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        plan_measurements(range(40), 1.0, **kwargs)


def test_mean_absolute_matches_sampling():
    rng = np.random.default_rng(0)
    for noise in (
        Noise("discrete_laplace", 0.7),
        Noise("laplace", 2.0),
        Noise("gaussian", 1.5),
        Noise("discrete_gaussian", 2.0),
    ):
        draws = noise.sample(200_000, rng=rng)
        assert np.mean(np.abs(draws)) == pytest.approx(noise.mean_absolute, rel=0.02)


@pytest.mark.parametrize(
    "others",
    [
        ["filtered-randomized-response"],
        ["assortativity"],
        ["filtered-randomized-response", "assortativity"],
    ],
)
def test_the_degree_sequence_as_the_only_counting_measurement_keeps_the_others(others):
    """With no measurement the workload rule can price, the degree sequence takes what the
    others' fixed shares leave, and the others stay what was asked (the second name of
    ``["degree-sequence", "assortativity"]`` was once replaced by filtered randomized
    response)."""
    plan = plan_measurements(range(40), 1.0, ["degree-sequence", *others])
    assert plan.measurements == ("degree-sequence", *others)
    shares = dict(zip(plan.measurements, plan.epsilons, strict=True))
    fixed = math.fsum(planning.FIXED_SHARES[name] for name in others)
    assert shares["degree-sequence"] == pytest.approx(1.0 - fixed)
    assert math.fsum(plan.epsilons) == 1.0


@pytest.mark.parametrize("epsilon", [1e-150, 1e-200, 5e-324])
@pytest.mark.parametrize("weight", [None, "weight"])
@pytest.mark.parametrize("measurements", ["auto", ["edge-count", "degrees", "clustering"]])
def test_sweep37_f1_a_tiny_epsilon_is_refused_before_the_split(epsilon, weight, measurements):
    """Sweep 37 F1: the split search's predicted errors left float64's range (a
    ZeroDivisionError in laplace_moments) before the cap on the noise scale was checked."""
    if weight is not None and measurements != "auto":
        measurements = ["edge-count", "degrees"]
    with pytest.raises(PrivacyParameterError, match=r"epsilon too small.*raise epsilon"):
        plan_measurements(range(40), epsilon, measurements, weight=weight)


@pytest.mark.parametrize(
    ("measurements", "needed"),
    [(["clustering"], "'degrees'"), (["assortativity"], "'degree-sequence'")],
)
def test_sweep37_f2_a_dependency_alone_names_what_to_add(measurements, needed):
    """Sweep 37 F2: alone, 'clustering' or 'assortativity' divided by zero in the planner
    before the check that names the measurement to add."""
    with pytest.raises(ValueError, match=f"add {needed} to measurements"):
        plan_measurements(range(40), 1.0, measurements)


def test_sweep37_f2_measurements_may_be_an_iterator():
    plan = plan_measurements(range(40), 1.0, iter(["edge-count", "degrees"]))
    assert plan.measurements == ("edge-count", "degrees")
