//! Session parameters (`param g = 9.81`): declared, read by definitions and
//! expressions as data, given to kernels at each call (a new value compiles
//! nothing), never differentiated, listed, forgotten, saved and loaded; and
//! a generated test of their values against the values written in.

use super::*;
use proptest::prelude::*;

/// A scratch directory (removed when dropped) and the path of `name` in it.
fn temp_file(name: &str) -> (testkit::Scratch, String) {
    let dir = testkit::scratch("dstar-params");
    let path = dir.path().join(name).display().to_string();
    (dir, path)
}

#[test]
fn a_parameter_is_declared_with_or_without_a_value() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "param g = 9.81"), "param g = 9.81");
    assert_eq!(
        run(&mut s, "param a = 2*pi, b, c = -inf"),
        "param a = 6.283185307179586\nparam b (no value)\nparam c = -inf"
    );
    // Declared again: a value changes it, no value keeps it.
    assert_eq!(run(&mut s, "param g, b = nan"), "param g = 9.81\nparam b = nan");
    assert_eq!(run(&mut s, "param g = 1.62; g"), "param g = 1.62\n1.62", "an expression of it is a number");
    assert_eq!(
        run(&mut s, ":vars"),
        "param g = 1.62\nparam a = 6.283185307179586\nparam b = nan\nparam c = -inf"
    );
    assert_eq!(run(&mut s, ":show a g"), "param a = 6.283185307179586\nparam g = 1.62");
    assert_eq!(s.complete("g"), ["g", "grad"]);
    // What a statement cannot declare, with the caret under it.
    for (line, message) in [
        ("param 3", "  param 3\n        ^\nerror: expected a parameter name\n"),
        ("param a =", "  param a =\n          ^\nerror: expected a value after '='\n"),
        ("param a b", "  param a b\n          ^\nerror: expected '=' and a value, or ','\n"),
        ("param a,", "  param a,\n         ^\nerror: expected a parameter name\n"),
        ("param sin", "  param sin\n        ^^^\nerror: 'sin' is a function and cannot be a parameter\n"),
        ("param diff", "  param diff\n        ^^^^\nerror: 'diff' is a derivative form and cannot be a parameter\n"),
        ("param inf = 1", "  param inf = 1\n        ^^^\nerror: 'inf' is a value and cannot be a parameter\n"),
        ("param q, q", "  param q, q\n           ^\nerror: 'q' is listed twice\n"),
        (
            "param q = x + 1",
            "  param q = x + 1\n            ^^^^^\nerror: a parameter's value is a number: a constant expression, nan or inf\n",
        ),
        (
            "param q = 2*g",
            "  param q = 2*g\n            ^^^\nerror: a parameter's value is a number: a constant expression, nan or inf\n",
        ),
    ] {
        assert_eq!(rendered(&mut s, line), message, "{line}");
    }
    // A failed statement declares nothing, not even the items before it.
    let _ = error(&mut s, "param z = 1, sin");
    assert!(!s.params.contains_key("z"));
    // `param` is a keyword, as in a file.
    assert_eq!(
        rendered(&mut s, "param"),
        "  param\n  ^^^^^\nerror: 'param' is a keyword and cannot be used as a name\n"
    );
    assert_eq!(
        rendered(&mut s, "param = 1"),
        "  param = 1\n  ^^^^^\nerror: 'param' is a keyword and cannot be defined\n"
    );
}

