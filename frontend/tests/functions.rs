//! Functions in the problem format (issue 28): blocks and the short form,
//! calls as statements and in expressions, scopes, every error of the
//! contract at its line and column, printing that parses back, and sizes
//! that must not overflow the stack: a chain of 10^5 calls, 1,000 functions
//! each calling the one before.

use frontend::{eval_program, parse_program, print_program};

/// The format's own example (`docs/format.md`).
const PENDULUM: &str = "# @point 0.1 0.2 0.0 0.0 0.5
# @params 9.81 0.5
param g, len
in th, om, th1, om1, u

function pendulum(th, om, u, g, len) -> (dth, dom)
  dth = om
  dom = -g / len * sin(th) + u
end

sq(z) = z * z

function euler(th, om, u, g, len) -> (th_next, om_next)
  dth, dom = pendulum(th, om, u, g, len)
  th_next = th + 0.1 * dth
  om_next = om + 0.1 * dom
end

a, b = euler(th, om, u, g, len)
out gap1 = a - th1
out gap2 = b - om1
out cost = sq(u) + 0.01 * sq(om1)
";

/// The same program with every call written out by hand.
const PENDULUM_FLAT: &str = "param g, len
in th, om, th1, om1, u
dth = om
dom = -g / len * sin(th) + u
a = th + 0.1 * dth
b = om + 0.1 * dom
out gap1 = a - th1
out gap2 = b - om1
out cost = u * u + 0.01 * (om1 * om1)
";

fn point() -> Vec<f64> {
    vec![0.1, 0.2, 0.0, 0.0, 0.5, 9.81, 0.5]
}

