"""A store's build time left, from the fraction its steps count (``builder.steps``) and the seconds it has taken.

Two estimates, averaged:

- the whole build's pace: the expected seconds' rest scaled by the ratio of the seconds taken to the seconds the
  model expected for the work counted, that ratio starting at 1 and moving to the measured one as the build goes (a
  prior worth ``PRIOR_SHARE`` of the build: ``(1 - f) * (PRIOR_SHARE * expected + seconds) / (PRIOR_SHARE + f)``);
- the recent pace: the rest at the pace of the last third of the time counted (at least ``PACE_WINDOW_SECONDS``),
  blended with the expected seconds' rest by the fraction done (all the expected rest at 0, all the pace from
  ``BLEND_FRACTION`` on).

Early on both are the model's estimate (a first sample says the expected time), later the measured pace: a build's
first steps (numba's compile beside other work) keep a pace its later ones do not, and a pace read from a few
per cent of a build swings with each step. Without an expected time (a lane whose store takes what another leaves
it) there is no estimate before ``MIN_PACE_FRACTION`` of the build is counted over ``MIN_PACE_SECONDS``.
"""
from __future__ import annotations

import collections

PRIOR_SHARE = 0.1
BLEND_FRACTION = 0.3
PACE_WINDOW_SECONDS = 60.0
MIN_PACE_FRACTION = 0.05
MIN_PACE_SECONDS = 10.0


class TimeLeft:
    """One store's time left: call it with each count (the seconds since the store's build started, its fraction)."""

    def __init__(self, expected: float | None):
        self.expected = expected or None
        self._recent: collections.deque = collections.deque()   # (seconds, fraction) counts of the last third
        self._first: float | None = None                        # the seconds of the first count

    def __call__(self, seconds: float, fraction: float) -> float | None:
        f = min(1.0, max(0.0, fraction))
        estimates = [x for x in (self._whole(seconds, f), self._pace(seconds, f)) if x is not None]
        return max(0.0, sum(estimates) / len(estimates)) if estimates else None

    def _whole(self, seconds: float, f: float) -> float | None:
        if self.expected is not None:
            return (1.0 - f) * (PRIOR_SHARE * self.expected + seconds) / (PRIOR_SHARE + f)
        if f >= MIN_PACE_FRACTION and seconds >= MIN_PACE_SECONDS:
            return seconds * (1.0 - f) / f
        return None

    def _pace(self, seconds: float, f: float) -> float | None:
        if self._first is None:
            self._first = seconds
        self._recent.append((seconds, f))
        window = max(PACE_WINDOW_SECONDS, (seconds - self._first) / 3.0)
        while len(self._recent) > 1 and self._recent[1][0] <= seconds - window:
            self._recent.popleft()
        s0, f0 = self._recent[0]
        gained = f - f0
        pace = (seconds - s0) * (1.0 - f) / gained \
            if gained >= MIN_PACE_FRACTION and seconds - s0 >= MIN_PACE_SECONDS else None
        if self.expected is None:
            return pace
        rest = self.expected * (1.0 - f)
        if pace is None:
            return rest
        w = min(1.0, f / BLEND_FRACTION)
        return (1.0 - w) * rest + w * pace
