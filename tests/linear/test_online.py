import math
import warnings

import numpy as np
import pytest

from privcut.audit import audit
from privcut.linear import OnlineRelease, OracleExhaustedWarning, SamplerReserveWarning, calibrate
from privcut.linear.online import (
    BETA_SPLITS,
    SparseVector,
    check_alpha,
    check_sparse_vector,
    frieze_kannan_bound,
)
from privcut.privacy.calibration import zcdp_budget, zcdp_delta
from privcut.privacy.noise import float_sum_error
from tests.auditing import ExactComparison, float_sampler_slack, record_sampler_tv


def fk_bound(alpha):
    return math.ceil(1e4 * 19900 * 4 / alpha**2)


@pytest.mark.filterwarnings("ignore::privcut.linear.SamplerReserveWarning")  # k >= 2,968
def test_tight_calibration_is_far_below_the_papers():
    tight = calibrate(fk_bound, 1.0, 1e-6, max_queries=5000, sensitivity=2.0, scale=1e4)
    paper = calibrate(fk_bound, 1.0, 1e-6, max_queries=5000, sensitivity=2.0, calibration="paper")
    assert tight.alpha * 50 < paper.alpha
    # Thm 4.9's promise and its condition T in [4 alpha / 3, 2 alpha]
    assert paper.alpha == pytest.approx(1.25 * paper.threshold)
    assert 4 * paper.alpha_idc / 3 <= paper.threshold <= 2 * paper.alpha_idc


def _sparse_vector_rho(c, sensitivity):
    """The zCDP of a sparse-vector calibration's B instances and answers, from its noise."""
    round_epsilon = sensitivity / c.threshold_noise.scale + 2 * sensitivity / c.comparison.scale
    return c.max_updates * (round_epsilon**2 / 2 + sensitivity**2 / (2 * c.answer.scale**2))


@pytest.mark.filterwarnings("ignore::privcut.linear.SamplerReserveWarning")  # k >= 2,968
@pytest.mark.parametrize(("delta", "k"), [(0.0, 5000), (1e-6, 5000), (1e-6, 10**6)])
def test_tight_calibration_spends_exactly_its_budget_and_keeps_its_promise(delta, k):
    epsilon, sensitivity, beta = 1.0, 2.0, 0.05
    c = calibrate(fk_bound, epsilon, delta, max_queries=k, sensitivity=sensitivity, scale=1e4)
    if c.answer is None:  # composed: k discrete Gaussian comparisons, zCDP composition
        assert delta > 0 and k == 5000 and c.threshold_noise is None and c.composed
        assert c.max_updates == k  # no update is paid for: every query may update
        rho = k * sensitivity**2 / (2 * c.comparison.scale**2)
        assert rho <= zcdp_budget(epsilon, delta) * (1 + 1e-12)
        assert zcdp_delta(rho, epsilon) <= delta * (1 + 1e-9)
        grid = c.comparison.on_grid(sensitivity)  # fractional queries' noise
        eta = max(c.comparison.max_error(k, beta), grid.max_error(k, beta))
        assert eta < c.alpha_idc and c.threshold == c.alpha_idc + eta
        assert c.alpha == c.threshold + eta
        return
    assert c.max_updates == fk_bound(c.alpha_idc) and not c.composed
    assert k == 10**6 or delta == 0.0  # many queries: the sparse vector wins
    if delta == 0.0:
        round_epsilon = sensitivity / c.threshold_noise.scale + 2 * sensitivity / c.comparison.scale
        answer_epsilon = sensitivity / c.answer.scale
        assert c.max_updates * (round_epsilon + answer_epsilon) <= epsilon * (1 + 1e-12)
    else:
        rho = _sparse_vector_rho(c, sensitivity)
        assert rho <= zcdp_budget(epsilon, delta) * (1 + 1e-12)
        assert zcdp_delta(rho, epsilon) <= delta * (1 + 1e-9)
    # some split of beta (summing to beta) gives the promise: threshold draws two-sided,
    # comparisons one-sided (max_error at twice their share), answers below alpha_idc
    promises = []
    for split in BETA_SPLITS:
        assert sum(split) == pytest.approx(1.0)
        b_threshold, b_comparison, b_answer = (beta * part for part in split)
        eta = c.threshold_noise.max_error(c.max_updates, b_threshold) + c.comparison.max_error(
            k, 2 * b_comparison
        )
        if c.answer.max_error(c.max_updates, b_answer) < c.alpha_idc:
            promises.append((c.alpha_idc + eta + 0.5, c.alpha_idc + 2 * eta + 1))
    assert (c.threshold, c.alpha) in [pytest.approx(p) for p in promises]


