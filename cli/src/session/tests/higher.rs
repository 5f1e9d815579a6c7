//! Issue 15: derivatives of any order and by several variables, and Taylor
//! polynomials, as forms anywhere an expression is allowed, printed as a
//! person would write them.

use super::*;

#[test]
fn higher_derivatives_print_as_a_person_writes_them() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "diff(x^5, x, 3)"), "60 * x^2");
    assert_eq!(run(&mut s, "diff(log(x), x, 10)"), "-362880 / x^10");
    assert_eq!(run(&mut s, "diff(sin(x), x, 4)"), "sin(x)");
    assert_eq!(run(&mut s, "diff(exp(2*x), x, 3)"), "8 * exp(2 * x)");
}

#[test]
fn mixed_partials_in_every_form_agree() {
    let mut s = Session::new();
    run(&mut s, "f(x, y) = x^3 * sin(y) + exp(x*y)");
    // The same partial written three ways, and in the other order.
    let ways =
        ["diff(f, x, 2, y)", "diff(diff(f, x, 2), y)", "diff(diff(diff(f, x), x), y)", "diff(f, y, x, 2)"];
    for (x, y) in [(0.3, -1.2), (1.5, 0.7)] {
        let values: Vec<f64> = ways
            .iter()
            .map(|w| run(&mut s, &format!("{w}({x}, {y})")).lines().last().unwrap().parse().unwrap())
            .collect();
        let want = 6.0 * x * f64::cos(y) + (2.0 * y + x * y * y) * f64::exp(x * y);
        for (w, v) in ways.iter().zip(&values) {
            assert!((v - want).abs() <= 1e-12 * want.abs().max(1.0), "{w} at ({x}, {y}): {v} vs {want}");
        }
    }
    assert_eq!(run(&mut s, "diff(x*y, x, y)"), "1");
    assert_eq!(run(&mut s, "diff(x^2*y^3, x, 2, y, 3)"), "12");
    assert_eq!(run(&mut s, "diff(x^2*y^3, x, 3, y)"), "0");
    // Anywhere an expression is allowed: in a definition, inside arithmetic.
    assert_eq!(
        run(&mut s, "g(x, y) = 1 + diff(f, x, y)"),
        "g(x, y) = t1 * t2 + 3 * x^2 * cos(y) + t2 + 1\n  where t1 = x * y\n        t2 = exp(t1)"
    );
    assert_eq!(run(&mut s, "g(0, 0)"), "2");
}

#[test]
fn taylor_polynomials() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "taylor(exp(x), x, 0, 4)"), "1 + x + x^2 / 2 + x^3 / 6 + x^4 / 24");
    assert_eq!(run(&mut s, "taylor(x^3, x, 1, 10)"), "1 + 3 * t1 + 3 * t1^2 + t1^3\n  where t1 = x - 1");
    // The point is any constant expression; the polynomial is a function.
    run(&mut s, "p(x) = taylor(sin(x), x, pi/2, 2)");
    assert_eq!(run(&mut s, "p(pi/2)"), "1");
    // Zero coefficients are no terms, whatever their sign (sin's even
    // derivatives at 0 are -0 as often as 0).
    assert_eq!(run(&mut s, "taylor(sin(x), x, 0, 5)"), "x - x^3 / 6 + x^5 / 120");
    for f in ["sin(x)", "cos(x)", "-sin(x)", "-cos(x)", "sin(x)*cos(x)", "sin(-x)", "x*cos(x)"] {
        for order in 1..12 {
            let p = run(&mut s, &format!("taylor({f}, x, 0, {order})"));
            assert!(!p.contains("0 *") && !p.contains("(0)") && !p.contains("-0 "), "{f} order {order}: {p}");
        }
    }
    let e = rendered(&mut s, "taylor(sin(x), x, 0)");
    assert!(e.contains("usage: taylor(f, x, a, order)"), "{e}");
}

/// Issue 31: `taylor(f, x, 0, 5)` of `sin(x*y) + x^2` printed `y^5 * x^5 /
/// 120 + 0 + y^3 * (-0.16666666666666666 * x^3) + x^2 + x * y + 0`: terms by
/// descending power, zero terms, a rounded coefficient beside an exact one
/// and `+ (-...)`; `taylor(exp(x)*sin(x), x, 0, 6)` bound a term used once
/// to a `where` name.
#[test]
fn issue_31_taylor_polynomials_read_as_written() {
    let mut s = Session::new();
    run(&mut s, "f(x, y) = sin(x*y) + x^2");
    for (form, want) in [
        ("taylor(f, x, 0, 5)", "x * y + x^2 - x^3 * y^3 / 6 + x^5 * y^5 / 120"),
        ("taylor(exp(x)*sin(x), x, 0, 6)", "x + x^2 + x^3 / 3 - x^5 / 30 - x^6 / 90"),
        ("taylor(sqrt(x), x, 1, 3)", "1 + t1 / 2 - t1^2 / 8 + t1^3 / 16\n  where t1 = x - 1"),
        ("taylor(-cos(x), x, 0, 4)", "-1 + x^2 / 2 - x^4 / 24"),
        (
            "taylor(exp(x), x, 1, 2)",
            "2.718281828459045 + 2.718281828459045 * t1 + 2.718281828459045 * t1^2 / 2\n  where t1 = x - 1",
        ),
    ] {
        assert_eq!(run(&mut s, form), want, "{form}");
    }
    // Generated: terms by ascending power, none zero, none added negated,
    // and a name only for what is used twice.
    let functions =
        ["sin(x*y) + x^2", "exp(x)*sin(x)", "cos(x)/(1 + x^2)", "log(1 + x)*y", "atan(x) - x*y^2"];
    for f in functions {
        for order in 1..10 {
            let text = run(&mut s, &format!("taylor({f}, x, 0, {order})"));
            let line = text.lines().next().unwrap();
            assert!(
                !line.contains("+ 0") && !line.contains("+ (-") && !line.contains("- (-"),
                "{f} {order}: {text}"
            );
            let powers: Vec<u32> = (line.match_indices("x^"))
                .map(|(i, _)| line[i + 2..].chars().take_while(char::is_ascii_digit).collect::<String>())
                .map(|d| d.parse().unwrap())
                .collect();
            assert!(powers.windows(2).all(|w| w[0] < w[1]), "{f} {order}: {text}");
            for binding in text.lines().skip(1) {
                let name =
                    binding.trim_start().trim_start_matches("where").split_whitespace().next().unwrap();
                assert!(text.matches(name).count() >= 3, "{f} {order}: {name} is used once: {text}");
            }
        }
    }
}

/// Huge orders end at once: exactly for polynomials and cycles, with an
/// error naming an order within the budget otherwise.
#[test]
fn huge_orders_end_at_once() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "diff(x^2*y, x, 18446744073709551615, y)"), "0");
    assert_eq!(run(&mut s, "diff(sin(x)*y, x, 18446744073709551615, y)"), "-cos(x)");
    let e = error(&mut s, "diff(sin(x)*exp(x), x, 18446744073709551615)");
    assert!(e.message.contains("ask for order 170 or lower"), "{}", e.message);
    let e = error(&mut s, "diff(x*y*sin(x), y, x, 18446744073709551615)");
    assert!(e.message.contains("ask for order"), "{}", e.message);
}
