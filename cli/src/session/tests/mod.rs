//! The session's behaviour, line by line; `save_load` and `carets` hold the
//! generated tests.

use super::*;

mod carets;
mod combined;
mod counts;
mod functions;
mod higher;
mod orders;
mod parameters;
mod save_load;

fn run(s: &mut Session, line: &str) -> String {
    s.execute(line).unwrap_or_else(|e| panic!("{line}: {}", e.render(line)))
}

fn error(s: &mut Session, line: &str) -> SessionError {
    match s.execute(line) {
        Ok(out) => panic!("{line}: expected an error, got {out}"),
        Err(e) => e,
    }
}

/// The error as printed: the line, the caret, the message.
fn rendered(s: &mut Session, line: &str) -> String {
    error(s, line).render(line)
}

#[test]
fn defines_and_differentiates() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "f(x, y) = sin(x*y) + x^2"), "f(x, y) = sin(x * y) + x^2");
    assert_eq!(run(&mut s, "g = f(x, 2*x)"), "g(x) = sin(2 * x * x) + x^2");
    assert_eq!(run(&mut s, "diff(f, y)"), "x * cos(x * y)");
    assert_eq!(run(&mut s, "diff(x^3, x, 2)"), "6 * x");
    assert_eq!(run(&mut s, "grad(x*y)"), "# columns: x, y\n[y, x]");
    assert_eq!(run(&mut s, "grad(y*x)"), "# columns: y, x\n[x, y]", "variables in order of first appearance");
    assert_eq!(run(&mut s, "hessian(x*y)"), "# rows and columns: x, y\n[[0, 1],\n [1, 0]]");
    // Past six variables a sparse Hessian lists its lower triangle's
    // nonzeros, symbolically and at a point.
    run(&mut s, "f(a, b, c, d, k, g, h) = a*b + sin(c) + h^2 + k");
    assert_eq!(
        run(&mut s, "hessian(f)"),
        "# symmetric; the 3 nonzeros of its lower triangle's 28 entries, (row, column): value; \
         rows and columns: a, b, c, d, k, g, h\n(b, a): 1\n(c, c): -sin(c)\n(h, h): 2"
    );
    assert_eq!(
        run(&mut s, "hessian(f)(1, 2, 0, 4, 5, 6, 7)"),
        "# symmetric; the 3 nonzeros of its lower triangle's 28 entries, (row, column): value; \
         rows and columns: a, b, c, d, k, g, h\n(b, a): 1\n(c, c): -0\n(h, h): 2"
    );
    run(&mut s, "k(z) = z");
    assert_eq!(run(&mut s, "diff(f, z)"), "0", "z is a variable (of k) that f does not use");
    assert_eq!(
        run(&mut s, "jacobian([x*y, x + z])"),
        "# rows: x*y, x + z; columns: x, y, z\n[[y, x, 0],\n [1, 0, 1]]"
    );
}

#[test]
fn evaluates_through_cached_kernels() {
    let mut s = Session::new();
    run(&mut s, "f(x, y) = x*y + 1");
    assert_eq!(run(&mut s, "f(2, 3)"), "7");
    assert_eq!(run(&mut s, "f(4, -1/2)"), "-1");
    assert_eq!(s.compiled_kernels(), 1, "the second call reuses the kernel");
    assert_eq!(run(&mut s, "jacobian(f)(2, 3)"), "# rows: f; columns: x, y\n[[3, 2]]");
    assert_eq!(run(&mut s, "grad( f )(1, 5)"), "# columns: x, y\n[5, 1]");
    assert_eq!(run(&mut s, "grad(f)(2, 5)"), "# columns: x, y\n[5, 2]");
    assert_eq!(s.compiled_kernels(), 3, "grad(f) and grad( f ) are one form");
    assert_eq!(run(&mut s, "diff(x*y, y)(2, 5)"), "# at x = 2, y = 5\n2");
    assert_eq!(run(&mut s, "f(sin(0), 2^2)"), "1", "arguments are constant expressions");
    assert_eq!(run(&mut s, "f(x, 2)"), "2 * x + 1", "a variable argument makes an expression");
    // Redefinition replaces the function and drops the kernels built on it.
    run(&mut s, "f(x, y) = x - y");
    assert_eq!(s.cached_kernels(), 0);
    assert_eq!(run(&mut s, "f(2, 3)"), "-1");
    assert_eq!(run(&mut s, "jacobian(f)(2, 3)"), "# rows: f; columns: x, y\n[[1, -1]]");
    assert_eq!(run(&mut s, "2^10 + pi*0"), "1024");
    let e = rendered(&mut s, "jacobian(f)(2)");
    assert_eq!(e, "  jacobian(f)(2)\n             ^^^\nerror: expected 2 arguments (x, y), found 1\n");
}