def test_the_composed_calibration_wins_at_moderate_query_counts_and_is_monotone():
    """delta > 0: composing k Gaussian comparisons beats B sparse-vector instances until k
    is large; its promise grows with k and shrinks with epsilon."""
    alphas = [
        calibrate(fk_bound, 1.0, 1e-6, max_queries=k, sensitivity=2.0, scale=1e4).alpha
        for k in (100, 1000, 10_000)
    ]
    assert alphas == sorted(alphas)
    wider = calibrate(fk_bound, 2.0, 1e-6, max_queries=1000, sensitivity=2.0, scale=1e4)
    assert wider.alpha < alphas[1]
    sparse = calibrate(fk_bound, 1.0, 1e-6, max_queries=10**6, sensitivity=2.0, scale=1e4)
    assert sparse.answer is not None  # the sparse vector: its cost does not grow with k
    composed = calibrate(fk_bound, 1.0, 1e-6, max_queries=1000, sensitivity=2.0, scale=1e4)
    assert composed.answer is None and composed.threshold_noise is None
    pure = calibrate(fk_bound, 1.0, 0.0, max_queries=1000, sensitivity=2.0, scale=1e4)
    assert composed.alpha < 0.4 * pure.alpha


def test_calibration_refuses_what_it_cannot_promise():
    with pytest.raises(ValueError, match="needs delta > 0"):
        calibrate(fk_bound, 1.0, 0.0, max_queries=10, calibration="paper")
    with pytest.raises(ValueError, match=r"Thm 4\.9"):
        calibrate(fk_bound, 1.0, 1e-6, max_queries=10, calibration="paper", alpha=1.0)
    with pytest.raises(ValueError, match="calibration must be"):
        calibrate(fk_bound, 1.0, 1e-6, max_queries=10, calibration="loose")
    with pytest.raises(ValueError, match="no tight calibration"):
        calibrate(fk_bound, 1.0, 1e-6, max_queries=10, alpha=1e-3)


@pytest.mark.parametrize("idc", ["frieze-kannan", "multiplicative-weights", "median"])
def test_answers_stay_within_alpha(idc):
    rng = np.random.default_rng(0)
    h = rng.integers(0, 3, 6)
    n = 20 if idc == "median" else 40
    release = OnlineRelease(h, 2.0, 1e-3, max_queries=200, idc=idc, n=n, rng=1)
    for _ in range(200):
        query = rng.integers(0, 2, 6)
        assert abs(release.answer(query) - query @ h) <= release.alpha
    assert release.queries_answered == 200 and release.exhausted


def test_noisy_count_replaces_a_missing_size():
    release = OnlineRelease(np.array([5, 7, 0]), 1.0, max_queries=5, rng=0)
    assert release.size.epsilon == pytest.approx(0.1)
    assert release.calibration.epsilon == pytest.approx(0.9)


def test_after_max_queries_answers_come_from_the_hypothesis_with_a_warning():
    release = OnlineRelease(np.array([50, 0]), 1.0, max_queries=2, n=100, rng=0)
    release.answer([1, 0])
    release.answer([1, 0])
    with pytest.warns(OracleExhaustedWarning, match="hypothesis alone"):
        value = release.answer([1, 1])
    assert value == release.idc.evaluate(np.array([1.0, 1.0]))
    assert release.queries_answered == 2


