"""The capacity model: P(hold | rate) fitted over a pass's probes, with its intervals.

Issue 69 (docs/method.md#capacity-the-model): capacity from every probe of a pass, as pure functions
of (contender, pass, rate, held) probes; a probe the load generator spoiled is left out by the
caller.

Within a pass, P(hold | rate) = (1 - LAPSE) * expit(s * (log c_k - log rate)): a logistic in log
rate with one slope s shared by the pass's contenders (the transition's steepness is the
instrument's, and sharing it keeps the fit finite where one contender's probes separate) and a
location c_k per contender, its capacity: the rate a probe free of a stall holds with probability
0.5. LAPSE is the chance that a probe misses at any rate (the shared machine stalls once): without
it one miss far below capacity flattens the slope and drags every estimate. Firth's penalty
(the Jeffreys prior, half the log-determinant of the Fisher information) keeps the fit finite
under complete separation and takes out the small-sample bias of the slope. Intervals are by
the profile penalized likelihood (chi-square, 1 df): in simulation (harness/tests/
test_capacity_model.py) they cover at the stated rate, where Wald's from the same fit fell short.

Passes are fitted apart (drift hits a pass's contenders alike, not one pass like the next); a
ratio across passes is ACROSS, a paired t interval over passes on the log within-pass ratios.
A contender that never missed has a lower bound (AboveTried), one that never held an upper one
(NoneHeld): markers, not numbers, and so is a fitted capacity outside the rates it was probed at."""

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np
from scipy import optimize, special, stats
from statsmodels.tools.numdiff import approx_fprime

CONFIDENCE = 0.95
# A probe's chance to miss at any rate: 5 of 21 committed searches held above a rate they had
# missed. The estimates and their coverage barely move between 0.01 and 0.03 in simulation.
LAPSE = 0.03
START_SLOPE = 20.0  # the fit's start: a 10-90 % transition over about +-10 % of capacity (NOTES)
# The slope's bounds: a 10-90 % transition over a factor of 80 of rate at one end (no transition to
# speak of), 0.4 % at the other. Without them a profile's fit can drift to a slope of 0, where
# every location fits alike, and stop there.
SLOPES = (1.0, 1000.0)
WITHIN = "Firth logistic, log rate, shared slope"  # its intervals by profile likelihood
ACROSS = "paired t on log within-pass ratios"
_STEP, _REACH, _XTOL = 0.02, 3.0, 2e-3  # the profile's least step, farthest reach, precision (log rate)


class Probe(NamedTuple):
    """One probe as the model takes it; `pass_id` names the pass (a run)."""

    contender: str
    pass_id: str
    rate: float
    held: bool


@dataclass(frozen=True)
class Estimate:
    """A figure with its 95 % interval (ends 0 or inf: the probes bound it on one side only)."""

    value: float
    low: float
    high: float
    method: str


@dataclass(frozen=True)
class Ratio(Estimate):
    """a / b with its interval; `passes`: how many passes it is over."""

    passes: int = 1

    @property
    def differs(self) -> bool:
        """The interval excludes 1 (else "within noise")."""
        return bool(self.low > 1 or self.high < 1)


@dataclass(frozen=True)
class AboveTried:
    """Never missed, or fitted above every rate tried: the capacity is above `rate`, the highest."""

    rate: float


@dataclass(frozen=True)
class NoneHeld:
    """Never held, or fitted below every rate tried: the capacity is below `rate`, the lowest."""

    rate: float


Capacity = Estimate | AboveTried | NoneHeld


@dataclass(frozen=True)
class Control:
    """A pass's A/A pair (one service entered twice): its ratio; `failed`: the interval excludes 1."""

    pass_id: str
    ratio: Ratio | None  # None: either name has a marker, no ratio

    @property
    def failed(self) -> bool:
        return self.ratio is not None and self.ratio.differs