#[test]
fn kernels_of_unchanged_definitions_survive_other_changes() {
    let mut s = Session::new();
    run(&mut s, "f(x) = x + 1");
    run(&mut s, "g(x) = 2*x");
    run(&mut s, "f(1)");
    run(&mut s, "g(1)");
    run(&mut s, "grad(g)(1)");
    run(&mut s, "g(x) = 3*x");
    let keys = s.kernels.keys();
    assert_eq!(keys, [KernelKey::Definition { name: "f".into(), generation: 1 }]);
    assert_eq!(run(&mut s, "g(1)"), "3");
}

#[test]
fn the_kernel_cache_is_bounded() {
    let mut s = Session::new();
    s.kernels = KernelCache::new(4);
    run(&mut s, "f(x) = x^2");
    for k in 0..10 {
        assert_eq!(
            run(&mut s, &format!("diff(f, x, {})(3)", k % 3)),
            ["# at x = 3\n9", "# at x = 3\n6", "# at x = 3\n2"][k % 3]
        );
        run(&mut s, &format!("f({k})"));
        assert!(s.cached_kernels() <= 4);
    }
    // Four keys (three orders and f) cycle through a cache of four: no
    // kernel was compiled twice.
    assert_eq!(s.compiled_kernels(), 4);
    run(&mut s, "grad(f)(1)");
    run(&mut s, "hessian(f)(1)");
    assert_eq!(s.cached_kernels(), 4);
    assert_eq!(s.compiled_kernels(), 6);
    // The least recently used went first: orders 1 and 2 (the loop ended
    // with order 0 and f).
    run(&mut s, "diff(f, x, 0)(1)");
    run(&mut s, "f(1)");
    assert_eq!(s.compiled_kernels(), 6);
    run(&mut s, "diff(f, x, 1)(1)");
    assert_eq!(s.compiled_kernels(), 7);
}

#[test]
fn derivatives_can_be_defined_and_nested() {
    let mut s = Session::new();
    run(&mut s, "f(x) = x^3");
    assert_eq!(run(&mut s, "df(x) = diff(f, x)"), "df(x) = 3 * x^2");
    assert_eq!(run(&mut s, "df(2)"), "12");
    assert!(s.execute("g = grad(f)").is_err());
    run(&mut s, "h(x, y) = x^2 * y^3");
    assert_eq!(run(&mut s, "diff(diff(h, x), y)"), "6 * x * y^2");
    assert_eq!(run(&mut s, "m(x, y) = diff(diff(h, x), y) + 1"), "m(x, y) = 6 * x * y^2 + 1");
    assert_eq!(run(&mut s, "m(1, 1)"), "7");
    // A variable named only by an outer diff is known to the inner one.
    assert_eq!(run(&mut s, "diff(diff(a*b, a), b)"), "1");
    let e = rendered(&mut s, "2 * hessian(f)");
    assert!(e.contains("hessian gives a matrix and cannot be part of an expression"), "{e}");
}