def test_bad_queries_and_parameters_are_refused():
    release = OnlineRelease(np.array([1, 2]), 1.0, max_queries=3, n=10, rng=0)
    with pytest.raises(ValueError, match="length 2"):
        release.answer([1, 0, 0])
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        release.answer([2, 0])
    mw = OnlineRelease(np.array([1, 2]), 1.0, max_queries=3, n=10, idc="multiplicative-weights")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        mw.answer([-1, 0])
    with pytest.raises(ValueError, match="max_queries"):
        OnlineRelease(np.array([1]), 1.0, max_queries=0)
    with pytest.raises(ValueError, match="idc must be"):
        OnlineRelease(np.array([1]), 1.0, max_queries=1, idc="svd")
    with pytest.raises(ValueError, match="median construction would hold"):
        OnlineRelease(np.ones(50, dtype=int), 1.0, 0.5, max_queries=10, idc="median", n=1e4)


def _old_error_cut_off(m, grid):
    """The largest total whose float error bound ``float_sum_error(m, total)`` fits a quarter
    of the grid: where the refusal of fractional queries used to switch on the private total."""
    low, high = 1, 2**40
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if float_sum_error(m, middle) <= grid / 4 else (low, middle)
    return low


@pytest.mark.parametrize("n", [2.0**31, 2.0**32])
def test_fractional_refusal_depends_on_the_public_bound_not_the_total(n):
    m = 1024
    probe = OnlineRelease(np.zeros(m), 1.0, 1e-6, max_queries=100, n=n, rng=0)
    cut_off = _old_error_cut_off(m, probe._engine.released_noise.on_grid(1.0, 1).grid)
    assert cut_off < n  # neighbours either side of the old cut-off are both in the domain
    outcomes = []
    for total in (cut_off, cut_off + 1):  # neighbouring histograms, one element added
        h = np.zeros(m)
        h[0] = total
        release = OnlineRelease(h, 1.0, 1e-6, max_queries=100, n=n, rng=1)
        with pytest.raises(ValueError, match="public size bound"):
            release.answer(np.full(m, 0.5))
        outcomes.append(release.queries_answered)
        assert isinstance(release.answer(np.ones(m)), float)  # integer queries still answered
    assert outcomes == [0, 0]


def test_fractional_queries_are_answered_under_a_small_public_bound():
    m = 1024
    for total in (0, 2**20):  # far apart totals: both answered
        h = np.zeros(m)
        h[0] = total
        release = OnlineRelease(h, 1.0, 1e-6, max_queries=100, n=2.0**20, rng=1)
        assert isinstance(release.answer(np.full(m, 0.5)), float)


def test_a_histogram_above_the_public_bound_is_refused_before_any_spend():
    with pytest.raises(ValueError, match="more elements than the public bound n"):
        OnlineRelease(np.array([6, 5]), 1.0, max_queries=3, n=10, rng=0)


def _straddling_pair(calibration, epsilon, delta):
    """Counts N, N + 1 on either side of the threshold of a first query [1, 0]."""
    probe = OnlineRelease(
        np.array([0, 0]), epsilon, delta, max_queries=3, n=1e6, calibration=calibration, rng=0
    )
    count = math.floor(probe.calibration.threshold)
    return np.array([count, 0]), np.array([count + 1, 0])


def _transcript(calibration, epsilon, delta, sparse_vector=SparseVector):
    def run(h, rng):
        release = OnlineRelease(
            h,
            epsilon,
            delta,
            max_queries=3,
            n=1e6,
            calibration=calibration,
            rng=rng,
            sparse_vector=sparse_vector,
        )
        first = release.answer([1, 0])
        second = release.answer([1, 1] if first > 0 else [0, 1])
        return first, second, release.answer([1, 0])

    return run


class WithoutNoise(ExactComparison):
    """Broken Algorithm 1: compares and releases the exact answer."""

    def released(self, answer):
        return answer


