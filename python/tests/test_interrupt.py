"""Issue 31: Ctrl-C during a long compile or a large batch raises
KeyboardInterrupt soon, not when the native work ends (36 s on a file of
200,000 terms): the library is asked to stop between units of work."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")

# A sum of 240,000 products of sines over 60 inputs, each term sharing a
# sine with the next (so that the terms are one piece, not a map: terms
# alike but for their numbers became one map, compiled in under a second):
# compiling its Jacobian takes 11 s here, evaluating it at 20,000 points
# longer.
PROLOGUE = """
import sys, time, numpy as np, dstar
n = 60
def s(i):
    return f"sin(x{i % n} * x{(7 * i + 1) % n} + {i})"
terms = [f"{s(i)} * {s(i - 1)} * x{(3 * i + 2) % n}" for i in range(1, 240_001)]
f = dstar.compile(" + ".join(terms), inputs=[f"x{i}" for i in range(n)])
"""


def interrupted(work, prepare=""):
    """Runs `work` in a child Python after `prepare`, sends it SIGINT a
    second after it starts, and returns (what it printed, seconds from the
    signal to its exit)."""
    script = PROLOGUE + textwrap.dedent(prepare) + textwrap.dedent(
        f"""
        print("start", flush=True)
        try:
            {work}
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "start"
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, _ = child.communicate(timeout=120)
        return out, time.monotonic() - sent
    finally:
        child.kill()


def test_ctrl_c_stops_a_long_compile():
    out, seconds = interrupted("f.jacobian(np.full(n, 0.5))")
    assert out.strip() == "KeyboardInterrupt"
    assert seconds < 5, f"{seconds:.1f} s from Ctrl-C to the exception"


def test_ctrl_c_stops_a_large_batch():
    out, seconds = interrupted(
        "f(np.full((20_000, n), 0.5))",
        prepare='f(np.full(n, 0.5)); print("compiled", file=sys.stderr)\n',
    )
    assert out.strip() == "KeyboardInterrupt"
    assert seconds < 5, f"{seconds:.1f} s from Ctrl-C to the exception"
