//! Numbers as values, read and shown the same way everywhere: a point
//! (`# @point`, `--at`), weights and directions on the command line, a
//! REPL call's arguments, and every number the command line and the REPL
//! print.
//!
//! A value is a number of the problem format with an optional sign, or
//! `nan`, `inf`, `-inf`; a number too large for double precision (`1e400`)
//! is an error, as it is in an expression. Values are shown in the fewest
//! digits that read back to the same double, in exponent form when very
//! large or small (`1e-150`, not 150 zeros), and non-finite ones as `nan`,
//! `inf` and `-inf` (the strings `--json` writes for them).

use crate::error::ParseErrorKind;

/// Reads a value (see the module doc); blanks around it are the caller's
/// to trim.
///
/// ```
/// use frontend::value::parse;
/// assert_eq!(parse("-2.5e-3"), Ok(-2.5e-3));
/// assert!(parse("nan").unwrap().is_nan());
/// assert_eq!(parse("-inf"), Ok(f64::NEG_INFINITY));
/// assert!(parse("1e400").is_err()); // too large for double precision
/// assert!(parse("infinity").is_err());
/// ```
///
/// # Errors
/// [`ParseErrorKind::NumberOutOfRange`] for a number too large for double
/// precision, [`ParseErrorKind::BadNumber`] for any other text.
pub fn parse(text: &str) -> Result<f64, ParseErrorKind> {
    let bad = || ParseErrorKind::BadNumber(text.to_string());
    if text == "nan" {
        return Ok(f64::NAN);
    }
    let (negative, magnitude) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let value = if magnitude == "inf" {
        f64::INFINITY
    } else {
        // The format's numbers only: Rust would also read "infinity", "NaN"
        // and "1e400" (as infinity).
        if !magnitude.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            || !magnitude.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            return Err(bad());
        }
        match magnitude.parse::<f64>() {
            Ok(v) if v.is_infinite() => return Err(ParseErrorKind::NumberOutOfRange(text.to_string())),
            Ok(v) => v,
            Err(_) => return Err(bad()),
        }
    };
    Ok(if negative { -value } else { value })
}

/// Reads a list of values separated by commas, blanks, or both (`1, 2`,
/// `1,2` and `1 2` are the same list): the one rule for `# @point`,
/// `# @params` and the command line's `--at`, `--params`, `--weights` and
/// `--direction`. An empty text is an empty list; an empty place between
/// two commas is an error.
///
/// ```
/// use frontend::value::parse_list;
/// assert_eq!(parse_list("1, 2"), Ok(vec![1.0, 2.0]));
/// assert_eq!(parse_list("1 2,3"), Ok(vec![1.0, 2.0, 3.0]));
/// assert_eq!(parse_list(" "), Ok(vec![]));
/// assert!(parse_list("1,,2").is_err());
/// assert!(parse_list("1,").is_err());
/// ```
///
/// # Errors
/// As [`parse`] for each value, and [`ParseErrorKind::Expected`] for a
/// comma with no value before or after it.
pub fn parse_list(text: &str) -> Result<Vec<f64>, ParseErrorKind> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut values = Vec::new();
    for piece in text.split(',') {
        let before = values.len();
        for word in piece.split_whitespace() {
            values.push(parse(word)?);
        }
        if values.len() == before {
            return Err(ParseErrorKind::Expected {
                expected: "a value before and after each comma",
                found: text.trim().to_string(),
            });
        }
    }
    Ok(values)
}

/// Shows a value (see the module doc).
///
/// ```
/// use frontend::value::show;
/// assert_eq!(show(0.1 + 0.2), "0.30000000000000004");
/// assert_eq!(show(2.0), "2");
/// assert_eq!(show(1e-150), "1e-150");
/// assert_eq!(show(-1.5e300), "-1.5e300");
/// assert_eq!(show(f64::NAN), "nan");
/// assert_eq!(show(f64::NEG_INFINITY), "-inf");
/// ```
pub fn show(v: f64) -> String {
    let a = v.abs();
    if v.is_nan() {
        "nan".to_string()
    } else if a.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if a != 0.0 && !(1e-5..1e16).contains(&a) {
        // The same bounds as the shortest round-trip form JSON writers use
        // (ryu, serde_json).
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_shows() {
        for v in [0.0, -0.0, 1.0, -2.5, 1e-5, 9.99e-6, 1e16, 1e15, 5e-324, f64::MAX, -f64::MIN_POSITIVE, 0.1]
        {
            assert_eq!(parse(&show(v)).map(f64::to_bits), Ok(v.to_bits()), "{v:e}");
        }
        for v in [f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(parse(&show(v)), Ok(v));
        }
        assert!(parse(&show(f64::NAN)).unwrap().is_nan());
    }

    #[test]
    fn reads_the_formats_numbers_and_nothing_else() {
        assert_eq!(parse(".5"), Ok(0.5));
        assert_eq!(parse("+6.02E23"), Ok(6.02e23));
        assert_eq!(parse("1e-400"), Ok(0.0));
        for bad in ["", "-", ".", "e5", "1e", "1..2", "NaN", "-nan", "Inf", "infinity", "0x10", " 1", "1,2"] {
            assert_eq!(parse(bad), Err(ParseErrorKind::BadNumber(bad.to_string())), "{bad:?}");
        }
        for big in ["1e400", "-1e309"] {
            assert_eq!(parse(big), Err(ParseErrorKind::NumberOutOfRange(big.to_string())));
        }
    }

    #[test]
    fn shows_large_and_small_numbers_with_an_exponent() {
        assert_eq!(show(1e150), "1e150");
        assert_eq!(show(2e-150), "2e-150");
        assert_eq!(show(123456.5), "123456.5");
        assert_eq!(show(-0.0), "-0");
    }
}
