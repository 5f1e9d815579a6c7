//! Issue 12: the branch not taken must not leak into a derivative. Guards
//! people write, each at the point where the branch not taken has an
//! infinite or undefined derivative, differentiated by every accumulation
//! (D*, the eliminations, scarcity, the sweeps, the common-subchain
//! rewrite) and to second order: each gives exactly the derivative of the
//! branch taken.

mod accumulations;

use accumulations::{every_hessian, every_jacobian};

/// The kernel of `source` (a program text).
fn kernel(source: &str) -> frontend::Kernel {
    frontend::parse_program(source).expect("parses").kernel().expect("valid")
}

/// Asserts that every accumulation gives `jacobian` at `x` and every
/// Hessian of output 0 gives `hessian`, exactly.
fn assert_derivatives(source: &str, x: &[f64], jacobian: &[&[f64]], hessian: &[&[f64]]) {
    let function = kernel(source);
    let expected: Vec<Vec<f64>> = jacobian.iter().map(|row| row.to_vec()).collect();
    for (name, dense, _) in every_jacobian(&function, x) {
        assert_eq!(dense, expected, "{name}: Jacobian of {source:?} at {x:?}");
    }
    let expected: Vec<Vec<f64>> = hessian.iter().map(|row| row.to_vec()).collect();
    for (name, dense, _) in every_hessian(&function, 0, x) {
        assert_eq!(dense, expected, "{name}: Hessian of {source:?} at {x:?}");
    }
}

#[test]
fn issue_12_division_guarded_by_its_denominator() {
    // x/y has derivatives 1/y = inf and -x/y² = -inf at y = 0.
    let source = "in x, y\nout ifelse(y != 0, x/y, x)";
    assert_derivatives(source, &[1.5, 0.0], &[&[1.0, 0.0]], &[&[0.0, 0.0], &[0.0, 0.0]]);
    assert_derivatives(source, &[1.5, 2.0], &[&[0.5, -0.375]], &[&[0.0, -0.25], &[-0.25, 0.375]]);
}

#[test]
fn issue_12_square_root_guarded_at_zero() {
    let source = "in x\nout ifelse(x > 0, sqrt(x), 0)";
    assert_derivatives(source, &[0.0], &[&[0.0]], &[&[0.0]]);
    assert_derivatives(source, &[-1.0], &[&[0.0]], &[&[0.0]]);
    assert_derivatives(source, &[4.0], &[&[0.25]], &[&[-1.0 / 32.0]]);
}

#[test]
fn issue_12_max_with_a_square_root() {
    let source = "in x\nout max(x + 1, sqrt(x))";
    assert_derivatives(source, &[0.0], &[&[1.0]], &[&[0.0]]);
}

#[test]
fn issue_12_min_with_a_reciprocal() {
    // 1/x = inf at x = 0, so min takes y; d(1/x)/dx = -inf is not taken.
    let source = "in x, y\nout min(y, 1/x)";
    assert_derivatives(source, &[0.0, 2.0], &[&[0.0, 1.0]], &[&[0.0, 0.0], &[0.0, 0.0]]);
}

#[test]
fn issue_12_arcsine_outside_its_domain() {
    // asin(-2) and its derivatives are NaN; the branch taken is y*x.
    let source = "in x, y\nout ifelse(x >= 0, asin(x), y*x)";
    assert_derivatives(source, &[-2.0, 3.0], &[&[3.0, -2.0]], &[&[0.0, 1.0], &[1.0, 0.0]]);
}

#[test]
fn issue_12_log1p_guarded_at_its_pole() {
    // log1p(x) is -inf at x = -1 and its derivatives 1/(1 + x) and
    // -1/(1 + x)² are infinite there; the branch taken is 2x.
    let source = "in x\nout ifelse(x > -1, log1p(x), 2*x)";
    assert_derivatives(source, &[-1.0], &[&[2.0]], &[&[0.0]]);
    assert_derivatives(source, &[1.0], &[&[0.5]], &[&[-0.25]]);
}

#[test]
fn issue_12_pow_hessian_at_zero_base() {
    // d(x^y)/dy = x^y·ln x is 0·(-inf) at x = 0 and is built as
    // ifelse(x == 0, 0, x^y·ln x); its own derivatives must not multiply
    // that 0 by ln x' = 1/x = inf. Truth at (0, 2): gradient 0, H = [[2, 0], [0, 0]].
    let source = "in x, y\nout pow(x, y)";
    assert_derivatives(source, &[0.0, 2.0], &[&[0.0, 0.0]], &[&[2.0, 0.0], &[0.0, 0.0]]);
}

#[test]
fn issue_12_hessian_through_a_live_zero() {
    // The branch taken is t - 1 = x² - 1, whose derivative 2x crosses 0 at
    // x = 0; acos'(t + 1) = inf is not taken. The gradient must not test
    // its own value against 0 (that select would take the derivative of
    // its constant branch there): H = 2.
    let source = "in x\nt = x^2\na = acos(t + 1)\nout ifelse(t == t, min(a, t - 1), a)";
    assert_derivatives(source, &[0.0], &[&[0.0]], &[&[2.0]]);
}

#[test]
fn issue_12_cancelled_paths_absorb_the_branch_not_taken() {
    // t - t: the paths through t cancel to the constant 0, which must not
    // multiply the infinite cbrt'(0) of the branch not taken.
    let source = "in x\nt = ifelse(x <= 1, x, cbrt(x - 0.5))\nout t - t";
    assert_derivatives(source, &[0.5], &[&[0.0]], &[&[0.0]]);
}

#[test]
fn issue_12_user_products_with_indicators_keep_ieee_values() {
    // Select semantics are for derivatives only: a user's own product with
    // a 0/1 indicator is a product, 0 · inf = NaN, in the function's value.
    let program = frontend::parse_program("in x, y\nout ifelse(x < 0, 1, 0) * (1/y)").expect("parses");
    let jacobian = factor::jacobian(program.kernel().expect("valid"));
    let (values, _) = jacobian.eval(&[1.0, 0.0]);
    assert!(values[0].is_nan());
}