@pytest.mark.slow
@pytest.mark.parametrize(("calibration", "delta"), [("paper", 1e-3), ("tight", 0.0)])
def test_online_release_passes_its_audit_and_catches_a_noiseless_comparison(calibration, delta):
    epsilon = 1.0
    pair = _straddling_pair(calibration, epsilon, delta)
    run = _transcript(calibration, epsilon, delta)
    broken_run = _transcript(calibration, epsilon, delta, sparse_vector=WithoutNoise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OracleExhaustedWarning)
        correct = audit(run, pair, epsilon, delta, samples=750, rng=0)
        broken = audit(broken_run, pair, epsilon, delta, samples=150, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_the_sparse_vector_hook_takes_sparse_vector_subclasses_only():
    assert check_sparse_vector(WithoutNoise) is WithoutNoise
    for bad in (None, object, "SparseVector", WithoutNoise.step):
        with pytest.raises(TypeError, match="testing hook"):
            OnlineRelease([1, 2], 1.0, max_queries=3, n=10.0, rng=0, sparse_vector=bad)


@pytest.mark.slow
def test_the_composed_calibration_passes_its_audit_and_catches_an_exact_comparison():
    """Counts on either side of the composed calibration's threshold (delta > 0, three
    queries: the composed analysis wins), audited at its (epsilon, delta)."""
    epsilon, delta = 1.0, 1e-3
    pair = _straddling_pair("tight", epsilon, delta)
    probe = OnlineRelease(pair[0], epsilon, delta, max_queries=3, n=1e6, rng=0)
    assert probe.calibration.answer is None and probe.calibration.threshold_noise is None
    run = _transcript("tight", epsilon, delta)
    broken_run = _transcript("tight", epsilon, delta, sparse_vector=ExactComparison)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OracleExhaustedWarning)
        correct = audit(run, pair, epsilon, delta, samples=750, rng=0)
        broken = audit(broken_run, pair, epsilon, delta, samples=150, rng=0)
    assert correct.p_value >= 0.01
    assert broken.p_value <= 1e-3


def test_the_frieze_kannan_bound_keeps_the_norm_and_refuses_bad_input():
    assert frieze_kannan_bound(100.0, 400.0)(10.0) == 400
    # the cut oracle's bound: max ||c||^2 = m D^2 on m pairs at sensitivity D = 2
    assert frieze_kannan_bound(30.0, 4 * 100)(2.0) == 3000
    for bad in (-1.0, math.nan, math.inf, "1", True):
        with pytest.raises((TypeError, ValueError), match="potential"):
            frieze_kannan_bound(bad, 1.0)
    for bad in (0.0, -1.0, math.nan, None):
        with pytest.raises((TypeError, ValueError), match="max_norm"):
            frieze_kannan_bound(1.0, bad)


def test_the_issue_20_promise_is_a_fifth_of_mains():
    """The issue's numbers: 1000 nodes (m = 499,500 pairs, D = 2), |E| = 16,064 +- 300 from a
    noisy count, 0.9 of (1, 1e-6), k = 1,403, beta = 0.0375; main (509a688) promised 30,508
    (benchmarks/oracle_alpha.py)."""
    m, edges, start = 499_500, 16_064, 16_064 / 499_500
    potential = max(e * (1 - 2 * start) + m * start**2 for e in (edges - 300, edges + 300))
    bound = frieze_kannan_bound(potential, 4 * m)
    c = calibrate(bound, 0.9, 1e-6, max_queries=1403, beta=0.0375, sensitivity=2.0, scale=16_364)
    assert c.alpha <= 30_508 / 5


@pytest.mark.parametrize("calibration, delta", [("tight", 0.0), ("tight", 1e-6), ("paper", 1e-6)])
def test_an_infeasible_alpha_is_refused_before_the_noisy_count(monkeypatch, calibration, delta):
    """Review F8: an explicit alpha no calibration can meet is refused from public values
    before the noisy count spends its share (it used to fail after it)."""
    import privcut.linear.online as online_module

    spent = []
    monkeypatch.setattr(online_module, "dataset_size", lambda *a: spent.append(a))
    with pytest.raises(ValueError, match=r"alpha=1\.0 cannot be met whatever the data"):
        OnlineRelease([3, 4], 1.0, delta, max_queries=10, alpha=1.0, calibration=calibration, rng=0)
    assert spent == []
    with pytest.raises(ValueError, match="needs delta > 0"):
        OnlineRelease([3, 4], 1.0, 0.0, max_queries=10, calibration="paper", rng=0)
    assert spent == []