#[test]
fn errors_point_into_the_line_and_keep_the_state() {
    let mut s = Session::new();
    run(&mut s, "f(x) = x + 1");
    let e = error(&mut s, "g(x) = sine(x)");
    assert_eq!(e.span, Some((7, 11)));
    assert_eq!(
        e.render("g(x) = sine(x)"),
        "  g(x) = sine(x)\n         ^^^^\nerror: unknown function 'sine'; did you mean 'sin'?\n"
    );
    assert!(s.execute("f(1, 2)").is_err());
    assert!(s.execute("diff(f)").is_err());
    assert!(s.execute(":nope").is_err());
    assert_eq!(run(&mut s, "f(1)"), "2");
    assert_eq!(run(&mut s, ":vars"), "f(x) = x + 1");
}

#[test]
fn carets_count_chars_after_non_ascii_text() {
    let mut s = Session::new();
    assert_eq!(rendered(&mut s, "größe = 1"), "  größe = 1\n    ^\nerror: unexpected character 'ö'\n");
    assert_eq!(
        rendered(&mut s, "f(x) = x + ä"),
        "  f(x) = x + ä\n             ^\nerror: unexpected character 'ä'\n"
    );
    run(&mut s, "a = 1");
    assert_eq!(
        rendered(&mut s, ":clear a ä"),
        "  :clear a ä\n           ^\nerror: 'ä' is not defined; did you mean 'a'?\n"
    );
    // Tabs stay tabs under the line, so the caret stays under the error.
    assert_eq!(
        rendered(&mut s, "\tsine(1)"),
        "  \tsine(1)\n  \t^^^^\nerror: unknown function 'sine'; did you mean 'sin'?\n"
    );
}

#[test]
fn several_statements_run_in_order_until_an_error() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "a = 2; b = a * 3; b()"), "a = 2\nb = 6\n6");
    let e = error(&mut s, "c = 1; d = nope(1); e2 = 3");
    assert_eq!(
        e.render("c = 1; d = nope(1); e2 = 3"),
        "c = 1\n  c = 1; d = nope(1); e2 = 3\n             ^^^^\nerror: unknown function 'nope'\n"
    );
    assert_eq!(run(&mut s, ":vars"), "a = 2\nb = 6\nc = 1");
}

/// Issue 12: after `sin(x) = x^2`, `sin(3)` gave 9 but `sin(3) + 0` gave
/// 0.1411; `e = 3` and `in(x) = x` were accepted.
#[test]
fn issue_12_builtins_cannot_be_redefined() {
    let mut s = Session::new();
    let names = dstar::frontend::Op::function_names().chain(["pi", "e", "in", "out"]).chain(FORMS);
    for name in names {
        for line in [
            format!("{name}(x) = x^2"),
            format!("{name} = 3"),
            format!("f({name}) = 1"),
            format!("f(x, {name}) = 1"),
        ] {
            let e = error(&mut s, &line);
            let at = line.find(name).expect("the name is in the line");
            assert_eq!(e.span, Some((at, at + name.len())), "{line}");
            assert!(e.message.starts_with(&format!("'{name}' is a")), "{line}: {}", e.message);
        }
    }
    assert_eq!(run(&mut s, ":vars"), "");
    assert_eq!(run(&mut s, "sin(3) + 0"), run(&mut s, "sin(3)"));
}