#[test]
fn a_name_is_a_parameter_or_a_definition_never_both() {
    let mut s = Session::new();
    run(&mut s, "f(x) = x^2; param a = 1");
    for (line, message) in [
        (
            "a = 3",
            "  a = 3\n  ^\nerror: 'a' is a parameter; to change its value write 'param a = 3'\n",
        ),
        ("a = x", "  a = x\n  ^\nerror: 'a' is a parameter and cannot be defined\n"),
        ("a(x) = x", "  a(x) = x\n  ^\nerror: 'a' is a parameter and cannot be defined\n"),
        ("h(y, a) = y", "  h(y, a) = y\n       ^\nerror: 'a' is a parameter and cannot be an argument\n"),
        ("param f", "  param f\n        ^\nerror: 'f' is a definition and cannot be a parameter\n"),
        ("param x = 2", "  param x = 2\n        ^\nerror: 'x' is an argument of 'f' and cannot be a parameter\n"),
        (
            "h(y) = y + w",
            "  h(y) = y + w\n             ^\nerror: 'w' is neither an argument nor a parameter; add it to the \
             arguments, or declare it with 'param w'\n",
        ),
    ] {
        assert_eq!(rendered(&mut s, line), message, "{line}");
    }
    assert_eq!(run(&mut s, ":vars"), "param a = 1\nf(x) = x^2");
}

#[test]
fn definitions_read_parameters_and_calls_use_their_values_now() {
    let mut s = Session::new();
    run(&mut s, "param g = 9.81");
    assert_eq!(run(&mut s, "h(t) = g*t^2/2"), "h(t) = g * t^2 / 2");
    assert_eq!(s.defs["h"].program.params, ["g"]);
    assert_eq!(run(&mut s, "h(2)"), "19.62");
    assert_eq!(s.compiled_kernels(), 1);
    run(&mut s, "param g = 1.62");
    assert_eq!(run(&mut s, "h(2)"), "3.24");
    assert_eq!(s.compiled_kernels(), 1, "a new value compiles nothing");
    // Variables discovered, parameters not among them.
    run(&mut s, "param k = 3");
    assert_eq!(run(&mut s, "v = k*x + y"), "v(x, y) = y + x * k");
    assert_eq!(run(&mut s, "v(1, 2)"), "5");
    // A constant of parameters is a function of no variables: `c()` evaluates it.
    assert_eq!(run(&mut s, "c = 2*k"), "c = 2 * k");
    assert_eq!(run(&mut s, "c()"), "6");
    // A parameter with a value is a number among a call's arguments.
    assert_eq!(run(&mut s, "h(k)"), run(&mut s, "h(3)"));
    // A parameter without a value: the call says which, and how to give it one.
    run(&mut s, "param m; e2(v) = m*v^2/2");
    assert_eq!(
        rendered(&mut s, "e2(3)"),
        "  e2(3)\n  ^^^^^\nerror: the parameter 'm' has no value; give it one with 'param m = VALUE'\n"
    );
    let compiled = s.compiled_kernels();
    run(&mut s, "param m = 2");
    assert_eq!(run(&mut s, "e2(3)"), "9");
    assert_eq!(s.compiled_kernels(), compiled + 1);
}

#[test]
fn parameters_are_declared_in_order_and_definitions_list_theirs_so() {
    let mut s = Session::new();
    run(&mut s, "param a = 2, b = 10, c = 100");
    // Read in the order c, a: listed in the order of declaration.
    run(&mut s, "f(x) = c*x + a");
    assert_eq!(s.defs["f"].program.params, ["a", "c"]);
    // Inlined into another definition, by name, with those it reads itself.
    assert_eq!(run(&mut s, "g(y) = b*f(y + 1)"), "g(y) = b * (a + c * (y + 1))");
    assert_eq!(s.defs["g"].program.params, ["a", "b", "c"]);
    assert_eq!(run(&mut s, "g(1)"), "2020");
    // A bare name inlines over the variables of the same names.
    run(&mut s, "k = f + 1");
    assert_eq!(s.defs["k"].program.inputs, ["x"]);
    assert_eq!(run(&mut s, "k(3)"), "303");
    run(&mut s, "param a = -2");
    assert_eq!((run(&mut s, "g(1)"), run(&mut s, "k(3)")), ("1980".to_string(), "299".to_string()));
}

