"""One line from a terminal that Ctrl-C always interrupts.

`input()` loses a Ctrl-C that arrives after Python's last check for signals and before its read() blocks: the
signal's C handler has run, the read has not begun, and it then waits for a line that never comes. Reading only
once select() says the terminal or the signal wakeup pipe is ready closes that window: the handler writes to the
pipe whenever it runs, before or during the wait.
"""
from __future__ import annotations

import os
import select
import signal
import sys
import threading


class InterruptibleLines:
    """Reads lines from a terminal file descriptor; a SIGINT raises KeyboardInterrupt even when it came early."""

    def __init__(self, fd: int):
        self.fd = fd
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        os.set_blocking(self.wake_r, False)
        self._previous = signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)

    def close(self) -> None:
        signal.set_wakeup_fd(self._previous)
        os.close(self.wake_r)
        os.close(self.wake_w)

    def _interrupted(self) -> bool:
        try:
            return signal.SIGINT in os.read(self.wake_r, 256)
        except BlockingIOError:
            return False

    def read_line(self) -> str:
        """The next line without its newline; EOFError at end of input (Ctrl-D on an empty line)."""
        got = b""
        while True:
            ready, _, _ = select.select([self.fd, self.wake_r], [], [])
            if self.wake_r in ready and self._interrupted():
                raise KeyboardInterrupt
            if self.fd in ready:
                chunk = os.read(self.fd, 4096)  # a terminal in canonical mode gives at most one line a read
                if not chunk:
                    if got:
                        return got.decode(errors="replace")
                    raise EOFError
                got += chunk
                if got.endswith(b"\n"):
                    return got[:-1].decode(errors="replace")


def for_stdin() -> InterruptibleLines | None:
    """The reader for standard input when it is a terminal and we are the main thread (where signals land)."""
    if not sys.stdin.isatty() or threading.current_thread() is not threading.main_thread():
        return None
    return InterruptibleLines(sys.stdin.fileno())