@dataclass(frozen=True)
class FalsePositives:
    """Over passes, the A/A pairs' failures: their rate and its 95 % interval (Clopper-Pearson)."""

    failed: int
    passes: int
    rate: float
    low: float
    high: float


class _Model:
    """The penalized likelihood of one pass; parameters: log c_k per contender, then log s."""

    def __init__(self, names: list[str], contender: np.ndarray, log_rate: np.ndarray, held: np.ndarray):
        self.names, self.k, self.x, self.y = names, contender, log_rate, held
        self.design = np.zeros((len(log_rate), len(names) + 1))  # in (intercept_k, slope): Firth's
        self.design[np.arange(len(log_rate)), contender] = 1
        self.design[:, -1] = log_rate.mean() - log_rate
        # The likelihood can have a flat mode besides the steep one: the fit starts at each
        # contender's best split and at two slopes, and keeps the best.
        splits = [_split(log_rate[contender == i], held[contender == i]) for i in range(len(names))]
        fit = min((self._minimize(self.nll, np.r_[splits, np.log(slope)]) for slope in (START_SLOPE, START_SLOPE / 4)),
                  key=lambda fit: fit.fun)
        self.theta, self.best = fit.x, fit.fun

    def nll(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """Minus the penalized log-likelihood, and its gradient (inf where it has none)."""
        if not np.isfinite(theta).all():  # a step of the optimizer's that overshot
            return np.inf, np.zeros_like(theta)
        s, a = np.exp(theta[-1]), 1 - LAPSE
        z = s * (theta[:-1][self.k] - self.x)
        f = special.expit(z)
        log_q = np.logaddexp(np.log(LAPSE), np.log(a) - np.logaddexp(0, z))  # q = 1 - p = LAPSE + a (1 - f)
        q = np.exp(log_q)
        weight = a * f * (1 - f) ** 2 / q  # Fisher's per probe: (dp/dz)^2 / (p q), p = a f
        info = (self.design * weight[:, None]).T @ self.design
        sign, log_det = np.linalg.slogdet(info)
        if sign <= 0 or not np.isfinite(log_det):
            return np.inf, np.zeros_like(theta)
        log_lik = np.sum(np.where(self.y, np.log(a) - np.logaddexp(0, -z), log_q)) + log_det / 2
        leverage = np.einsum("ij,jk,ik->i", self.design, np.linalg.inv(info), self.design)
        d_weight = weight * (1 - 3 * f + a * f * (1 - f) / q)
        d_z = np.where(self.y, 1 - f, -a * f * (1 - f) / q) + d_weight * leverage / 2
        gradient = np.r_[s * np.bincount(self.k, d_z, len(self.names)), d_z @ z]
        return -log_lik, -gradient

    def interval(self, c: np.ndarray) -> tuple[float, float]:
        """The profile interval of c . theta, in log rate (+-inf: not closed within _REACH): where
        the signed root of the profile deviance, near linear, reaches the normal quantile; the
        search starts at Wald's ends from the penalized fit's Hessian."""
        v0, z = c @ self.theta, stats.norm.ppf((1 + CONFIDENCE) / 2)
        hessian = approx_fprime(self.theta, lambda theta: self.nll(theta)[1], centered=True)
        wald = np.sqrt(max(c @ np.linalg.pinv(hessian) @ c, 0.0))
        step0 = float(np.clip(np.nan_to_num(z * wald, nan=_STEP), _STEP, _REACH))
        j = np.flatnonzero(c)[0]  # solved for from the others (c never weighs the slope)
        free = np.delete(np.arange(len(c)), j)

        warm = [self.theta[free]]
        found: dict[float, float] = {}

        def root(v: float) -> float:
            """The signed root's excess at v; its fit starts at the fit's own values and at the
            last profile's, the better kept (a start can end on the flat slope's plateau)."""
            if v in found:  # brentq asks again for its bracket's ends: the same answer
                return found[v]

            def reduced(u: np.ndarray) -> tuple[float, np.ndarray]:
                value, gradient = self.nll(np.insert(u, j, (v - c[free] @ u) / c[j]))
                return value, gradient[free] - gradient[j] * c[free] / c[j]

            starts = [self.theta[free]] + ([] if np.array_equal(warm[0], self.theta[free]) else [warm[0]])
            fit = min((self._minimize(reduced, start) for start in starts), key=lambda f: f.fun)
            warm[0], found[v] = fit.x, np.sqrt(2 * max(fit.fun - self.best, 0.0)) - z
            return found[v]

        ends = []
        for sign in (-1, 1):
            inner, step, end = v0, step0, sign * np.inf
            while step <= _REACH:
                outer = v0 + sign * step
                if root(outer) >= 0:
                    end = optimize.brentq(root, inner, outer, xtol=_XTOL)
                    break
                inner, step = outer, step * 2
            ends.append(end)
        return ends[0], ends[1]

    @staticmethod
    def _minimize(function: Callable, start: np.ndarray) -> optimize.OptimizeResult:
        """`function`'s minimum, its last parameter the log slope, kept within SLOPES."""
        bounds = [(None, None)] * (len(start) - 1) + [tuple(np.log(SLOPES))]
        return optimize.minimize(function, start, jac=True, method="TNC", bounds=bounds)


def _split(log_rate: np.ndarray, held: np.ndarray) -> float:
    """The log rate that best parts held probes (below) from missed ones (above), where most do."""
    rates = np.unique(log_rate)
    cuts = np.r_[rates[0] - 0.05, (rates[1:] + rates[:-1]) / 2, rates[-1] + 0.05]
    right = [np.sum(held & (log_rate < cut)) + np.sum(~held & (log_rate > cut)) for cut in cuts]
    return float(np.median(cuts[np.flatnonzero(right == np.max(right))]))


@dataclass(frozen=True)
class PassFit:
    """One pass's fit: each contender's capacity (an Estimate or a marker), and their ratios."""

    pass_id: str
    markers: dict[str, AboveTried | NoneHeld]  # those that never missed or never held
    model: _Model | None = field(default=None, repr=False)  # None: no contender both held and missed
    tried: dict[str, tuple[float, float]] = field(default_factory=dict)  # each one's lowest, highest rate

    @property
    def slope(self) -> float | None:
        """The shared slope, per unit of log rate (None: nothing fitted)."""
        return None if self.model is None else float(np.exp(self.model.theta[-1]))

    @property
    def capacities(self) -> dict[str, Capacity]:
        """Every contender's capacity, its interval computed (a profile each: not free)."""
        return {name: self.capacity(name) for name in self.tried}

    def capacity(self, name: str) -> Capacity:
        """`name`'s capacity with its interval, or its marker."""
        located = self._located[name]
        if not isinstance(located, int):
            return located
        model = self._fitted
        low, high = np.exp(model.interval(np.eye(len(model.theta))[located]))
        return Estimate(float(np.exp(model.theta[located])), float(low), float(high), WITHIN)

    def point(self, name: str) -> float | AboveTried | NoneHeld:
        """`name`'s capacity without its interval (no profile: cheap), or its marker."""
        located = self._located[name]
        return float(np.exp(self._fitted.theta[located])) if isinstance(located, int) else located

    @property
    def _fitted(self) -> _Model:
        """The model, where a contender has an index in it (only a fitted pass gives one)."""
        assert self.model is not None
        return self.model

    @cached_property
    def _located(self) -> dict[str, int | AboveTried | NoneHeld]:
        """Each contender's index in the model, or its marker: a fit outside the rates tried is one."""
        located: dict[str, int | AboveTried | NoneHeld] = dict(self.markers)
        if self.model is None:
            return located
        for i, name in enumerate(self.model.names):
            value, (lowest, highest) = np.exp(self.model.theta[i]), self.tried[name]
            located[name] = AboveTried(highest) if value > highest else NoneHeld(lowest) if value < lowest else i
        return located

    def ratio(self, a: str, b: str) -> Ratio | None:
        """a's capacity over b's with its interval; None where either has a marker."""
        i, j = self._located[a], self._located[b]
        if not (isinstance(i, int) and isinstance(j, int)):
            return None
        model = self._fitted
        c = np.zeros(len(model.theta))
        c[i], c[j] = 1, -1
        low, high = np.exp(model.interval(c))
        return Ratio(float(np.exp(c @ model.theta)), float(low), float(high), WITHIN)


def fit_pass(probes: Iterable[Probe | tuple]) -> PassFit:
    """The model fitted to the probes of one pass (module doc)."""
    listed = [Probe(*p) for p in probes]
    if len({p.pass_id for p in listed}) > 1:
        raise ValueError("fit_pass takes the probes of one pass: see fit_passes")
    by_name: dict[str, list[Probe]] = defaultdict(list)
    for p in listed:
        by_name[p.contender].append(p)
    tried = {name: (min(p.rate for p in ps), max(p.rate for p in ps)) for name, ps in by_name.items()}
    markers = {name: AboveTried(tried[name][1]) if all(p.held for p in ps) else NoneHeld(tried[name][0])
               for name, ps in by_name.items() if len({p.held for p in ps}) == 1}
    names = [name for name in by_name if name not in markers]
    kept = [p for p in listed if p.contender in names]
    pass_id = listed[0].pass_id if listed else ""
    if not names:
        return PassFit(pass_id, markers, None, tried)
    model = _Model(names, np.array([names.index(p.contender) for p in kept]),
                   np.log([p.rate for p in kept]), np.array([p.held for p in kept]))
    return PassFit(pass_id, markers, model, tried)


def fit_passes(probes: Iterable[Probe | tuple]) -> dict[str, PassFit]:
    """Each pass's fit, by pass id, in the order the passes first appear."""
    passes: dict[str, list[Probe]] = defaultdict(list)
    for probe in probes:
        passes[Probe(*probe).pass_id].append(Probe(*probe))
    return {pass_id: fit_pass(group) for pass_id, group in passes.items()}


def across_passes(fits: Iterable[PassFit], a: str, b: str) -> Ratio | None:
    """a / b over the passes where both have an estimate, by ACROSS (`over_passes`)."""
    points = [(fit.point(a), fit.point(b)) for fit in fits]
    return over_passes([x / y for x, y in points if isinstance(x, float) and isinstance(y, float)])


def over_passes(ratios: Sequence[float] | np.ndarray) -> Ratio | None:
    """ACROSS: the geometric mean of within-pass ratios and the t interval on their logs (the
    passes' own spread, n - 1 degrees of freedom); None below two passes."""
    if len(ratios) < 2:
        return None
    logs = np.log(ratios)
    if np.ptp(logs) == 0:  # alike in every pass: no spread to take an interval from (scipy: NaN)
        return Ratio(float(ratios[0]), float(ratios[0]), float(ratios[0]), ACROSS, len(logs))
    interval = stats.ttest_1samp(logs, 0.0).confidence_interval(CONFIDENCE)
    return Ratio(float(np.exp(logs.mean())), float(np.exp(interval.low)), float(np.exp(interval.high)),
                 ACROSS, len(logs))


def control(fit: PassFit, a: str, b: str) -> Control:
    """The A/A pair `a`, `b` of a pass (the same service under two names)."""
    return Control(fit.pass_id, fit.ratio(a, b))


def false_positives(controls: Sequence[Control]) -> FalsePositives:
    """How often the A/A pairs with a ratio failed, with the rate's exact binomial interval."""
    judged = [c for c in controls if c.ratio is not None]
    failed = sum(c.failed for c in judged)
    if not judged:
        return FalsePositives(0, 0, np.nan, np.nan, np.nan)
    interval = stats.binomtest(failed, len(judged)).proportion_ci(CONFIDENCE, method="exact")
    return FalsePositives(failed, len(judged), failed / len(judged), float(interval.low), float(interval.high))