#[test]
fn derivatives_are_by_variables_only_and_print_parameters_by_name() {
    let mut s = Session::new();
    run(&mut s, "param a = 3, b = 0.5");
    assert_eq!(run(&mut s, "diff(a*x^2, x)"), "2 * x * a");
    run(&mut s, "f(x, y) = a*x^2*y + b*y");
    assert_eq!(run(&mut s, "diff(f, y)"), "b + a * x^2");
    assert_eq!(run(&mut s, "grad(f)"), "# columns: x, y\n[2 * x * (y * a), b + a * x^2]");
    assert_eq!(
        run(&mut s, "hessian(f)"),
        "# rows and columns: x, y\n[[y * t1, t2],\n [t2, 0]]\n  where t1 = 2 * a\n        t2 = x * t1"
    );
    assert_eq!(
        run(&mut s, "jacobian([f, b*x])"),
        "# rows: f, b*x; columns: x, y\n[[2 * x * a * y, b + a * x^2],\n [b, 0]]"
    );
    assert_eq!(run(&mut s, "taylor(sin(a*x), x, 0, 3)"), "x * a - x^3 * a^3 / 6");
    assert_eq!(run(&mut s, "df = diff(f, x); df"), "df(x, y) = 2 * x * a * y\n2 * x * a * y");
    // At a point: the parameters' values now, no column of their own.
    assert_eq!(run(&mut s, "grad(f)(1, 2)"), "# columns: x, y\n[12, 3.5]");
    assert_eq!(run(&mut s, "jacobian(f)(1, 2)"), "# rows: f; columns: x, y\n[[12, 3.5]]");
    assert_eq!(run(&mut s, "hessian(f)(1, 2)"), "# rows and columns: x, y\n[[12, 6],\n [6, 0]]");
    assert_eq!(run(&mut s, "diff(f, x)(1, 2)"), "# at x = 1, y = 2\n12");
    assert_eq!(run(&mut s, "df(1, 2)"), "12");
    let compiled = s.compiled_kernels();
    run(&mut s, "param a = 1, b = -1");
    assert_eq!(run(&mut s, "grad(f)(1, 2)"), "# columns: x, y\n[4, 0]");
    assert_eq!(run(&mut s, "jacobian(f)(1, 2)"), "# rows: f; columns: x, y\n[[4, 0]]");
    assert_eq!(run(&mut s, "hessian(f)(1, 2)"), "# rows and columns: x, y\n[[4, 2],\n [2, 0]]");
    assert_eq!(run(&mut s, "diff(f, x)(1, 2)"), "# at x = 1, y = 2\n4");
    assert_eq!(run(&mut s, "df(1, 2)"), "4");
    assert_eq!(s.compiled_kernels(), compiled, "new values compiled nothing");
    // Never with respect to a parameter.
    for (line, at) in
        [("diff(f, a)", 8), ("diff(f, x, a)", 11), ("diff(f, x, 2, b)", 14), ("taylor(f, a, 0, 2)", 10)]
    {
        let e = error(&mut s, line);
        assert_eq!(
            e.message,
            format!(
                "'{}' is a parameter; derivatives are taken with respect to variables only",
                &line[at..at + 1]
            ),
            "{line}"
        );
        assert_eq!(e.span, Some((at, at + 1)), "{line}");
    }
    assert_eq!(
        rendered(&mut s, "taylor(f, x, a, 2)"),
        "  taylor(f, x, a, 2)\n               ^\nerror: expected a number; 'a' is a parameter\n"
    );
    assert_eq!(run(&mut s, "grad(f)(a, 1)"), run(&mut s, "grad(f)(1, 1)"), "a has a value: a number");
    // A derivative that no longer reads a parameter needs no value for it.
    run(&mut s, "param c; u(x) = x^2 + c; du = diff(u, x)");
    assert!(s.defs["du"].program.params.is_empty());
    assert_eq!(run(&mut s, "diff(u, x)(3)"), "# at x = 3\n6");
    assert_eq!(run(&mut s, "grad(u)(3)"), "# columns: x\n[6]");
    assert_eq!(run(&mut s, "du(3)"), "6");
    // Nor does a definition whose use of one folds away.
    run(&mut s, "w(x, z) = ifelse(z < 1, c, x); v(x) = w(x, 2)");
    assert_eq!((s.defs["w"].program.params.len(), s.defs["v"].program.params.len()), (1, 0));
}