/// Issue 12: `grad(fff)` printed `[1]` and `jacobian(F)` `[[1]]` after a typo.
#[test]
fn issue_12_unknown_names_in_derivative_forms_are_errors() {
    let mut s = Session::new();
    run(&mut s, "f(x, y) = x*y");
    run(&mut s, "force(m, a) = m*a");
    assert_eq!(
        rendered(&mut s, "grad(fff)"),
        "  grad(fff)\n       ^^^\nerror: 'fff' is neither a definition nor an argument of one\n"
    );
    assert_eq!(
        rendered(&mut s, "jacobian([f, F])"),
        "  jacobian([f, F])\n               ^\nerror: 'F' is neither a definition nor an argument of one; did you mean 'f'?\n"
    );
    assert!(error(&mut s, "hessian(forse)").message.ends_with("did you mean 'force'?"));
    // An inline expression is a function of its variables, in order of
    // first appearance; only a bare unknown name is taken for a typo.
    assert_eq!(run(&mut s, "diff(x*q, x)"), "q");
    assert_eq!(run(&mut s, "grad(sin(a*b))"), "# columns: a, b\n[b * t1, a * t1]\n  where t1 = cos(a * b)");
    assert_eq!(
        rendered(&mut s, "diff(f, yy)"),
        "  diff(f, yy)\n          ^^\nerror: 'yy' is not a variable of the function (its variables: x, y); did you mean 'y'?\n"
    );
    // Arguments of any definition are variables.
    assert_eq!(run(&mut s, "grad(m*x)"), "# columns: m, x\n[x, m]");
    assert_eq!(run(&mut s, "grad(x)"), "# columns: x\n[1]");
    // Outside derivative forms, expressions still discover their variables.
    assert_eq!(run(&mut s, "g = u + v"), "g(u, v) = u + v");
}

/// Issue 12: `diff(x^2, x, 18446744073709551615)` never returned; order
/// 1000 of `sin(x)*exp(x)` took 22 s.
#[test]
fn issue_12_repeated_differentiation_stops_and_is_bounded() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "diff(x^2, x, 18446744073709551615)"), "0");
    assert_eq!(run(&mut s, "diff(x^2, x, 2)"), "2");
    assert_eq!(run(&mut s, "diff(x^2, x, 0)"), "x^2");
    assert!(error(&mut s, "diff(x^2, x, 18446744073709551616)")
        .message
        .contains("at most 18446744073709551615"));
    // Derivatives that cycle are followed around the cycle.
    let fifth: f64 = run(&mut s, "diff(exp(2*x), x, 5)(0.5)").lines().last().unwrap().parse().unwrap();
    assert!((fifth - 32.0 * 1f64.exp()).abs() < 1e-12 * fifth);
    for (order, want) in [
        (4u64, "sin(x)"),
        (5, "cos(x)"),
        (6, "-sin(x)"),
        (7, "-cos(x)"),
        (1_000_000_000_000_000_003, "-cos(x)"),
    ] {
        assert_eq!(run(&mut s, &format!("diff(sin(x), x, {order})")), want, "order {order}");
    }
    assert_eq!(run(&mut s, "diff(exp(x), x, 123456789)"), "exp(x)");
    // Growing derivatives stop at the size or work limit with a clear error.
    s.budget = dstar::Budget { max_ops: 200, max_work: 10_000_000 };
    let e = error(&mut s, "diff(sin(x)/(1+x^2), x, 40)");
    assert!(e.message.contains("more than the limit of 200; ask for order"), "{}", e.message);
    s.budget = dstar::Budget { max_ops: 1_000_000, max_work: 20_000 };
    let e = error(&mut s, "diff(sin(x)*exp(x), x, 1000)");
    assert!(e.message.starts_with("order 1000 needs too much work"), "{}", e.message);
    let lower: u64 =
        e.message.rsplit("ask for order ").next().unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(
        s.execute(&format!("diff(sin(x)*exp(x), x, {lower})")).is_ok(),
        "the suggested order is within the limits"
    );
}

#[test]
fn repeated_derivatives_match_nested_ones() {
    // Following cycles and compacting the DAG must give what differentiating
    // one step at a time gives, on functions that grow, shrink and cycle.
    let mut s = Session::new();
    for f in
        ["sin(x)*exp(x)", "x^7 - 3*x^2", "cos(2*x)", "exp(-x)", "log(x)", "sinh(x) + cosh(x)", "1/(1+x^2)"]
    {
        let mut nested = format!("({f})");
        for order in 1..=6 {
            nested = format!("diff({nested}, x)");
            run(&mut s, &format!("nested(x) = {nested}"));
            for x in [0.3, 1.7] {
                let repeated: f64 = run(&mut s, &format!("diff({f}, x, {order})({x})"))
                    .lines()
                    .last()
                    .unwrap()
                    .parse()
                    .unwrap();
                let one_by_one: f64 = run(&mut s, &format!("nested({x})")).parse().unwrap();
                let scale = repeated.abs().max(1.0);
                assert!(
                    (repeated - one_by_one).abs() <= 1e-12 * scale,
                    "{f}, order {order}, x = {x}: {repeated} vs {one_by_one}"
                );
            }
        }
    }
}

