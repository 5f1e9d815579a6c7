//! Property tests of the parser and printer: printing then parsing gives the
//! same DAG, and no input makes the parser panic.

use frontend::{parse_expr, parse_program, print_program, Op};
use proptest::prelude::*;
use testkit::same_bits;

/// The source-language functions of `arity` arguments, from the table of operations.
fn functions(arity: usize) -> Vec<&'static str> {
    Op::ALL.into_iter().filter(|op| op.arity() == arity).filter_map(Op::function_name).collect()
}

const INFIX: [&str; 6] = ["+", "-", "*", "/", "^", "**"];
const CMP: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];

/// Expression text whose leaves are placeholders `N00`..`N15` (names bound
/// later) and constants.
fn arb_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => (0..16u8).prop_map(|i| format!("N{i:02}")),
        1 => (-4.0..4.0f64).prop_map(|c| format!("{c}")),
        1 => prop::sample::select(vec!["pi", "e", "2", "0.5", "1e-3", "0"]).prop_map(String::from),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            (inner.clone(), prop::sample::select(INFIX.to_vec()), inner.clone())
                .prop_map(|(a, o, b)| format!("{a} {o} {b}")),
            (inner.clone(), prop::sample::select(INFIX.to_vec()), inner.clone())
                .prop_map(|(a, o, b)| format!("({a}) {o} ({b})")),
            inner.clone().prop_map(|a| format!("-{a}")),
            inner.clone().prop_map(|a| format!("-({a})")),
            (prop::sample::select(functions(1)), inner.clone()).prop_map(|(f, a)| format!("{f}({a})")),
            (prop::sample::select(functions(2)), inner.clone(), inner.clone())
                .prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
            (inner.clone(), prop::sample::select(CMP.to_vec()), inner.clone(), inner.clone(), inner)
                .prop_map(|(a, c, b, x, y)| format!("ifelse({a} {c} {b}, {x}, {y})")),
        ]
    })
}

/// A program: inputs, intermediates and outputs over earlier names.
fn arb_program() -> impl Strategy<Value = String> {
    (1..4usize, prop::collection::vec(arb_expr(), 1..8), 1..4usize).prop_map(|(n, exprs, outs)| {
        let mut names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let mut src = format!("in {}\n", names.join(", "));
        let bind = |text: &str, names: &[String]| {
            let mut t = text.to_string();
            for i in (0..16).rev() {
                t = t.replace(&format!("N{i:02}"), &names[i % names.len()]);
            }
            t
        };
        for (k, e) in exprs.iter().enumerate() {
            let text = bind(e, &names);
            if k + outs >= exprs.len() {
                src += &format!("out {text}\n");
            } else {
                src += &format!("w{k} = {text}\n");
                names.push(format!("w{k}"));
            }
        }
        src
    })
}

/// Placeholder `k` of a run's first body: an entry or value at index `i`.
fn first_leaf(k: usize, i: &str) -> String {
    match k % 6 {
        0 => format!("x[{i}]"),
        1 => format!("x[{i} + 1]"),
        2 => "y".into(),
        3 => format!("({i})"),
        4 => format!("d[{i}, 0]"),
        _ => format!("d[{i}, 1]"),
    }
}

/// Placeholder `k` of a run's second body, over the first run's entries.
fn second_leaf(k: usize, i: &str) -> String {
    match k % 4 {
        0 => format!("a[{i} - 1]"),
        1 => "a[0]".into(),
        2 => format!("x[{i}]"),
        _ => format!("({i})"),
    }
}

/// `text` with each placeholder `N00`..`N15` replaced by `leaf(k)`.
fn placed(text: &str, leaf: impl Fn(usize) -> String) -> String {
    let mut t = text.to_string();
    for k in (0..16).rev() {
        t = t.replace(&format!("N{k:02}"), &leaf(k));
    }
    t
}

