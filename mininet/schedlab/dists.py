"""schedlab/dists.py - the seeded distributions of the traffic sources.

Each function draws from a random.Random the caller owns, so a source
seeded once repeats its sizes and times exactly, whatever the network
does with them.  The same forms as src/util/rng.c's (the simulator's),
by inverse transform from one uniform in (0, 1]:

  exponential(mean)            -mean ln U
  pareto(alpha, mean)          k U^(-1/alpha), k = mean (alpha - 1) / alpha
                               (the DQ paper's eq. 1: P(X <= x) = 1 -
                               (k/x)^alpha for x >= k, mean alpha k /
                               (alpha - 1), so alpha > 1)
  pareto_trunc(alpha, mean, max)
                               the same Pareto conditioned on X <= max:
                               k (1 - U (1 - (k/max)^alpha))^(-1/alpha)
                               (mean is the untruncated one's; the
                               truncated mean is pareto_trunc_mean())

DistError (a ValueError) names the bad parameter and what is accepted.
"""
import math


class DistError(ValueError):
    """A bad distribution parameter: `name 'value': problem (accepted: ...)`."""


def _u01_nonzero(rng):
    """Uniform in (0, 1]: never 0, so logs and powers stay finite."""
    return 1.0 - rng.random()


def check_exponential(mean):
    if not (isinstance(mean, (int, float)) and math.isfinite(mean) and mean > 0):
        raise DistError("mean '%s': not a positive number (accepted: > 0)" % (mean,))


def check_pareto(alpha, mean, max_=None):
    """Raises DistError unless alpha > 1, mean > 0 and, when given, max
    at least the scale k."""
    if not (isinstance(alpha, (int, float)) and math.isfinite(alpha) and alpha > 1):
        raise DistError("alpha '%s': the Pareto shape must be above 1 for a "
                        "finite mean (accepted: > 1, the DQ paper's 1.3)" % (alpha,))
    check_exponential(mean)
    if max_ is not None:
        k = pareto_scale(alpha, mean)
        if not (isinstance(max_, (int, float)) and max_ >= k):
            raise DistError("max '%s': below the Pareto scale %.6g (accepted: >= "
                            "mean (alpha - 1) / alpha)" % (max_, k))


def pareto_scale(alpha, mean):
    """k, the smallest value: mean (alpha - 1) / alpha."""
    return mean * (alpha - 1.0) / alpha


def exponential(rng, mean):
    """One draw of an exponential of the given mean."""
    return -mean * math.log(_u01_nonzero(rng))


def pareto(rng, alpha, mean):
    """One draw of a Pareto of shape alpha > 1 and the given mean."""
    return pareto_scale(alpha, mean) * _u01_nonzero(rng) ** (-1.0 / alpha)


def pareto_trunc(rng, alpha, mean, max_):
    """One draw of pareto(alpha, mean) conditioned on <= max_."""
    k = pareto_scale(alpha, mean)
    tail = (k / max_) ** alpha
    x = k * (1.0 - _u01_nonzero(rng) * (1.0 - tail)) ** (-1.0 / alpha)
    return min(x, max_)


def pareto_trunc_cdf(x, alpha, mean, max_):
    """P(X <= x) for pareto_trunc(alpha, mean, max_)."""
    k = pareto_scale(alpha, mean)
    if x < k:
        return 0.0
    if x >= max_:
        return 1.0
    return (1.0 - (k / x) ** alpha) / (1.0 - (k / max_) ** alpha)


def pareto_trunc_mean(alpha, mean, max_):
    """E[X] for pareto_trunc(alpha, mean, max_): the integral of alpha k^alpha
    x^-alpha from k to max, over 1 - (k/max)^alpha."""
    k = pareto_scale(alpha, mean)
    num = alpha * k ** alpha * (k ** (1.0 - alpha) - max_ ** (1.0 - alpha)) / (alpha - 1.0)
    return num / (1.0 - (k / max_) ** alpha)


def pareto_alpha_mle(xs, k):
    """The maximum-likelihood shape of an untruncated Pareto of known scale
    k from samples xs: n / sum ln(x / k).  (ln(X/k) is exponential of
    mean 1/alpha, so this converges as 1/sqrt(n) whatever alpha is,
    where the sample mean of a shape below 2 does not.)"""
    s = sum(math.log(x / k) for x in xs)
    return len(xs) / s
