"""When each store of a build in lanes will be published: the lanes' stores run on shared cores, each lane getting
its share of them by its niceness, and a lane's next store starting when its store ends.

``make serve`` builds in three lanes on the machine's cores: Dudo at nice 10, the other stores in two lanes at nice 19
that take what Dudo leaves. A store's wall pace then changes whenever another lane's store ends or starts, so a time
left read from its own wall pace cannot know it; its pace per CPU second does not change (``builder.lane_cpu``).
The model here takes each lane's CPU seconds still to spend on each of its stores and the CPU rate each lane gets
now, and plays the build forwards:

- **now** each lane keeps the rate it was measured at;
- **the capacity** the lanes share is the cores they get now, the cores the machine leaves idle and those of lanes
  that have just ended (the machine's other work keeps its share), at most the cores they run on;
- **a lane that wanted no more** keeps asking for the rate it gets: every lane where cores are left idle, else a
  lane below its cap that leaves cores to a lane of lower weight (the kernel gives a thread of higher weight what
  it asks first); the others ask for every core they can use;
- **when a lane ends** the capacity is shared again among the lanes left: each gets its weight's share (water-filling:
  a lane that asks for less keeps what it asks, the rest is shared among the others by their weights again), and so
  when a store's part that runs another number of tasks begins: the kernel weighs each busy task, so a lane weighs
  its niceness's weight once a task of its running part (``Lane.tasks``);
- a lane's next store asks for what its lane asked for, unless it says what it asks for (a part of Dudo's build that
  runs fewer groups side by side).

The kernel's weights are those of the completely fair scheduler (``sched_prio_to_weight``, kernel/sched/core.c):
each step of niceness is a factor of about 1.25.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# sched_prio_to_weight for nice -20..19 (kernel/sched/core.c)
_WEIGHTS = (88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
            9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
            1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
            110, 87, 70, 56, 45, 36, 29, 23, 18, 15)
SATISFIED = 0.9     # a lane below this share of its cap may be asking for no more than it gets
SPARE_CORES = 0.25  # this many cores idle: no lane waited for one
RUNNING = 0.05      # a lane getting this many cores gets some
NEVER = float("inf")


def nice_weight(nice: int) -> float:
    """The scheduler's weight of a thread at niceness ``nice``."""
    return float(_WEIGHTS[min(19, max(-20, int(nice))) + 20])


def water_fill(demands: list[float], weights: list[float], capacity: float) -> list[float]:
    """Each lane's cores: ``capacity`` shared by weight, no lane given more than its demand, what one leaves shared
    among the others by their weights again."""
    out = [0.0] * len(demands)
    open_ = [i for i, d in enumerate(demands) if d > 0]
    left = capacity
    while open_ and left > 1e-12:
        total = sum(weights[i] for i in open_)
        fair = {i: left * weights[i] / total for i in open_}
        capped = [i for i in open_ if demands[i] - out[i] <= fair[i]]
        if not capped:
            for i in open_:
                out[i] += fair[i]
            break
        for i in capped:
            left -= demands[i] - out[i]
            out[i] = demands[i]
        open_ = [i for i in open_ if i not in capped]
    return out


@dataclass
class Lane:
    nice: int
    rate: float                 # the CPU seconds a second it gets now (measured)
    cap: float                  # the most cores it can use
    stores: list[float] = field(default_factory=list)   # CPU seconds left of its stores, the running one first
    # the cores each of its later stores asks for, where known (a part of a store that runs fewer tasks side by
    # side: Dudo's last groups); None, or a list shorter than ``stores``: what the lane asks for now
    asks: list[float | None] = field(default_factory=list)
    # the most cores its running store can use, where fewer than ``cap`` (a step on one thread); its later stores
    # may use ``cap``
    now_cap: float | None = None
    # the tasks each of its stores runs side by side, where known (the parts of a store whose steps run one task or
    # several: a Jotto store's tree steps on both workers): the kernel weighs each busy task by its niceness, so the
    # lane weighs its niceness's weight that many times; None, or a list shorter than ``stores``: once
    tasks: list[float | None] = field(default_factory=list)

    def weight(self, store: int = 0) -> float:
        n = self.tasks[store] if store < len(self.tasks) else None
        return nice_weight(self.nice) * (n or 1.0)

    def running_cap(self) -> float:
        return self.cap if self.now_cap is None else min(self.cap, self.now_cap)


def demands(lanes: list[Lane], idle: float = 0.0) -> list[float]:
    """What each lane asks for. With ``SPARE_CORES`` ``idle`` no lane waited for a core: each asks for what it gets.
    Else a lane that leaves cores to a lane of lower weight (niceness) and is below ``SATISFIED`` of its cap asks for
    what it gets (it would have taken them), the others for their cap."""
    if idle >= SPARE_CORES:
        return [x.rate for x in lanes]
    asks = []
    for x in lanes:
        leaves = any(nice_weight(y.nice) < nice_weight(x.nice) and y.rate >= RUNNING for y in lanes)
        asks.append(x.rate if leaves and x.rate < SATISFIED * x.running_cap() else x.running_cap())
    return asks


def shared_capacity(lanes: list[Lane], idle: float, freed: float) -> float:
    """The cores the lanes share: what they get now, the idle cores and the cores of lanes that have just ended, no
    more than the cores they run on (the largest lane's cap): the rates and the idle cores are read over windows that
    differ, and summed to 2.2 of 2 cores at the 01:45 make serve build's 4-letter store's start."""
    return min(max((x.cap for x in lanes), default=0.0),
               sum(x.rate for x in lanes) + max(0.0, idle) + max(0.0, freed))


def finish_times(lanes: list[Lane], idle: float = 0.0, freed: float = 0.0) -> list[list[float]]:
    """Seconds from now until each store of each lane ends, played forwards (``NEVER`` for a lane that gets no
    core). ``idle``: the cores the machine leaves idle now; ``freed``: the cores lanes that have just ended held (a
    lane's rate is measured over a window: the lanes left get them at once, before their rates show it)."""
    asks = demands(lanes, idle)
    later = [list(x.asks[1:]) for x in lanes]     # each lane's later stores' own asks
    weights = [x.weight() for x in lanes]
    capacity = shared_capacity(lanes, idle, freed)
    more = water_fill([a - x.rate for a, x in zip(asks, lanes)], weights, max(0.0, idle) + max(0.0, freed))
    rates = [x.rate + m for x, m in zip(lanes, more)]
    left = [list(x.stores) for x in lanes]
    out: list[list[float]] = [[] for _ in lanes]
    t = 0.0
    while True:
        running = [i for i, s in enumerate(left) if s]
        if not running:
            return out
        ends = {i: left[i][0] / rates[i] if rates[i] > 0 else NEVER for i in running}
        dt = min(ends.values())
        if dt == NEVER:
            for i in running:
                out[i] += [NEVER] * len(left[i])
            return out
        t += dt
        changed = False
        for i in running:
            left[i][0] -= rates[i] * dt
            if ends[i] <= dt:
                out[i].append(t)
                left[i].pop(0)
                own = later[i].pop(0) if later[i] else None
                if own is None and lanes[i].now_cap is not None and len(out[i]) == 1:
                    own = lanes[i].cap      # its next store may use every core of the lane
                if own is not None:
                    asks[i] = min(lanes[i].cap, own)
                weight = lanes[i].weight(len(out[i]))
                changed = changed or not left[i] or own is not None or weight != weights[i]
                weights[i] = weight
        if changed:     # a lane is done or asks for other cores: the capacity is shared again
            rates = water_fill([asks[i] if left[i] else 0.0 for i in range(len(lanes))], weights, capacity)