/// Two runs over tables, the second reading the first's entries, and the
/// same program written out: `(with runs, written out)`.
fn arb_runs() -> impl Strategy<Value = (String, String)> {
    (1..6usize, arb_expr(), arb_expr()).prop_map(|(n, first, second)| {
        let head = format!("param d[{n}, 2]\nin x[{}], y\n", n + 1);
        let mut runs = head.clone();
        runs += &format!("for i in range({n})\n  a[i] = {}\nend\n", placed(&first, |k| first_leaf(k, "i")));
        runs += &format!(
            "for i in range(1, {})\n  out c[i] = {}\nend\n",
            n + 1,
            placed(&second, |k| second_leaf(k, "i"))
        );
        runs += "out total = sum(a)\n";
        let mut written = head;
        for i in 0..n {
            written += &format!("a[{i}] = {}\n", placed(&first, |k| first_leaf(k, &i.to_string())));
        }
        for i in 1..n + 1 {
            written += &format!("out c[{i}] = {}\n", placed(&second, |k| second_leaf(k, &i.to_string())));
        }
        let sum: Vec<String> = (0..n).map(|i| format!("a[{i}]")).collect();
        written += &format!("out total = {}\n", sum.join(" + "));
        (runs, written)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_run_is_its_body_written_out((runs, written) in arb_runs()) {
        let p = parse_program(&runs).map_err(|e| TestCaseError::fail(format!("{}\n{runs}", e.render(&runs))))?;
        let q = parse_program(&written).map_err(|e| TestCaseError::fail(format!("{}\n{written}", e.render(&written))))?;
        prop_assert!(p.same_as(&q), "{runs}\n=/=\n{written}");
        prop_assert_eq!(p.dag.len(), q.dag.len());
        let x: Vec<f64> = (0..p.inputs.len() + p.params.len()).map(|i| 0.3 + 0.7 * i as f64).collect();
        prop_assert!(same_bits(&frontend::eval_program(&p, &x), &frontend::eval_program(&q, &x)));
        let text = print_program(&p);
        let back = parse_program(&text).map_err(|e| TestCaseError::fail(e.render(&text)))?;
        prop_assert!(back.same_as(&p), "{text}");
    }

    #[test]
    fn table_and_run_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(vec![
        "x", "s", "i", "[", "]", ",", "=", "+", "-", "*", "(", ")", "\n", "for", "in", "range", "end",
        "sum", "out", "1", "2", "0", "1.5", "-1", "in x[2]", "param p[1, 2]", "f(a) = a",
    ]), 0..60)) {
        let text = format!("in x[3]\n{}", tokens.join(" "));
        if let Err(e) = parse_program(&text) {
            let rendered = e.render(&text);
            prop_assert!(rendered.contains('^'));
        }
    }

    #[test]
    fn print_then_parse_gives_the_same_dag(src in arb_program()) {
        let p = parse_program(&src).map_err(|e| TestCaseError::fail(format!("{}\n{src}", e.render(&src))))?;
        let text = print_program(&p);
        let q = parse_program(&text).map_err(|e| TestCaseError::fail(e.render(&text)))?;
        prop_assert!(p.same_as(&q), "{src}\n=>\n{text}");
        let x: Vec<f64> = (0..p.inputs.len()).map(|i| 0.3 + 0.7 * i as f64).collect();
        prop_assert!(same_bits(&frontend::eval_program(&p, &x), &frontend::eval_program(&q, &x)), "{}", text);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_program(&text);
        let _ = parse_expr(&text);
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(vec![
        "in", "out", "x", "y", "t", "=", "==", "<", "<=", "!=", ">", "+", "-", "*", "/", "^", "**", "(", ")",
        ",", ";", "\n", "sin", "pow", "ifelse", "min", "1", "2.5", ".5", "1e-3", "e", "pi", "#", "@point",
    ]), 0..60)) {
        let text = tokens.join(" ");
        if let Err(e) = parse_program(&text) {
            let rendered = e.render(&text);
            prop_assert!(rendered.contains('^'));
        }
        let _ = parse_expr(&text);
    }
}

#[test]
fn deep_nesting_gives_a_result_or_an_error() {
    let n = 100_000;
    let parens = format!("in x\nout {}x{}", "(".repeat(n), ")".repeat(n));
    assert!(parse_program(&parens).is_ok());
    let minus = format!("in x\nout {}x", "-".repeat(n));
    assert!(parse_program(&minus).is_ok());
    let unclosed = format!("in x\nout {}x", "(".repeat(n));
    assert!(parse_program(&unclosed).is_err());
    let calls = format!("{}x{}", "sin(".repeat(n), ")".repeat(n));
    let p = parse_expr(&calls).expect("deep calls parse");
    // Printing a 1e5-deep chain must not recurse either.
    let text = print_program(&p);
    assert!(parse_program(&text).expect("reparse").same_as(&p));
}

/// An argument of a call: a name alone (bound, unbound, a constant's, a
/// reserved word, a function's), or an expression, or a name before a
/// malformed token.
fn arb_argument() -> impl Strategy<Value = (String, bool)> {
    prop_oneof![
        12 => prop::sample::select(vec!["x0", "x1", "x2", "w", "pi", "e"]).prop_map(|a| (a.to_string(), true)),
        1 => prop::sample::select(vec!["zz", "in", "out", "g", "sin", "x0$"])
            .prop_map(|a| (a.to_string(), true)),
        3 => prop::sample::select(vec!["2*x1", "-x2", "x0 + w", "3", "sin(x0)", "x1 < x2", "g(x0, x1, x2, w)"])
            .prop_map(|a| (a.to_string(), false)),
    ]
}