#[test]
fn declaring_a_parameter_keeps_the_kernels_of_definitions() {
    let mut s = Session::new();
    run(&mut s, "f(x) = x + 1; f(1); grad(f)(1)");
    assert_eq!(s.cached_kernels(), 2);
    // `p` may now be read where a form's text read a variable.
    run(&mut s, "param p = 1");
    assert_eq!(s.kernels.keys(), [KernelKey::Definition { name: "f".into(), generation: 1 }]);
    assert_eq!(run(&mut s, "diff(p*x, x)(2)"), "# at x = 2\n1");
}

#[test]
fn clear_and_reset_forget_parameters() {
    let mut s = Session::new();
    run(&mut s, "param a = 1, b = 2, c; f(x) = a*x; g(x) = a + b*x");
    assert_eq!(
        rendered(&mut s, ":clear f b"),
        "  :clear f b\n           ^\nerror: the parameter 'b' is read by 'g'; forget both with ':clear g b'\n"
    );
    assert_eq!(
        rendered(&mut s, ":clear z"),
        "  :clear z\n         ^\nerror: 'z' is not defined; did you mean 'f'?\n"
    );
    assert_eq!(run(&mut s, ":clear c"), "forgot 1 parameter");
    assert_eq!(run(&mut s, ":clear g b"), "forgot 1 definition and 1 parameter");
    assert_eq!(run(&mut s, ":vars"), "param a = 1\nf(x) = x * a");
    // Forgotten, a name is free to be defined.
    assert_eq!(run(&mut s, "b = 3"), "b = 3");
    assert_eq!(run(&mut s, ":clear"), "forgot 2 definitions and 1 parameter");
    assert_eq!(run(&mut s, ":vars"), "");
    run(&mut s, "param a = 1; f(x) = a*x");
    assert_eq!(run(&mut s, ":reset"), "forgot 1 definition and 1 parameter");
    assert_eq!(run(&mut s, "a = 2"), "a = 2");
}

