"""A Dudo build's parameters (``DudoParams``: dice, iterations, memories by budget or by group, the bounds and
improvements it measures, the rounds served by search) and how a manifest records them."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from games.dudo.abstraction.infoset import block_memory, dominates, parse_memory, remembers_more
from games.dudo.build.budget import choose_bound_memory, choose_improvement_memory, choose_memories
from games.dudo.cost import cfrbr_cost, group_cost


@dataclass(frozen=True)
class DudoParams:
    max_dice: int
    iterations: int
    memory: int = 3  # the paper's m: claims remembered (every group, without budgets)
    perfect_recall_total: int = 2  # groups with at most this many dice in play are solved without forgetting
    exact_br_total: int = 4  # exact perfect-recall best response up to this many dice in play
    # (total dice in play, iterations) overriding ``iterations`` for the groups of that total
    iterations_by_total: tuple = ()
    # memory per group by budget (``games.dudo.build.budget``): perfect recall where it fits, else the largest m
    # whose tables fit ``memory_budget`` bytes and whose planned iterations fit ``time_budget`` seconds
    # (cost model, one core); 0 = every group uses ``memory`` (perfect recall up to perfect_recall_total)
    memory_budget: int = 0
    time_budget: float = 0.0
    # ((a, b), m) with a <= b: group {a, b}'s memory set by the profile (by measurement, ``research.dudo
    # mtable``: the exploitability each m reaches; or to spend a first run's time where the game is large),
    # overriding the time budget's choice; its tables must still fit ``memory_budget``; m is an int or a
    # schedule's text ("4-24-3": 4 claims while the last claim is below strength 24, then 3; ``infoset.Schedule``)
    memory_by_group: tuple = ()
    # ((a, b), iterations) with a <= b: group {a, b}'s iteration cap, overriding ``iterations_by_total``
    iterations_by_group: tuple = ()
    label: str = "auto"  # names a budgeted variant: dudo-<max_dice>dice-<label>
    # > 0: train each group to its floor (``training.train_to_floor``): stop when a doubling of the
    # iterations improves the group's exploitability by less than this fraction; the planned iterations
    # (the time budget's) are a cap
    stop_rel: float = 0.0
    # beyond ``exact_br_total`` dice in play each round's exploitability is the lower bound of a
    # responder remembering m' claims (``bound.memory_best_response``): the largest m' <= m +
    # ``bound_memory`` whose modelled tables fit ``bound_budget`` bytes and one bound
    # ``bound_time_budget`` seconds (``cost.bound_cost``, one core; 0 = no limit); m' = m (0 here,
    # or nothing larger fits) is the abstraction's own bound
    bound_memory: int = 0
    bound_budget: int = 0
    bound_time_budget: float = 0.0
    # > 0: beyond ``exact_br_total`` dice in play each round also gets the perfect-recall improvement
    # of a memory-m'' responder (``lbr.improved_best_response``; m'' the bound's m' where its value
    # matrices fit ``bound_budget``, else smaller), sampled with this many rounds per responder roll
    # and seat (seeded by ``improve_seed``)
    improve_games: int = 0
    improve_seed: int = 0
    # ((a, b), m_fine) with a <= b: group {a, b}'s abstract strategy (memory m) learns by CFR+ against CFR+
    # responders remembering m_fine claims (``cfrbr.CFRBR``, the least exploitable strategy of memory m
    # rather than the equilibrium of the abstract game); its responders' tables are not stored
    train_memory_by_group: tuple = ()
    # ((opener, other), depth, iterations, gadget): rounds with an exact figure where the server answers
    # continual re-solving on the stored rows (``games.dudo.policy.searched``) if the builder's exact figure of
    # it is lower than the stored rows' (``served.serves_search``); chosen by measurement (research.dudo_walk)
    search_by_round: tuple = ()
    # (min_total, depth, iterations, claims[, rows_groups[, regrets[, exact_rounds]]]): the rounds with at least
    # min_total dice in play are served by depth-limited continual re-solving on the stored rows (``search.tables``,
    # ``serving.large_search``), with the store holding their leaves and round-start re-solves, except those of the
    # groups in rows_groups (((a, b), ...): kept on the rows); regrets the re-solves' scheme ("cfr+" when absent,
    # or "dcfr"); exact_rounds (((opener, other), ...), fewer dice) have their tables stored too and are served by
    # search where its exact figure is below the rows' (``LargeSearchSpec.exact_rounds``); () = none
    large_search: tuple = ()

    def large_search_spec(self):
        """``search.tables.LargeSearchSpec`` of ``large_search`` (None: no round searched)."""
        from games.dudo.search.tables import LargeSearchSpec
        if not self.large_search:
            return None
        min_total, depth, iterations, claims = (int(x) for x in self.large_search[:4])
        rows = self.large_search[4] if len(self.large_search) > 4 else ()    # LargeSearchSpec makes it tuples
        regrets = str(self.large_search[5]) if len(self.large_search) > 5 else "cfr+"
        exact = self.large_search[6] if len(self.large_search) > 6 else ()
        return LargeSearchSpec(min_total=min_total, depth=depth, iterations=iterations, A=claims, rows_groups=rows,
                               regrets=regrets, exact_rounds=exact)

    @property
    def budgeted(self) -> bool:
        return self.memory_budget > 0 or self.time_budget > 0

    @property
    def variant(self) -> str:
        """dudo-m<m>-<N>dice with one memory for every group; dudo-<N>dice-<label> with memory by budget."""
        if self.budgeted:
            return f"dudo-{self.max_dice}dice-{self.label}"
        return f"dudo-m{self.memory}-{self.max_dice}dice"

    def group_iterations(self, a: int, b: int) -> int:
        by_group = {tuple(g): n for g, n in self.iterations_by_group}
        return by_group.get((a, b)) or group_iterations(self.iterations, tuple(self.iterations_by_total), a, b)

    def bound_memories(self) -> dict:
        """{(a, b): m'} of the responder-memory bound for every group with more than
        ``exact_br_total`` dice in play and an imperfect-recall memory.  A group trained against responders
        (``train_memory_by_group``) is measured by a responder remembering at least as much as they do."""
        out, trained = {}, self.train_memories()
        for (a, b), m in self.memories().items():
            if a + b > self.exact_br_total and m is not None:
                mr = choose_bound_memory(a, b, m, self.bound_memory, self.bound_budget or 1 << 62,
                                         self.bound_time_budget or float("inf"))
                mf = trained.get((a, b))
                out[(a, b)] = mf if mf is not None and not dominates(6 * (a + b), mr, mf) else mr
        return out

    def improvement_memories(self) -> dict:
        """{(a, b): m''} of the perfect-recall improvement's starting responder (``improve_games`` > 0)."""
        if self.improve_games <= 0:
            return {}
        mems = self.memories()
        return {(a, b): choose_improvement_memory(a, b, mems[(a, b)], mr, self.bound_budget or 1 << 62)
                for (a, b), mr in self.bound_memories().items()}

    def train_memories(self) -> dict:
        """{(a, b): m_fine} of the groups trained against responders that remember more (each must
        remember more than its group's memory)."""
        out = {tuple(g): parse_memory(m) for g, m in self.train_memory_by_group}
        mems = self.memories() if out else {}
        for (a, b), mf in out.items():
            if (a, b) not in mems:
                raise ValueError(f"train_memory_by_group: no group {a}v{b} (a <= b <= {self.max_dice})")
            m = mems[(a, b)]
            if not remembers_more(6 * (a + b), mf, m):
                raise ValueError(f"train_memory_by_group: {a}v{b} with memory {m} cannot train against"
                                 f" responders remembering {mf}: they must remember more")
            if self.memory_budget and cfrbr_cost(a, b, m, mf).bytes > self.memory_budget:
                raise ValueError(f"train_memory_by_group: {a}v{b} against responders remembering {mf} does not"
                                 " fit the memory budget")
        return out

    def memories(self) -> dict:
        """{(a, b): m} for every group a <= b (None = perfect recall)."""
        if not self.budgeted:
            return {(a, b): block_memory(a, b, self.memory, self.perfect_recall_total)
                    for a in range(1, self.max_dice + 1) for b in range(a, self.max_dice + 1)}
        out = choose_memories(self.max_dice, self.group_iterations, self.memory_budget or 1 << 62,
                              self.time_budget or float("inf"))
        for (a, b), m in self.memory_by_group:
            m = parse_memory(m)
            if (a, b) not in out:
                raise ValueError(f"memory_by_group: no group {a}v{b} (a <= b <= {self.max_dice})")
            if self.memory_budget and group_cost(a, b, m).bytes > self.memory_budget:
                raise ValueError(f"memory_by_group: {a}v{b} with m = {m} does not fit the memory budget")
            out[(a, b)] = m
        return out


def group_iterations(default: int, by_total: tuple, a: int, b: int) -> int:
    """Iterations of group {a, b}: the schedule's entry for a + b dice in play, else ``default``."""
    return dict(by_total).get(a + b, default)


def manifest_parameters(params: DudoParams) -> dict:
    """The parameters as recorded in the manifest (an empty schedule, a zero ``stop_rel`` and zero bound
    parameters are left out, so stores built before they existed keep their manifest)."""
    d = asdict(params)
    for k in ("stop_rel", "bound_memory", "bound_budget", "bound_time_budget", "improve_games", "improve_seed"):
        if not d[k]:
            del d[k]
    if not d["iterations_by_total"]:
        del d["iterations_by_total"]
    else:
        d["iterations_by_total"] = [list(x) for x in d["iterations_by_total"]]
    for k in ("memory_by_group", "iterations_by_group", "train_memory_by_group"):
        if not d[k]:
            del d[k]
        else:
            d[k] = [[list(g), x] for g, x in d[k]]
    if not d["large_search"]:
        del d["large_search"]
    else:
        d["large_search"] = [int(x) for x in d["large_search"][:4]] + [
            [list(g) for g in x] for x in d["large_search"][4:5]] + [str(x) for x in d["large_search"][5:6]] + [
            [list(r) for r in x] for x in d["large_search"][6:7]]
    if not d["search_by_round"]:
        del d["search_by_round"]
    else:
        d["search_by_round"] = [[list(r), int(dp), int(it), str(gd)] for r, dp, it, gd in d["search_by_round"]]
    return d
