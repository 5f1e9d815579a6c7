//! Issue 15: `dstar diff EXPR x [order] y [order] ...`, derivatives of any
//! order and mixed partials printed as a person would write them.

/// Runs the `dstar` binary with `args`; returns (status, stdout, stderr).
fn dstar(args: &[&str]) -> (i32, String, String) {
    testkit::command::run(env!("CARGO_BIN_EXE_dstar"), args)
}

fn diff(args: &[&str]) -> String {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    let (status, stdout, stderr) = dstar(&all);
    assert_eq!(status, 0, "dstar diff {args:?}: {stderr}");
    stdout.trim_end().to_string()
}

fn refused(args: &[&str]) -> String {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    let (status, stdout, stderr) = dstar(&all);
    assert_eq!((status, stdout.as_str()), (2, ""), "dstar diff {args:?}");
    stderr
}

#[test]
fn golden_printed_forms() {
    for (args, want) in [
        (&["x^5", "x", "3"][..], "60 * x^2"),
        (&["log(x)", "x", "10"], "-362880 / x^10"),
        (&["sin(x)", "x", "4"], "sin(x)"),
        (&["x^3 * sin(y)", "x", "2", "y"], "6 * x * cos(y)"),
        (&["x*y", "x", "y"], "1"),
        (&["x^2 * y^3", "y", "x", "2"], "6 * y^2"),
        (&["x^2", "x", "18446744073709551615"], "0"),
        (&["exp(-x) * y", "x", "999", "y"], "-exp(-x)"),
        // Issue 31: like terms collect (order 3 printed `t1 = sin(x);
        // exp(x) * (2 * cos(x) - 3 * t1 + t1)`).
        (&["exp(x)*sin(x)", "x", "3"], "2 * (cos(x) - sin(x)) * exp(x)"),
        (&["exp(x)*sin(x)", "x", "4"], "-4 * sin(x) * exp(x)"),
        (&["exp(x)*sin(x)", "x", "5"], "-4 * (cos(x) + sin(x)) * exp(x)"),
    ] {
        assert_eq!(diff(args), want, "dstar diff {args:?}");
    }
}

#[test]
fn orders_must_follow_variables() {
    assert!(refused(&["x", "3"]).contains("the order 3 must follow a variable"));
    assert!(refused(&["x", "x", "2", "3"]).contains("the order 3 must follow a variable"));
    assert!(refused(&["x", "x", "18446744073709551616"])
        .contains("the order must be at most 18446744073709551615"));
    let e = refused(&["sin(x)*exp(x)", "x", "18446744073709551615"]);
    assert!(e.contains("ask for order 170 or lower"), "{e}");
}

/// The issue's target: order 20 of `sin(x*y)/(1+x^2)` was 218 MB of text.
#[test]
fn order_twenty_is_small() {
    let text = diff(&["sin(x*y)/(1+x^2)", "x", "20"]);
    assert!(text.len() < 10_000, "{} bytes", text.len());
}

/// Issue 31: orders and variables are read as the REPL reads them: `-1` is
/// no order (clap took it for an option), and a variable the expression
/// does not use is an error with a suggestion (it printed 0, where the
/// REPL's `diff(f, z)` is an error).
#[test]
fn issue_31_orders_and_variables_read_as_in_the_repl() {
    assert_eq!(refused(&["x^2", "x", "-1"]), "error: the order must be 0 or more, found '-1'\n");
    assert_eq!(
        refused(&["x^2", "x", "2.5"]),
        "error: the order must be a whole number such as 2, found '2.5'\n"
    );
    let e = refused(&["x^2", "z"]);
    assert_eq!(e, "error: 'z' is not a variable of the function (its variables: x); did you mean 'x'?\n");
    assert!(refused(&["x", "z", "3"]).contains("'z' is not a variable of the function"));
}