#[test]
fn save_and_load_restore_definitions_and_parameter_values() {
    let (_dir, path) = temp_file("saved.dstar");
    let mut s = Session::new();
    run(&mut s, "param g = 9.81, unused = 4, m = -0.1; h(t) = g*t^2/2; en(v) = m*v^2 + g; c = 3");
    assert_eq!(
        run(&mut s, &format!(":save {path}")),
        format!("saved 3 definitions and 2 parameters to {path}")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("# @params 9.81 -0.1\nparam g, m\nin t, v\n"), "{text}");
    let mut t = Session::new();
    assert_eq!(run(&mut t, &format!(":load {path}")), "loaded h(t), en(v), c; param g = 9.81, m = -0.1");
    assert_eq!(
        run(&mut t, ":vars"),
        "param g = 9.81\nparam m = -0.1\nh(t) = g * t^2 / 2\nen(v) = g + m * v^2\nc = 3"
    );
    for line in ["h(2)", "en(3)", "c()", "diff(en, v)"] {
        assert_eq!(run(&mut t, line), run(&mut s, line), "{line}");
    }
    for (name, def) in &s.defs {
        assert!(def.program.same_as(&t.defs[name].program), "{name}");
    }
    // `dstar eval` reads it, with the saved values.
    let program = dstar::frontend::parse_program(&text).unwrap();
    assert_eq!(
        (program.params.clone(), program.param_values.clone()),
        (vec!["g".into(), "m".into()], Some(vec![9.81, -0.1]))
    );
    // Issue 34: without a value for every parameter there is no '# @params'
    // line, and the values that exist were lost; each is a '# @value' line.
    run(&mut s, "param n; k(v) = n*v");
    run(&mut s, &format!(":save {path}"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("# @value g = 9.81\n# @value m = -0.1\nparam g, m, n\n"), "{text}");
    assert!(!text.contains("# @params"), "{text}");
    let mut t = Session::new();
    assert_eq!(
        run(&mut t, &format!(":load {path}")),
        "loaded h(t), en(v), c, k(v); param g = 9.81, m = -0.1, n (no value)"
    );
    // `dstar eval` reads the file, with no default values.
    let program = dstar::frontend::parse_program(&text).unwrap();
    assert_eq!((program.params.len(), program.param_values), (3, None));
    // Loaded into a session where a parameter has a value already: kept.
    let mut u = Session::new();
    run(&mut u, "param n = 5");
    assert_eq!(
        run(&mut u, &format!(":load {path}")),
        "loaded h(t), en(v), c, k(v); param g = 9.81, m = -0.1, n = 5"
    );
    assert_eq!(run(&mut u, "k(2)"), "10");
}

#[test]
fn load_reads_parameters_of_any_problem_file() {
    let (_dir, path) = temp_file("pendulum.dstar");
    std::fs::write(
        &path,
        "# @params 9.81 0.5\nparam g, len\nin th, om\nout dom = -g/len*sin(th)\nout dth = om\n",
    )
    .unwrap();
    let mut s = Session::new();
    assert_eq!(
        run(&mut s, &format!(":load {path}")),
        "loaded dom(th, om), dth(th, om); param g = 9.81, len = 0.5"
    );
    assert_eq!(s.defs["dom"].program.params, ["g", "len"]);
    assert!(s.defs["dth"].program.params.is_empty(), "only the parameters it reads");
    assert_eq!(run(&mut s, "dom(0, 1)"), "-0");
    assert_eq!(run(&mut s, "grad(dom)(0, 1)"), "# columns: th, om\n[-19.62, 0]");
    // Without '# @params': new parameters have no value, others keep theirs.
    std::fs::write(&path, "param g, k\nin x\nout f = g*x + k\n").unwrap();
    let mut t = Session::new();
    run(&mut t, "param g = 2");
    assert_eq!(run(&mut t, &format!(":load {path}")), "loaded f(x); param g = 2, k (no value)");
    run(&mut t, "param k = 1");
    assert_eq!(run(&mut t, "f(3)"), "7");
    // A file whose names would clash with the session's loads nothing.
    let mut u = Session::new();
    run(&mut u, "g = 1; k(y) = y");
    let e = error(&mut u, &format!(":load {path}"));
    assert_eq!(e.message, format!("cannot load {path}: 'g' would be both a parameter and a definition"));
    run(&mut u, ":clear g");
    let e = error(&mut u, &format!(":load {path}"));
    assert_eq!(e.message, format!("cannot load {path}: 'k' would be both a parameter and a definition"));
    let mut v = Session::new();
    run(&mut v, "q(k) = k");
    let e = error(&mut v, &format!(":load {path}"));
    assert_eq!(
        e.message,
        format!("cannot load {path}: 'k' would be both a parameter and an argument of 'q'")
    );
    assert!(v.params.is_empty() && v.defs.len() == 1);
    let mut w = Session::new();
    run(&mut w, "param x");
    let e = error(&mut w, &format!(":load {path}"));
    assert_eq!(
        e.message,
        format!("cannot load {path}: 'x' would be both a parameter and an argument of 'f'")
    );
}

#[test]
fn commands_on_expressions_with_parameters() {
    let mut s = Session::new();
    run(&mut s, "param a = 2, b; f(x, y) = a*sin(x*y) + b*y");
    assert!(run(&mut s, ":ops f").starts_with("function: "));
    let time = run(&mut s, ":time f");
    assert!(time.contains("(at x = 0.5... and the parameters' values;"), "{time}");
    let (_dir, dot) = temp_file("f.dot");
    assert!(run(&mut s, &format!(":dot f {dot}")).starts_with(&format!("wrote {dot}")));
    assert!(std::fs::read_to_string(&dot).unwrap().contains("label=\"a\""), "the partial by a's sin term");
}

/// Leaves of the generated expressions: variables, parameters, numbers.
const LEAVES: [&str; 7] = ["x", "y", "a", "b", "c", "0.5", "2"];

/// A random expression over [`LEAVES`], of the operations whose values the
/// frontend does not rewrite differently for a constant operand.
fn expression(rng: &mut u64, depth: u32) -> String {
    let mut next = |n: u64| {
        *rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*rng >> 33) % n
    };
    if depth == 0 || next(5) == 0 {
        return LEAVES[next(LEAVES.len() as u64) as usize].to_string();
    }
    let choice = next(10);
    let mut sub = || expression(rng, depth - 1);
    match choice {
        0 => format!("{} + {}", sub(), sub()),
        1 => format!("{} - {}", sub(), sub()),
        2 => format!("{} * {}", sub(), sub()),
        3 => format!("({}) / (1 + ({})^2)", sub(), sub()),
        4 => format!("sin({})", sub()),
        5 => format!("exp(-({})^2)", sub()),
        6 => format!("({})^{}", sub(), sub()),
        7 => format!("ifelse({} < {}, {}, {})", sub(), sub(), sub(), sub()),
        8 => format!("atan2({}, {})", sub(), sub()),
        _ => format!("-{}", sub()),
    }
}