#[test]
fn deep_lines_neither_overflow_nor_crawl() {
    let mut s = Session::new();
    let n = 100_000;
    let line = format!("g = {}x{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(run(&mut s, &line), "g(x) = x");
    assert_eq!(run(&mut s, &format!("grad({}x{})(2)", "(".repeat(n), ")".repeat(n))), "# columns: x\n[1]");
    let e = error(&mut s, &format!("{}x{}", "(".repeat(n), ")".repeat(n - 1)));
    assert_eq!(e.message, "unclosed '('");
    // Derivative forms nest 64 deep, not more.
    let nested = |depth: usize| format!("{}x^2{}", "diff(".repeat(depth), ", x)".repeat(depth));
    assert_eq!(run(&mut s, &nested(3)), "0");
    assert_eq!(run(&mut s, &nested(64)), "0");
    let e = error(&mut s, &nested(100_000));
    assert_eq!((e.message.as_str(), e.span), ("derivative forms nest at most 64 deep", Some((320, 324))));
}

#[test]
fn clear_and_reset_forget_definitions() {
    let mut s = Session::new();
    run(&mut s, "f(x) = x + 1; g(x) = 2*x; h = 3");
    run(&mut s, "f(1)");
    assert_eq!(run(&mut s, ":clear g h"), "forgot 2 definitions");
    assert_eq!(run(&mut s, ":vars"), "f(x) = x + 1");
    assert!(s.execute("g(1)").is_err());
    assert_eq!(run(&mut s, ":clear"), "forgot 1 definition");
    assert_eq!(s.cached_kernels(), 0);
    run(&mut s, "f(x) = x");
    assert_eq!(run(&mut s, ":reset"), "forgot 1 definition");
    assert_eq!(run(&mut s, ":vars"), "");
    assert!(run(&mut s, ":help").contains(":clear [NAMES]"));
}

#[test]
fn help_says_how_variables_are_ordered() {
    let mut s = Session::new();
    let help = run(&mut s, ":help");
    assert!(help.contains("in order of first appearance"), "{help}");
    assert!(help.contains("results name their rows and columns"), "{help}");
    // Every function of the table is listed, and no line is too wide.
    let words: Vec<&str> = help.split(|c: char| c.is_whitespace() || c == ',').collect();
    for f in dstar::frontend::Op::function_names() {
        assert!(words.contains(&f) || f == "ifelse", "{f}");
    }
    assert!(help.lines().all(|l| l.chars().count() <= 100), "{help}");
}

/// Issue 31: `:help` showed every derivative form but `taylor`.
#[test]
fn issue_31_help_shows_every_derivative_form_and_the_values() {
    let help = run(&mut Session::new(), ":help");
    for form in super::statement::FORMS {
        assert!(
            help.contains(&format!("  {form}(")) || help.contains(&format!("   {form}(")),
            "{form}: {help}"
        );
    }
    assert!(help.contains("nan, inf and -inf"), "{help}");
}

#[test]
fn completes_commands_functions_and_names() {
    let mut s = Session::new();
    run(&mut s, "speed(v) = v*2");
    assert_eq!(s.complete(":he"), [":help"]);
    assert_eq!(s.complete(":c"), [":clear"]);
    assert_eq!(s.complete("si"), ["sign", "sin", "sinh"]);
    assert_eq!(s.complete("sp"), ["speed"]);
}