def test_check_alpha_names_the_smallest_feasible_alpha():
    with pytest.raises(ValueError, match=r"needs alpha >= (\S+)") as caught:
        check_alpha(1.0, 1.0, 1e-6, max_queries=100, beta=0.05)
    smallest = float(caught.value.args[0].split("needs alpha >= ")[1].split(" ")[0])
    check_alpha(smallest * 1.001, 1.0, 1e-6, max_queries=100, beta=0.05)
    bound = lambda a: 1  # noqa: E731 - the smallest update bound: feasible there
    assert calibrate(bound, 1.0, 1e-6, max_queries=100, alpha=smallest * 1.001).alpha > 0


def test_the_composed_calibration_reserves_the_samplers_distance_from_delta(monkeypatch):
    """Review F3 (/tmp/review/composed_tv.py): 0.9 of (1, 1e-6) at k = 1,403 was composed
    with an effective delta of 1.16e-6; the reserve keeps it at most delta, costs under 1% of
    alpha, and is dropped (as for the sparse vector) where it would take half of delta."""
    float_sampler_slack(monkeypatch)
    potential, m = 16_064 * 1.0, 1000 * 999 // 2

    def bound(a):
        return math.ceil(potential * m / (a / 2.0) ** 2)

    def tight(k, prior_tv=0.0):
        return calibrate(
            bound, 0.9, 1e-6, max_queries=k, beta=0.0375, sensitivity=2.0, scale=16_064,
            prior_tv=prior_tv, tv_epsilon=1.0,
        )  # fmt: skip

    reserved = tight(1403, prior_tv=1e-9)
    assert reserved.composed and reserved.sampler_reserve > 0.0
    tv = 1e-9 + reserved.comparison.tv_bound(1403)
    assert zcdp_delta(zcdp_budget(0.9, 1e-6 - reserved.sampler_reserve), 0.9) <= 1e-6
    assert 1e-6 - reserved.sampler_reserve + (1.0 + math.e) * tv <= 1e-6
    assert 1e-6 + (1.0 + math.e) * tv > 1.1e-6  # the unreserved effective delta
    assert reserved.alpha < 1.01 * 4724.5  # main's (d7d0a23) unreserved composed alpha
    with pytest.warns(SamplerReserveWarning, match="no sampler reserve"):
        dropped = tight(10_000)
    assert dropped.composed and dropped.sampler_reserve == 0.0


@pytest.mark.parametrize("options", [dict(n=1000), dict(), dict(calibration="paper")])
def test_online_release_reports_its_samplers_slack(monkeypatch, options):
    """The stop-27 review: OnlineRelease reported no effective delta. Its sampler_tv is the
    draws it used (noisy count, comparisons, answers, thresholds; drawn-ahead comparisons
    are secret and unused), and under the composed analysis the reserve keeps the effective
    delta at most delta for integer queries."""
    drawn = record_sampler_tv(monkeypatch)
    h = np.array([400, 0, 250, 100])
    release = OnlineRelease(h, 1.0, 1e-6, max_queries=200, rng=0, **options)
    rng = np.random.default_rng(1)
    for _ in range(40):
        release.answer(rng.integers(0, 2, size=4))
    engine = release._engine
    unused = engine.calibration.comparison.tv_bound(engine.pending.size)
    assert release.sampler_tv == pytest.approx(drawn() - unused, rel=1e-12)
    reserve = engine.calibration.sampler_reserve
    expected = 1e-6 - reserve + (1 + math.e) * release.sampler_tv
    assert release.effective_delta == pytest.approx(expected)
    if engine.calibration.composed:
        assert reserve > 0.0 and release.effective_delta <= 1e-6