/// Values the parameters take: signs, zeros, whole numbers, fractions.
const VALUES: [f64; 9] = [0.7, -1.3, 2.0, 0.0, -0.0, 1.0, -1.0, 1e-3, 3.5];

/// `text` with the parameters `a, b, c` written in as the numbers `values`.
fn written_in(text: &str, values: &[f64; 3]) -> String {
    let mut out = String::new();
    for word in text.split_inclusive(|c: char| !c.is_ascii_alphanumeric()) {
        let (name, rest) = word.split_at(word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()).len());
        match ["a", "b", "c"].iter().position(|p| *p == name) {
            Some(j) => out += &format!("({})", show::number(values[j])),
            None => out += name,
        }
        out += rest;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(testkit::cases(60, 2_000) as u32))]

    /// A definition reading parameters gives, at any point and for any
    /// values, the bits of the same definition with the values written in
    /// as numbers: the values are given to one kernel, compiled once.
    #[test]
    fn parameters_give_the_values_written_in(
        seed in any::<u64>(),
        settings in prop::collection::vec(prop::array::uniform3(0..VALUES.len()), 1..4),
        points in prop::collection::vec((-2.0f64..2.0, -2.0f64..2.0), 1..4),
    ) {
        let mut rng = seed;
        let body = expression(&mut rng, 4);
        let mut s = Session::new();
        run(&mut s, &format!("param a, b, c; f(x, y) = {body}"));
        for (i, setting) in settings.iter().enumerate() {
            let values = setting.map(|k| VALUES[k]);
            run(&mut s, &format!("param a = {}, b = {}, c = {}", values[0], values[1], values[2]));
            let mut written = Session::new();
            run(&mut written, &format!("f(x, y) = {}", written_in(&body, &values)));
            for &(x, y) in &points {
                let call = format!("f({x}, {y})");
                prop_assert_eq!(run(&mut s, &call), run(&mut written, &call), "{} at {:?}", body, values);
                let grad = format!("grad(f)({x}, {y})");
                let (with, without) = (run(&mut s, &grad), run(&mut written, &grad));
                let numbers = |text: &str| -> Vec<f64> {
                    let row = text.lines().nth(1).unwrap().trim_matches(|c| c == '[' || c == ']');
                    row.split(", ").map(|v| dstar::frontend::value::parse(v).unwrap()).collect()
                };
                // Rewritten for printing, a derivative may turn -0 into +0
                // (`x + 0 = x`, see factor::simplify's rules), which atan2
                // and a division by zero tell apart: with a zero written in
                // as a number, only the values are compared.
                if values.contains(&0.0) {
                    continue;
                }
                for (g, w) in numbers(&with).into_iter().zip(numbers(&without)) {
                    let tol = testkit::Tol { rel: 1e-12, abs: 1e-12 };
                    prop_assert!(!g.is_finite() || !w.is_finite() || testkit::close(g, w, tol), "{} of {} at {:?}: {} vs {}", grad, body, values, with, without);
                }
            }
            // One kernel for the value and one for the gradient, whatever the values.
            prop_assert_eq!(s.compiled_kernels(), 2, "after {} settings", i + 1);
        }
    }
}