#[test]
fn the_formats_example_has_the_values_of_its_calls_written_out() {
    let program = parse_program(PENDULUM).unwrap();
    assert_eq!(program.functions.len(), 3);
    assert_eq!(program.count_calls(), 3, "euler, and sq twice");
    let names: Vec<&str> = program.functions.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["pendulum", "sq", "euler"]);
    let flat = parse_program(PENDULUM_FLAT).unwrap();
    let (a, b) = (eval_program(&program, &point()), eval_program(&flat, &point()));
    assert_eq!(
        a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        b.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn printed_programs_parse_back_with_their_functions() {
    let program = parse_program(PENDULUM).unwrap();
    let text = print_program(&program);
    assert!(text.contains("function pendulum(th, om, u, g, len) -> (dth, dom)\n"), "{text}");
    assert!(text.contains("= euler(th, om, u, g, len)\n"), "{text}");
    let again = parse_program(&text).unwrap_or_else(|e| panic!("{}\n{text}", e.render(&text)));
    assert!(program.same_as(&again), "{text}");
    assert_eq!(eval_program(&program, &point()), eval_program(&again, &point()));
}

#[test]
fn a_call_of_the_same_function_on_the_same_arguments_is_one_site() {
    let program = parse_program("in x\nf(a) = sin(a) * a\nout y = f(x) + f(x) * f(2 * x)\n").unwrap();
    assert_eq!(program.count_calls(), 2);
}

#[test]
fn unused_results_and_repeated_arguments() {
    let source = "in x, y\nfunction f(a, b) -> (s, d, p)\n  s = a + b\n  d = a - b\n  p = a * b\nend\n\
                  s1, d1, p1 = f(x, x)\ns2, d2, p2 = f(y, 2)\nout z = s1 + p2\n";
    let program = parse_program(source).unwrap();
    assert_eq!(eval_program(&program, &[3.0, 5.0]), vec![6.0 + 10.0]);
}

/// Every error of the contract, with the line and column it names.
#[test]
fn errors_point_at_the_function_or_the_call() {
    let cases: [(&str, &str); 24] = [
        ("in x\nout y = g(x)\n", "2:9: unknown function 'g'"),
        ("in x\nf(a) = a\nf(b) = b\nout y = f(x)\n", "3:1: 'f' is already a function (defined on line 2)"),
        ("in x\nsin(a) = a\nout y = x\n", "2:1: 'sin' is a function and cannot be used as a name"),
        ("in x\nf(a, b) = a * b\nout y = f(x)\n", "3:9: 'f' takes 2 arguments, found 1"),
        (
            "in x\nfunction f(a) -> (b, c)\n  b = a\n  c = a\nend\np, q, r = f(x)\nout y = p\n",
            "6:11: 'f' has 2 results, found 3 names",
        ),
        (
            "in x\nfunction f(a) -> (b, c)\n  b = a\n  c = a\nend\nout y = f(x) + 1\n",
            "6:9: 'f' has 2 results; bind them all with a statement such as 'a, b = f(...)'",
        ),
        (
            "in x\nt = 2 * x\nfunction f(a) -> b\n  b = a * t\nend\nout y = f(x)\n",
            "4:11: 't' is not an argument of 'f' nor assigned above in it",
        ),
        (
            "in x\nfunction f(a) -> (b, c)\n  b = a\nend\nout y = x\n",
            "2:22: result 'c' of 'f' is not bound in its body",
        ),
        ("in x\nfunction f(a) -> b\n  b = a\n", "2:10: function 'f' has no 'end'"),
        // A statement of the main program inside a body: the error is at it.
        (
            "in x\nfunction f(a) -> b\n  b = a\nout y = f(x)\n",
            "4:1: 'out' cannot appear inside function 'f' (line 2): a body holds only",
        ),
        ("in x\nfunction f(a) -> b\n  in z\n  b = a\nend\nout y = x\n", "3:3: 'in' cannot appear inside function 'f'"),
        (
            "in x\nfunction f(a) -> b\n  param q\n  b = a\nend\nout y = x\n",
            "3:3: 'param' cannot appear inside function 'f' (line 2)",
        ),
        (
            "in x\nfunction f(a) -> b\n  function g(c) -> d\n  b = a\nend\nout y = x\n",
            "3:3: a function definition cannot appear inside function 'f' (line 2)",
        ),
        (
            "in x\nfunction f(a) -> b\n  g(c) = c\n  b = a\nend\nout y = x\n",
            "3:3: a function definition cannot appear inside function 'f' (line 2)",
        ),
        // Recursion and calls of functions defined below say the rule.
        ("in x\nf(a) = f(a)\nout y = x\n", "2:8: 'f' calls itself: recursion is not supported"),
        ("in x\nfunction f(a) -> b\n  b = 1 + f(a)\nend\nout y = x\n", "3:11: 'f' calls itself"),
        (
            "in x\nf(a) = g(a) + 1\ng(a) = f(a)\nout y = f(x)\n",
            "2:8: 'g' is defined below, on line 3; a function can only be called after (below) its definition",
        ),
        ("in x\nout y = h(x)\nfunction h(a) -> b\n  b = a\nend\n", "2:9: 'h' is defined below, on line 3"),
        // A misspelt function of the program is suggested as a built-in is.
        ("in x\nsquare(a) = a * a\nout y = squar(x)\n", "3:9: unknown function 'squar'; did you mean 'square'?"),
        ("in x\nfunction = 2\nout y = x\n", "2:1: 'function' is a keyword and cannot be used as a name"),
        ("in x, end\nout y = x\n", "1:7: 'end' is a keyword and cannot be used as a name"),
        ("in x\nf(a) = a\np, q = x + 1\nout y = p\n", "3:8: expected a call of a function after 'a, b ='"),
        ("in x\nf(a) = a\nout y = f + x\n", "3:9: 'f' is a function; call it as 'f(...)'"),
        ("in x\nf(a) = a\nf = 2\nout y = x\n", "3:1: 'f' is a function and cannot be used as a name"),
    ];
    for (source, expected) in cases {
        let error = parse_program(source).expect_err(source);
        let text = error.to_string();
        assert!(text.starts_with(expected), "{source:?}:\n  got      {text}\n  expected {expected}");
    }
}

/// A short-form function's result is its expression, whatever the names
/// of its arguments: one named as the function is an argument like any
/// other (it was once taken for the result, and the body dropped).
#[test]
fn an_argument_may_have_its_functions_name() {
    for (body, at, value) in [("f * 2", 2.0, 4.0), ("sin(f)", 2.0, 2f64.sin()), ("f^2 + f", 3.0, 12.0)] {
        let source = format!("in x\nf(f) = {body}\nout y = f(x)\n");
        let program = parse_program(&source).unwrap();
        assert_eq!(eval_program(&program, &[at]), vec![value], "{source}");
        assert_eq!(eval_program(&program.inlined(), &[at]), vec![value], "{source}");
    }
    // Two arguments, the second named as the function.
    let program = parse_program("in x, y\ng(a, g) = a - g\nout z = g(x, y)\n").unwrap();
    assert_eq!(eval_program(&program, &[5.0, 2.0]), vec![3.0]);
    // The long form names its results: `-> f` is the argument `f` itself.
    let program = parse_program("in x\nfunction f(f) -> f\nend\nout y = f(x) * 3\n").unwrap();
    assert_eq!(eval_program(&program, &[2.0]), vec![6.0]);
}

/// A chain of 10^5 calls, each result the next call's argument: parsed,
/// evaluated, printed and parsed again without deep recursion.
#[test]
fn a_chain_of_calls_does_not_overflow_the_stack() {
    let n = 100_000;
    let mut source = String::from("in x\nfunction step(a) -> b\n  b = a + 0.001 * sin(a)\nend\nt0 = x\n");
    for k in 1..=n {
        source += &format!("t{k} = step(t{})\n", k - 1);
    }
    source += &format!("out y = t{n}\n");
    let program = parse_program(&source).unwrap();
    assert_eq!(program.count_calls(), n);
    let mut want = 0.5f64;
    for _ in 0..n {
        want = want + 0.001 * want.sin();
    }
    assert_eq!(eval_program(&program, &[0.5]), vec![want]);
    let inlined = program.kernel().unwrap().inlined();
    assert_eq!(inlined.eval(&[0.5]), vec![want]);
}

/// 1,000 functions, each calling the one before: parsed, evaluated and
/// written out (the interpreter and the inliner descend one level per
/// function, which the stack holds).
#[test]
fn deeply_nested_functions_do_not_overflow_the_stack() {
    let mut source = String::from("in x\nf0(a) = sin(a)\n");
    for k in 1..1000 {
        source += &format!("f{k}(a) = f{}(a) * 0.5 + a\n", k - 1);
    }
    source += "out y = f999(x)\n";
    let program = parse_program(&source).unwrap();
    let mut want = 0.3f64.sin();
    for _ in 1..1000 {
        want = want * 0.5 + 0.3;
    }
    assert_eq!(eval_program(&program, &[0.3]), vec![want]);
    assert_eq!(program.kernel().unwrap().inlined().eval(&[0.3]), vec![want]);
    assert_eq!(frontend::call::inlined_ops(&program.dag, &program.output_nodes()), 1 + 2 * 999);
}

#[test]
fn each_outputs_written_out_size_is_its_own_cone_with_its_calls() {
    for source in [PENDULUM, PENDULUM_FLAT] {
        let program = parse_program(source).unwrap();
        let kernel = program.kernel().unwrap();
        let (dag, roots) = (kernel.dag(), kernel.roots());
        let each = frontend::call::inlined_ops_each(dag, roots);
        let alone: Vec<u64> = roots.iter().map(|&r| frontend::call::inlined_ops(dag, &[r])).collect();
        assert_eq!(each, alone);
        assert!(each.iter().all(|&ops| ops > 0));
    }
}
