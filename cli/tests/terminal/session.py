"""Drives `dstar repl` in a pseudo-terminal, as a person at a keyboard would.

Usage: session.py DSTAR HISTORY_FILE. Exits 0 if every step behaved, else
prints what the terminal showed and exits 1. Run by tests/repl_terminal.rs.
"""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

binary, history = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.environ["DSTAR_HISTORY"] = history
    os.environ["TERM"] = "xterm"
    os.execv(binary, [binary, "repl"])
# A wide terminal, so that no line wraps.
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 500, 0, 0))

screen = b""
seen = 0  # what expect() has already matched


def fail(why):
    print(f"FAILED: {why}\n--- the terminal showed:\n{screen.decode(errors='replace')}")
    os.kill(pid, signal.SIGKILL)
    sys.exit(1)


def expect(text, timeout=120.0):
    """Waits for `text` after what was matched before; returns the seconds waited."""
    global screen, seen
    start = time.monotonic()
    needle = text.encode()
    while True:
        at = screen.find(needle, seen)
        if at >= 0:
            seen = at + len(needle)
            return time.monotonic() - start
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            fail(f"no {text!r} within {timeout} s")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                fail(f"the REPL ended while waiting for {text!r}")
            if not chunk:
                fail(f"the REPL ended while waiting for {text!r}")
            screen += chunk


def send(text):
    os.write(fd, text.encode())


def history_lines():
    with open(history, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


expect("dstar> ")
send("f(x) = x^2 + 1\r")
expect("f(x) = x^2 + 1\r\n")
expect("dstar> ")

# History is written line by line, not only at the end.
if "f(x) = x^2 + 1" not in history_lines():
    fail(f"the history file has no 'f(x) = x^2 + 1' while the REPL runs: {history_lines()}")

# A long computation (19 derivatives of order 28 of a 30-deep composition,
# each near the work and size budgets, seconds in all), stopped by Ctrl-C:
# the prompt comes back at once and the line leaves nothing behind.
send("s(x) = sin(x)*exp(x)\r")
expect("dstar> ")
nested = "x"
for _ in range(30):
    nested = f"sin(exp({nested}))"
send(f"r(x) = {nested}\r")
expect("dstar> ")
long_line = "; ".join(["a(x) = diff(r, x, 28)"] + [f"a{i}(x) = diff(r, x, 28)" for i in range(1, 19)])
send(long_line + "\r")
expect(long_line)
time.sleep(1.0)
if screen.find(b"dstar> ", seen) >= 0:
    fail("the long computation ended within a second: it cannot test Ctrl-C")
send("\x03")
waited = expect("error: interrupted")
expect("dstar> ")
if waited > 5:
    fail(f"the prompt took {waited:.1f} s to come back after Ctrl-C")

send("f(3)\r")
expect("10\r\n")
expect("dstar> ")
send(":vars\r")
expect("f(x) = x^2 + 1\r\ns(x) = sin(x) * exp(x)\r\n")
expect("dstar> ")
if b"a(x)" in screen[screen.rfind(b":vars"):]:
    fail("the interrupted line defined something")

# Ctrl-C while typing cancels the line; the session goes on.
send("f(")
time.sleep(0.3)
send("\x03")
expect("dstar> ")
send("f(2)\r")
expect("5\r\n")
expect("dstar> ")

lines = history_lines()
for line in ["f(x) = x^2 + 1", long_line, "f(3)", ":vars", "f(2)"]:
    if line not in lines:
        fail(f"the history file lacks {line!r}: {lines}")

# Killed without a chance to save: the history is already on disk.
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
if "f(2)" not in history_lines():
    fail("the history was lost when the REPL was killed")
print("ok")
