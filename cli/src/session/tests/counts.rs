//! Counts agree with their nouns ("1 op", "2 ops"), said by one helper,
//! `commands::counted`, and no list is printed empty (issue 34, item 10).

use super::*;

#[test]
fn issue_34_a_count_of_one_is_singular() {
    let mut s = Session::new();
    let ops = run(&mut s, ":ops x");
    assert!(ops.starts_with("function: 0 ops; function and Jacobian: 0 ops ("), "{ops}");
    assert!(ops.ends_with("), 1 nonzero"), "{ops}");
    let ops = run(&mut s, ":ops x*y");
    assert!(ops.starts_with("function: 1 op; function and Jacobian: 1 op ("), "{ops}");
    assert!(ops.ends_with("), 2 nonzeros"), "{ops}");
    assert!(run(&mut s, "hessian(a^2 + b + c + d + k + g + h)").starts_with(
        "# symmetric; the 1 nonzero of its lower triangle's 28 entries, (row, column): value; \
         rows and columns: a, b, c, d, k, g, h\n"
    ));
    // A point for a derivative of no variables: no empty list of them.
    assert_eq!(
        rendered(&mut s, "grad(1)(2)"),
        "  grad(1)(2)\n         ^^^\nerror: expected 0 arguments, found 1\n"
    );
    run(&mut s, "f(x) = x");
    assert_eq!(
        rendered(&mut s, "grad(f)(1, 2)"),
        "  grad(f)(1, 2)\n         ^^^^^^\nerror: expected 1 argument (x), found 2\n"
    );
}

#[test]
fn issue_34_no_variables_are_none_not_an_empty_list() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "grad(1)"), "# columns: none\n[]");
    assert_eq!(run(&mut s, "hessian(2)()"), "# rows and columns: none\n[]");
    assert_eq!(run(&mut s, "jacobian([1, 2])"), "# rows: 1, 2; columns: none\n[]");
}
