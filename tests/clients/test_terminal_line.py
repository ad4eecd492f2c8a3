"""The play client's line reader: Ctrl-C is never lost, whenever it comes; lines and end of input as input() has them."""
import os
import pty
import signal
import threading

import pytest

from clients.play.terminal_line import InterruptibleLines


@pytest.fixture()
def sigint_raises():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # a test run may have SIGINT ignored
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_sigint_that_does_not_interrupt_the_wait_still_ends_it(sigint_raises):
    """The race input() loses: the signal's C handler runs but the blocked read is not interrupted. Sending the
    signal to another thread, once the main thread waits, makes that happen every time (its wait gets no EINTR);
    without the wakeup pipe the wait lasts until the fallback line 10 s later, and the test fails."""
    r, w = os.pipe()
    lines = InterruptibleLines(r)

    def other_thread():
        done.wait(0.3)  # the main thread is in its wait by then (if not, the handler raises before it: no harm)
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        if not done.wait(10):
            fallback.append(True)
            os.write(w, b"a line that should never be read\n")

    done = threading.Event()
    fallback = []
    t = threading.Thread(target=other_thread)
    try:
        with pytest.raises(KeyboardInterrupt):
            t.start()
            lines.read_line()
    finally:
        done.set()
        t.join()
        lines.close()
        os.close(r)
        os.close(w)
    assert not fallback, "the wait ended only with the fallback line"


def test_an_interrupt_already_waiting_beats_a_typed_line(sigint_raises):
    r, w = os.pipe()
    lines = InterruptibleLines(r)
    try:
        os.write(w, b"typed\n")
        os.write(lines.wake_w, bytes([signal.SIGINT]))  # what the C handler writes when it has run
        with pytest.raises(KeyboardInterrupt):
            lines.read_line()
        assert lines.read_line() == "typed"  # the line is still there for the next prompt
    finally:
        lines.close()
        os.close(r)
        os.close(w)


def test_lines_and_end_of_input_from_a_terminal():
    master, slave = pty.openpty()
    lines = InterruptibleLines(slave)
    try:
        os.write(master, "one word\nzwölf\n".encode())
        assert lines.read_line() == "one word"
        assert lines.read_line() == "zwölf"
        os.write(master, b"\x04")  # Ctrl-D on an empty line
        with pytest.raises(EOFError):
            lines.read_line()
    finally:
        lines.close()
        os.close(master)
        os.close(slave)
