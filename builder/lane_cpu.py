"""The CPU seconds a build lane has used: its thread in the builder's process and its executor's worker processes.

A lane's store advances with the CPU it gets, not with the wall: beside other lanes at other niceness (``make serve``
builds Dudo at nice 10 and the rest at nice 19 on the same cores) its wall pace changes whenever another lane starts,
ends or changes how many cores it asks for, while its pace per CPU second stays its own. The schedule model
(``builder.lane_schedule``) reads each store's work per CPU second and each lane's share of the cores from these
counts. Linux only (``/proc``); elsewhere ``LaneCpu.seconds`` is None and the time left falls back to the wall pace.
"""
from __future__ import annotations

import os
import threading

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(path: str) -> list[str] | None:
    """The fields of a ``/proc/.../stat`` file after the command's name (the 3rd field on), None: gone or none."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return None
    return text.rpartition(")")[2].split()      # the command name, in parentheses, may hold spaces


def stat_cpu_seconds(path: str) -> float | None:
    """User plus system CPU seconds of the process or thread whose ``stat`` file is ``path`` (None: gone or none)."""
    fields = _stat_fields(path)
    try:
        return (int(fields[11]) + int(fields[12])) / _TICKS    # utime, stime: the 14th and 15th fields
    except (IndexError, ValueError, TypeError):
        return None


def machine_idle_seconds() -> float | None:
    """The seconds the machine's cores have been idle since it started, summed over them (None: no ``/proc``)."""
    try:
        with open("/proc/stat", "rb") as f:
            first = f.readline().split()
        return (int(first[4]) + int(first[5])) / _TICKS     # the cpu line's idle and iowait
    except (OSError, IndexError, ValueError):
        return None


class LaneCpu:
    """The cumulative CPU seconds of one lane: the thread that builds its stores and its executor's processes.

    A worker that exits (the pool restarted at a lower niceness, a lost worker) keeps the seconds last read from it,
    so that the count never goes back."""

    def __init__(self, executor, thread_id: int | None = None):
        self.executor = executor
        self.thread_id = threading.get_native_id() if thread_id is None else thread_id
        self._last: dict[str, float] = {}     # stat path -> CPU seconds last read from it
        self._lock = threading.Lock()

    def nice(self) -> int | None:
        """The niceness of the lane's thread (its workers take it), None where ``/proc`` does not say."""
        fields = _stat_fields(f"/proc/self/task/{self.thread_id}/stat")
        try:
            return int(fields[16])                      # the 19th field
        except (IndexError, ValueError, TypeError):
            return None

    def seconds(self) -> float | None:
        """CPU seconds used so far (None where ``/proc`` does not say)."""
        paths = [f"/proc/self/task/{self.thread_id}/stat"]
        paths += [f"/proc/{pid}/stat" for pid in self.executor.process_ids()]
        with self._lock:
            for path in paths:
                cpu = stat_cpu_seconds(path)
                if cpu is not None:
                    self._last[path] = max(cpu, self._last.get(path, 0.0))
            if not self._last:
                return None
            return sum(self._last.values())
