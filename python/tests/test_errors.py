"""Parse errors carry line, column and the caret rendering."""

import pytest

import dstar


def test_parse_error_in_a_program():
    with pytest.raises(dstar.ParseError) as info:
        dstar.compile("in x, y\nt = x*y\nout f = sine(t)")
    e = info.value
    assert (e.line, e.col) == (3, 9)
    assert e.message == "unknown function 'sine'; did you mean 'sin'?"
    text = str(e)
    assert text.startswith("3:9: unknown function 'sine'")
    assert "out f = sine(t)" in text and "^" in text
    assert isinstance(e, ValueError)


def test_parse_error_in_an_expression():
    with pytest.raises(dstar.ParseError) as info:
        dstar.compile("sin(x*) + 1")
    assert info.value.line == 1 and info.value.col == 7


def test_parse_errors_stay_short_plain_text():
    # A 100,000-character line, a long unknown name, a terminal escape
    # sequence: the message shows a window of the line and escapes.
    for source in [
        "in x\nout " + "x+" * 50_000,
        "in x\nout x + " + "y" * 100_000,
        "in x\nout x + \x1b[31mred",
        "in x\nout x * 1e400",
    ]:
        with pytest.raises(dstar.ParseError) as info:
            dstar.compile(source)
        text = str(info.value)
        assert len(text) < 1000, len(text)
        assert not any(c < " " and c not in "\n\t" for c in text), repr(text)
    assert "too large for double precision" in info.value.message


def test_derivative_errors():
    with pytest.raises(dstar.ParseError):
        dstar.derivative("sin(", "x")
    with pytest.raises(ValueError, match="not a variable name"):
        dstar.derivative("sin(x)", "1x")


def test_inputs_with_a_program_is_refused():
    with pytest.raises(ValueError, match="inputs= is for a single expression"):
        dstar.compile("in x\nout x", inputs=["x"])


def test_unused_and_reordered_inputs():
    f = dstar.compile("x*y", inputs=["y", "z", "x"])
    assert f.input_names == ["y", "z", "x"]
    assert f.jacobian([2.0, 5.0, 3.0]).tolist() == [[3.0, 0.0, 2.0]]