/// A program whose calls take arguments from [`arb_argument`] (mostly as
/// many as the callee takes; sometimes another number, or a trailing
/// comma), written twice: names alone as they are, and each in
/// parentheses, which makes it an expression of its own.
fn arb_calls() -> impl Strategy<Value = (String, String)> {
    let callee = prop::sample::select(vec![("g", 4), ("hypot", 2), ("max", 2), ("atan2", 2), ("ifelse", 3)]);
    let call = callee.prop_flat_map(|(name, arity)| {
        let count = prop_oneof![6 => Just(arity), 1 => 0..6usize];
        let tail = prop_oneof![8 => Just(""), 1 => Just(","), 1 => Just(", x0")];
        (Just(name), count.prop_flat_map(|n| prop::collection::vec(arb_argument(), n)), tail)
    });
    prop::collection::vec(call, 1..4).prop_map(|calls| {
        let head =
            "in x0, x1, x2\nfunction g(a0, a1, a2, a3) -> (r)\n  r = a0 + 2*a1 - a2*a3\nend\nw = x0*x1\n";
        let mut forms = [head.to_string(), head.to_string()];
        for (k, (callee, args, tail)) in calls.iter().enumerate() {
            for (form, text) in forms.iter_mut().enumerate() {
                let args: Vec<String> = args
                    .iter()
                    .map(|(a, bare)| if *bare && form == 1 { format!("({a})") } else { a.clone() })
                    .collect();
                *text += &format!("out o{k} = {callee}({}{tail})\n", args.join(", "));
            }
        }
        let [bare, wrapped] = forms;
        (bare, wrapped)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The parser reads a call's arguments that are a name alone on a path
    /// of their own; a name in parentheses takes the general one.
    #[test]
    fn a_name_alone_is_the_same_argument_in_parentheses((bare, wrapped) in arb_calls()) {
        match (parse_program(&bare), parse_program(&wrapped)) {
            (Ok(p), Ok(q)) => {
                prop_assert!(p.same_as(&q), "{bare}\n=/=\n{wrapped}");
                prop_assert_eq!(p.dag.len(), q.dag.len());
                let x = [0.3, -1.2, 2.5];
                prop_assert!(same_bits(&frontend::eval_program(&p, &x), &frontend::eval_program(&q, &x)));
            }
            (Err(a), Err(b)) => {
                prop_assert_eq!(&a.kind, &b.kind, "{}\n{}", a.render(&bare), b.render(&wrapped));
                prop_assert_eq!(a.span.start.line, b.span.start.line);
            }
            (a, b) => prop_assert!(false, "{bare}: {:?}\n{wrapped}: {:?}", a.err(), b.err()),
        }
    }
}

/// A program binding `n` names, of three classes for the symbol table's
/// guess of the next binding (first byte and length: `v03`, `w04` and
/// `vw05`), every other one an input, the rest constants; and outputs that
/// read them in runs (forward, backward, repeated, skipping), with each
/// output's value. With `pad`, enough lines to turn the cache of recent
/// names on.
fn arb_reads() -> impl Strategy<Value = (String, Vec<f64>)> {
    let run = (0..40usize, 1..12usize, prop::sample::select(vec![-1i64, 0, 1, 2]));
    (2..40usize, prop::collection::vec(run, 1..12), any::<bool>()).prop_map(|(n, runs, pad)| {
        let name = |i: usize| format!("{}{i:02}", ["v", "w", "vw"][i % 3]);
        let inputs: Vec<usize> = (0..n).step_by(2).collect();
        let value = |i: usize| match inputs.iter().position(|&k| k == i) {
            Some(k) => 100.0 + k as f64,
            None => i as f64 + 0.5,
        };
        let mut text = format!("in {}\n", inputs.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", "));
        for i in (1..n).step_by(2) {
            text += &format!("{} = {}\n", name(i), value(i));
        }
        let mut expected = Vec::new();
        for (start, len, step) in runs {
            for k in 0..len as i64 {
                let i = (start as i64 + k * step).rem_euclid(n as i64) as usize;
                text += &format!("out o{} = {}\n", expected.len(), name(i));
                expected.push(value(i));
            }
        }
        if pad {
            text += &"\n".repeat(5000);
        }
        (text, expected)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every name reads its own binding, whatever the order of reading.
    #[test]
    fn every_name_reads_its_own_binding((text, expected) in arb_reads()) {
        let p = parse_program(&text).map_err(|e| TestCaseError::fail(e.render(&text)))?;
        let x: Vec<f64> = (0..p.inputs.len()).map(|k| 100.0 + k as f64).collect();
        prop_assert_eq!(frontend::eval_program(&p, &x), expected, "{}", text);
    }
}