/// Issue 34: `param g = 3; g*2` printed `2 * g`. An expression of no
/// variables whose parameters all have values is a number, as a call of a
/// definition at numbers is; so is such an argument of a call or a point.
#[test]
fn issue_34_an_expression_of_parameters_with_values_is_a_number() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "param g = 3; g*2"), "param g = 3\n6");
    assert_eq!(run(&mut s, "g"), "3");
    assert_eq!(run(&mut s, "g^2 + sqrt(g*12)"), "15");
    run(&mut s, "param m");
    assert_eq!(run(&mut s, "m*g"), "m * g", "m has no value");
    assert_eq!(run(&mut s, "g*x"), "g * x", "x is a variable");
    run(&mut s, "h(t) = g*t^2/2; c = g*2");
    assert_eq!(run(&mut s, "c"), "6");
    assert_eq!(run(&mut s, "c()"), "6");
    assert_eq!(run(&mut s, "h(g)"), "13.5");
    assert_eq!(run(&mut s, "h(2*g) - h(6)"), "0");
    assert_eq!(run(&mut s, "h(m)"), "g * m^2 / 2");
    assert_eq!(run(&mut s, "diff(h, t)(g)"), "# at t = 3\n9");
    assert_eq!(run(&mut s, "grad(h)(c())"), "# columns: t\n[18]");
    // A point's argument that is no number says why, under it.
    assert_eq!(
        rendered(&mut s, "grad(h)(m)"),
        "  grad(h)(m)\n          ^\nerror: the parameter 'm' has no value; give it one with 'param m = VALUE'\n"
    );
    assert_eq!(rendered(&mut s, "grad(h)(2*y)"), "  grad(h)(2*y)\n          ^^^\nerror: expected a number\n");
    // The values now.
    assert_eq!(run(&mut s, "param g = 1, m = 2; m*g"), "param g = 1\nparam m = 2\n2");
}

/// The session's count of argument names (what every statement asks
/// instead of passing over every definition's arguments) follows
/// definitions, redefinitions and `:clear` as the definitions themselves
/// say, and so does whether a name may become a parameter.
#[test]
fn argument_names_follow_definitions_redefinitions_and_clear() {
    let pool = ["x", "y", "z", "w"];
    let mut s = Session::new();
    // A fixed walk of 300 steps over 4 names and 4 argument names.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n) as usize
    };
    for _ in 0..300 {
        let name = format!("f{}", next(4));
        if next(4) == 0 {
            if s.defs.contains_key(&name) {
                run(&mut s, &format!(":clear {name}"));
            }
        } else {
            let args: Vec<&str> = pool.iter().copied().filter(|_| next(2) == 0).collect();
            let body = if args.is_empty() { "1".to_string() } else { args.join(" * ") };
            run(&mut s, &format!("{name}({}) = {body}", args.join(", ")));
        }
        let mut want: std::collections::HashMap<String, usize> = Default::default();
        for d in s.defs.values() {
            for a in &d.program.inputs {
                *want.entry(a.clone()).or_insert(0) += 1;
            }
        }
        let got: std::collections::HashMap<String, usize> =
            s.arguments.iter().map(|(k, v)| (k.clone(), *v)).collect();
        assert_eq!(got, want);
        for a in pool {
            let user = s.defs.iter().find(|(_, d)| d.program.inputs.iter().any(|i| i == a));
            assert_eq!(s.argument_of(a), user.map(|(n, _)| n.as_str()), "{a}");
        }
    }
}
