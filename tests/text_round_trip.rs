//! Issue 34 (items 5 and 14): derivative programs written as text parse
//! back and compute what they were printed from, bit for bit, whatever the
//! program has: parameters (the printer indexed past its names and
//! panicked) and functions (the text called derivative functions `f'` it
//! never defined).
//!
//! Generated programs with functions and parameters
//! ([`testkit::functions`]): the Jacobian text of [`dstar::jacobian`], the
//! Hessian text of [`dstar::hessian`] of a scalar output, and the
//! Lagrangian Hessian as `dstar emit --hessian` writes it. The short run
//! checks 24 programs; `DSTAR_LONG=1` checks 600.

use dstar::frontend::{eval, parse_program, print_program, Output, Program};
use testkit::{same, Rng};

fn parse(text: &str, what: &str) -> Program {
    parse_program(text).unwrap_or_else(|e| panic!("{what}: {}\n{text}", e.render(text)))
}

/// The point and parameters of a generated program, as one vector.
fn point(program: &Program) -> Vec<f64> {
    let x = program.point.clone().expect("a point");
    let p = program.param_values.clone().unwrap_or_default();
    x.into_iter().chain(p).collect()
}

/// `text` parsed back computes `expected` at `at`, bit for bit.
fn computes(text: &str, at: &[f64], expected: &[f64], what: &str) {
    let again = parse(text, what);
    let got = dstar::frontend::eval_program(&again, at);
    assert_eq!(got.len(), expected.len(), "{what}: outputs\n{text}");
    for (k, (a, b)) in got.iter().zip(expected).enumerate() {
        assert!(same(*a, *b), "{what}: output {k}: {a:e} parsed back, {b:e} printed\n{text}");
    }
}

fn check(seed: u64) {
    let mut rng = Rng::new(seed);
    let generated = testkit::functions::generate(&mut rng, [10, 30, 60][seed as usize % 3]);
    let what = format!("seed {seed}\n{}", generated.structured);
    let program = parse(&generated.structured, &what);
    let at = point(&program);

    // The Jacobian: values, then the nonzero entries.
    let text = dstar::jacobian(&generated.structured).unwrap_or_else(|e| panic!("{what}: {e}"));
    let jacobian = dstar::factor::jacobian(program.kernel().expect("a kernel"));
    let mut roots = program.output_nodes();
    roots.extend(jacobian.entries().map(|e| e.node));
    computes(&text, &at, &eval(jacobian.dag(), &roots, &at), &format!("{what}\njacobian"));

    // The Hessian of the first output alone.
    let mut scalar = program.clone();
    scalar.outputs.truncate(1);
    let scalar_text = print_program(&scalar);
    // The Hessian of the text as dstar::hessian reads it (printing may
    // reorder commutative operands, which changes rounding downstream).
    let scalar = parse(&scalar_text, &what);
    let text = dstar::hessian(&scalar_text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let hessian = dstar::factor::hessian(scalar.kernel().expect("a kernel"), 0);
    let mut roots = scalar.output_nodes();
    roots.extend(hessian.gradient().map(|(_, node)| node));
    roots.extend(hessian.lower_entries().map(|e| e.node));
    computes(&text, &at, &eval(hessian.dag(), &roots, &at), &format!("{what}\nhessian"));

    // The Lagrangian Hessian, its weights as parameters after the program's.
    let lagrangian = dstar::factor::lagrangian_hessian(program.kernel().expect("a kernel"));
    let kernel = lagrangian.kernel();
    let weights: Vec<String> = (0..program.outputs.len()).map(|k| format!("w_{k}")).collect();
    let outputs = kernel.roots().iter().enumerate().map(|(k, &node)| Output { name: format!("o{k}"), node });
    let data = program.params.iter().chain(&weights).cloned().collect();
    let printed =
        Program::new(kernel.dag().clone(), program.inputs.clone(), outputs.collect()).with_params(data, None);
    let mut at_w = at.clone();
    at_w.extend(rng.point(weights.len(), -1.0, 1.0));
    let text = print_program(&printed);
    computes(&text, &at_w, &eval(kernel.dag(), kernel.roots(), &at_w), &format!("{what}\nlagrangian"));
}

#[test]
fn derivative_programs_with_functions_and_parameters_parse_back() {
    let count = if testkit::long_run() { 600 } else { 24 };
    for seed in 0..count {
        check(seed);
    }
}

/// The README's pendulum (parameters, no functions) and a program whose
/// function names clash with what the printer would make of a derivative's
/// (a function already called `f_d`), and an argument named as its function.
#[test]
fn derivative_text_of_named_shapes_parses_back() {
    let sources = [
        "# @point 0.1, 0.2\n# @params 9.81, 0.5\nparam g, len\nin th, om\nout dth = om\nout dom = -g / len * sin(th)\n",
        "# @point 0.3, 0.7\nin x, y\nf_d(a) = a * a\nfunction f(a, b) -> (s, c)\n  s = sin(a * b)\n  c = f_d(a) + b\nend\n\
         u, v = f(x, y)\nout z = u * v + f_d(x)\n",
        "# @point 2\nin x\nf(f) = f^3\nout y = f(x) + f(2 * x)\n",
    ];
    for source in sources {
        let program = parse(source, source);
        let at = point(&program);
        let text = dstar::jacobian(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let jacobian = dstar::factor::jacobian(program.kernel().expect("a kernel"));
        let mut roots = program.output_nodes();
        roots.extend(jacobian.entries().map(|e| e.node));
        computes(&text, &at, &eval(jacobian.dag(), &roots, &at), source);
    }
}
