//! Where an order may stand in `diff(f, x, ...)`, a name that is no
//! variable gets an error saying both what could stand there and what did.

use super::*;

#[test]
fn a_name_where_an_order_may_stand_says_both_what_was_expected_and_found() {
    let mut s = Session::new();
    run(&mut s, "f(x, y) = x^2 * y");
    for line in ["diff(f, x, two)", "diff(f, y, x, two)", "diff(f, x, 2, y, two)"] {
        let e = error(&mut s, line);
        assert_eq!(
            e.message,
            "expected a variable of the function (its variables: x, y) or a whole-number order, found 'two'",
            "{line}"
        );
    }
    // Right after the function, or after a written order, only a variable
    // may stand.
    for line in ["diff(f, two)", "diff(f, x, 2, two)"] {
        let e = error(&mut s, line);
        assert!(e.message.starts_with("'two' is not a variable of the function"), "{line}: {}", e.message);
    }
    assert_eq!(
        rendered(&mut s, "diff(f, x, 2.5)"),
        "  diff(f, x, 2.5)\n             ^^^\nerror: the order must be a whole number such as 2, found '2.5'\n"
    );
}
