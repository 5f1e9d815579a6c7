//! Derivatives combined in an expression print as one tidy expression.

use super::*;

#[test]
fn combined_derivatives_read_as_one_expression() {
    let mut s = Session::new();
    run(&mut s, "f(x, y) = x^2 * y");
    run(&mut s, "g(y, x) = x - y");
    assert_eq!(run(&mut s, "h(x, y) = diff(f, x) + diff(g, y)"), "h(x, y) = 2 * y * x - 1");
    assert_eq!(run(&mut s, "h(1, 2)"), "3");
    assert_eq!(run(&mut s, "diff(f, x) + diff(g, y)"), "2 * y * x - 1");
    // Without derivative forms, an expression prints as written.
    assert_eq!(run(&mut s, "k(x) = x * 2 + (-1)"), "k(x) = 2 * x + (-1)");
}
