"""Rewrites a text .nl file (header 'g') in the binary variant (header
'b'), as AMPL's 'write b' lays it out and the ASL reads it: the ten header
lines as text (first letter 'b', arith 1: little-endian IEEE), then each
segment's key letter as one byte, integers as 4 bytes, reals as 8, a bound
type as its digit char, a string as its length and bytes. Constants with
integer values are written as 's' (2 bytes) or 'l' (4 bytes) where they
fit, so that all three kinds of constant are exercised.

A writer for tests only: dstar's reader is checked on its output against
the ASL's reading of the same bytes (python/tests/test_asl_oracle.py) and
against its own reading of the text file (frontend/tests/nl_binary.rs).

Run from this directory: python3 to_binary.py (rewrites binary/*.nl from *.nl).
"""

import pathlib
import struct
import sys

# o-codes and their number of operands (None: a count follows); those of
# opcode.hd that the fixtures and the models of python/tests use.
ARITY = {
    **{c: 2 for c in (0, 1, 2, 3, 4, 5, 6, 20, 21, 22, 23, 24, 28, 29, 30, 48, 55, 73, 76, 78)},
    **{c: 1 for c in (13, 14, 15, 16, 34, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 49, 50, 51, 52, 53, 77)},
    **{c: 3 for c in (35, 72)},
    **{c: None for c in (11, 12, 54, 70, 71)},
}


def _fields(line):
    return line.split("#", 1)[0].split()


def to_binary(text):
    """The bytes of the binary file for the text of a .nl file."""
    lines = [line for line in text.splitlines() if _fields(line)]
    header, body = lines[:10], iter(lines[10:])
    assert header[0].startswith("g"), "not a text .nl file"
    counts = [_fields(line) for line in header]
    n_vars, n_cons = int(counts[1][0]), int(counts[1][1])
    arith = counts[5] + ["0"] * (4 - len(counts[5]))
    arith[2] = "1"
    header[0] = "b" + header[0][1:]
    header[5] = " " + " ".join(arith)
    out = bytearray("\n".join(header).encode() + b"\n")

    def ints(*values):
        for v in values:
            out.extend(struct.pack("<i", int(v)))

    def real(value):
        out.extend(struct.pack("<d", float(value)))

    def expression():
        pending = 1
        while pending:
            f = _fields(next(body))
            key, rest = f[0][0], f[0][1:]
            pending -= 1
            if key == "o":
                code = int(rest)
                out.extend(b"o")
                ints(code)
                if ARITY[code] is None:
                    count = int(_fields(next(body))[0])
                    ints(count)
                    pending += count
                else:
                    pending += ARITY[code]
            elif key == "v":
                out.extend(b"v")
                ints(rest)
            elif key in "nls":
                value = float(rest)
                if value == int(value) and -(2**15) <= value < 2**15:
                    out.extend(b"s" + struct.pack("<h", int(value)))
                elif value == int(value) and -(2**31) <= value < 2**31:
                    out.extend(b"l")
                    ints(value)
                else:
                    out.extend(b"n")
                    real(value)
            else:
                raise ValueError(f"no binary form for the node {f}")

    def pairs(count, second):
        for _ in range(count):
            i, v = _fields(next(body))[:2]
            ints(i)
            second(v)

    def bounds(count):
        for _ in range(count):
            f = _fields(next(body))
            out.extend(f[0].encode())
            if f[0] == "5":
                ints(*f[1:3])
            else:
                for v in f[1:]:
                    real(v)

    for line in body:
        f = _fields(line)
        key, numbers = f[0][0], [f[0][1:]] + f[1:] if len(f[0]) > 1 else f[1:]
        out.extend(key.encode())
        if key in "CO":
            ints(*numbers)
            expression()
        elif key == "V":
            ints(*numbers)
            pairs(int(numbers[1]), real)
            expression()
        elif key in "JG":
            ints(*numbers)
            pairs(int(numbers[1]), real)
        elif key in "xd":
            ints(*numbers)
            pairs(int(numbers[0]), real)
        elif key == "r":
            bounds(n_cons)
        elif key == "b":
            bounds(n_vars)
        elif key == "k":
            ints(*numbers)
            for _ in range(int(numbers[0])):
                ints(_fields(next(body))[0])
        elif key == "S":
            kind, count, name = int(numbers[0]), int(numbers[1]), numbers[2].encode()
            ints(kind, count, len(name))
            out.extend(name)
            pairs(count, real if kind & 4 else ints)
        else:
            raise ValueError(f"no binary form for the segment {line!r}")
    return bytes(out)


def main():
    here = pathlib.Path(__file__).resolve().parent
    (here / "binary").mkdir(exist_ok=True)
    for path in sorted(here.glob("*.nl")):
        (here / "binary" / path.name).write_bytes(to_binary(path.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
