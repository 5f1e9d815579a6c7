//! Issue 28: programs with functions, against the same programs with every
//! call written out.
//!
//! Generated programs ([`testkit::functions`]: 1 to 4 levels of nesting,
//! several results, unused results, repeated and constant arguments, calls
//! in expressions, parameters) and the `gen.py` families, structured and
//! inlined: for every request, the values are the inlined program's bit for
//! bit and the derivatives agree with it and with dual numbers; every kind
//! of kernel of the structured program equals the interpreter bit for bit,
//! whole, in small chunks, in parts and two points at a time.
//!
//! The short run checks 30 programs; `DSTAR_LONG=1` checks 2,000. Ties of
//! `min` and `max` (issue 34) get the same derivatives in every form.

#[path = "common/kernels.rs"]
mod kernels;

use dstar::factor::Symbolic;
use dstar::frontend::Program;
use dstar::{Args, Function, JitCompiler, Options, Request};
use kernels::{check_kind, kinds, Tally};
use testkit::{all_close, close, eval_dual, gen_py, same, same_bits, well_conditioned, Rng, Tol};

const REQUESTS: [Request; 8] = [
    Request::Values,
    Request::Jacobian,
    Request::Gradient,
    Request::Hessian,
    Request::Jvp(2),
    Request::Vjp(2),
    Request::Hvp(2),
    Request::Taylor(3),
];

fn parse(text: &str, what: &str) -> Program {
    dstar::parse_program(text).unwrap_or_else(|e| panic!("{what}: {}\n{text}", e.render(text)))
}

/// The structured program `structured` against `flat` (its calls written
/// out) for every request, at the file's point and parameters.
fn against_flat(structured: &Program, flat: &Program, rng: &mut Rng, what: &str, tally: &mut Tally) {
    against_flat_for(&REQUESTS, structured, flat, rng, what, tally);
}

/// [`against_flat`] for `requests`.
fn against_flat_for(
    requests: &[Request],
    structured: &Program,
    flat: &Program,
    rng: &mut Rng,
    what: &str,
    tally: &mut Tally,
) {
    let options = Options { self_check: false, ..Options::default() };
    let x = structured.point.clone().expect("a point");
    let p = structured.param_values.clone().unwrap_or_default();
    let (n, m) = (structured.inputs.len(), structured.outputs.len());
    let xp: Vec<f64> = x.iter().chain(&p).copied().collect();
    let (dag, roots) = (&structured.dag, structured.output_nodes());
    let conditioned = well_conditioned(&flat.dag, &flat.output_nodes(), &xp, 1e4);
    let ours = Function::new(structured.clone(), options.clone());
    let theirs = Function::new(flat.clone(), options);
    for &request in requests {
        let what = format!("{what}, {request:?}");
        let a = ours.compile(request).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let b = theirs.compile(request).unwrap_or_else(|e| panic!("{what}: flat: {e:?}"));
        let blocks = request.blocks(n, p.len(), m);
        let w = rng.point(blocks.w, -1.0, 1.0);
        let v = rng.point(blocks.v, -1.0, 1.0);
        let args = Args::x(&x).p(&p).w(&w).v(&v);
        let (da, db) = (a.eval_dense(args).expect("fits"), b.eval_dense(args).expect("fits"));
        assert_eq!(da.len(), db.len(), "{what}: blocks");
        let has_values = matches!(request, Request::Values | Request::Jacobian | Request::Gradient);
        // A kernel built from maps may add a sum's terms in another order
        // (docs/maps.md); its values agree to rounding, the others bit for bit.
        let mapped = |f: &Function| matches!(f.symbolic(request).map(|b| b.kernel), Ok(Symbolic::Maps(_)));
        let reordered = has_values && (mapped(&ours) || mapped(&theirs));
        for (k, (ra, rb)) in da.iter().zip(&db).enumerate() {
            let (ra, rb) = (ra.concat(), rb.concat());
            if k == 0 && has_values && reordered {
                assert!(
                    all_close(&ra, &rb, Tol::rel(1e-13)),
                    "{what}: values {ra:?} structured, {rb:?} flat"
                );
            } else if k == 0 && has_values {
                let bits = ra.iter().zip(&rb).all(|(a, b)| same(*a, *b));
                assert!(bits, "{what}: values {ra:?} structured, {rb:?} flat");
            } else if conditioned {
                for (i, (a, b)) in ra.iter().zip(&rb).enumerate() {
                    assert!(
                        close(*a, *b, Tol::rel(1e-9)),
                        "{what}: block {k} entry {i}: {a:e} vs flat {b:e}"
                    );
                }
            }
        }
        tally.count("against flat");
        if request == Request::Jacobian && conditioned {
            // The Jacobian against dual numbers (which write calls out).
            let jacobian = &da[1];
            for col in 0..n {
                let dual = eval_dual(dag, &roots, &xp, col);
                for (row, d) in dual.outputs.iter().enumerate().filter(|(_, d)| d.d.is_finite()) {
                    let got = jacobian[row][col];
                    assert!(
                        close(got, d.d, Tol::rel(1e-8)),
                        "{what}: J[{row}][{col}] = {got:e}, dual {:e}",
                        d.d
                    );
                }
            }
            tally.count("against dual numbers");
        }
    }
}

/// Every kind of kernel of `program` against the interpreter.
fn against_interpreter(program: &Program, rng: &mut Rng, what: &str, tally: &mut Tally) {
    let compiler = JitCompiler::new().expect("a supported host").with_self_check(false);
    let x = program.point.clone().expect("a point");
    let p = program.param_values.clone().unwrap_or_default();
    let xp: Vec<f64> = x.iter().chain(&p).copied().collect();
    let jacobian = dstar::factor::jacobian(program.kernel().expect("a kernel"));
    let mut all = kinds(program, true, false, true);
    all.push(kernels::KernelKind {
        name: "jacobian",
        kernel: jacobian.kernel().clone(),
        parts: vec![jacobian.kernel().num_inputs()],
    });
    for kind in &all {
        check_kind(&compiler, kind, &xp, rng, what, tally);
    }
}

fn check(seed: u64, ops: usize, tally: &mut Tally) {
    let mut rng = Rng::new(seed);
    let generated = testkit::functions::generate(&mut rng, ops);
    let what = format!("seed {seed}");
    let structured = parse(&generated.structured, &what);
    let flat = parse(&generated.flat, &format!("{what} (flat)"));
    let what = format!("{what}\n{}", generated.structured);
    against_flat(&structured, &flat, &mut rng, &what, tally);
    against_interpreter(&structured, &mut rng, &what, tally);
}

#[test]
fn generated_programs_with_functions_equal_their_calls_written_out() {
    let mut tally = Tally::default();
    let count = if testkit::long_run() { 2000 } else { 30 };
    for seed in 0..count {
        check(seed, [10, 30, 80][seed as usize % 3], &mut tally);
    }
    tally.report(&format!("{count} generated programs with functions"));
}

/// The families of `gen.py` (optimal control with nested calls, a fit and a
/// Gaussian mixture with data as parameters, a grid), structured against
/// their `--inline` form, at several sizes; the smallest of each also kernel
/// by kernel against the interpreter.
#[test]
fn the_structured_families_equal_their_inlined_forms() {
    let mut tally = Tally::default();
    let first_order =
        [Request::Values, Request::Jacobian, Request::Gradient, Request::Vjp(2), Request::Jvp(2)];
    let families: [(&str, &[usize], &[Request]); 4] = [
        ("cartpole", &[1, 7, 40], &REQUESTS),
        ("fit", &[3, 60, 400], &REQUESTS),
        ("minsurf", &[2, 6, 12], &REQUESTS),
        ("gmm", &[1, 3], &first_order),
    ];
    let mut rng = Rng::new(28);
    for (family, sizes, requests) in families {
        for (i, &n) in sizes.iter().enumerate() {
            let what = format!("{family} {n}");
            let structured = parse(&gen_py(family, n, &[]), &what);
            let inline = parse(&gen_py(family, n, &["--inline"]), &format!("{what} --inline"));
            assert!(!structured.functions.is_empty(), "{what}: structured");
            against_flat_for(requests, &structured, &inline, &mut rng, &what, &mut tally);
            if i == 0 && family != "gmm" {
                against_interpreter(&structured, &mut rng, &what, &mut tally);
            }
        }
    }
    tally.report("the gen.py families");
}

/// Forms of `OP(E1, E2)` as the one output of a program of inputs `x, y`
/// and parameter `p`: written out in either order, in a function called
/// in either order or writing the operands the other way, among the
/// results of a function of several, and through nested calls.
const TIE_FORMS: [(&str, &str); 9] = [
    ("written", "out OP(E1, E2)"),
    ("written, swapped", "out OP(E2, E1)"),
    ("call", "m(a, b) = OP(a, b)\nout m(E1, E2)"),
    ("call, swapped", "m(a, b) = OP(a, b)\nout m(E2, E1)"),
    ("body swapped", "m(a, b) = OP(b, a)\nout m(E1, E2)"),
    (
        "several results",
        "function both(a, b) -> (r, s, t)\n  s = a * b\n  r = OP(a, b)\n  t = OP(b, a)\nend\n\
         r, s, t = both(E1, E2)\nout r",
    ),
    (
        "several results, the other",
        "function both(a, b) -> (r, s, t)\n  s = a * b\n  r = OP(a, b)\n  t = OP(b, a)\nend\n\
         r, s, t = both(E2, E1)\nout t",
    ),
    ("nested", "m(a, b) = OP(a, b)\nn(a, b) = m(b, a)\nk(a, b) = n(b, a)\nout k(E1, E2)"),
    (
        "nested, several results",
        "m(a, b) = OP(a, b)\nfunction g(a, b) -> (u, v)\n  u = m(b, a)\n  v = m(a, b) * u\nend\n\
         u, v = g(E2, E1)\nout u",
    ),
];

/// Operand pairs `(E1, E2)` over `x, y, p` that tie at some points of
/// [`tie_points`] (`x == y`, `x == p`, `x == 1`, `x == 0`) or everywhere,
/// most with different derivatives at the tie.
const TIE_PAIRS: [(&str, &str); 7] = [
    ("x", "y"),
    ("x * y", "y * x"),
    ("2 * x", "x + x"),
    ("x * x", "x"),
    ("x * y", "y"),
    ("x", "p"),
    ("sin(x)", "sin(y)"),
];

/// Points `(x, y, p)`: ties of the pairs of [`TIE_PAIRS`] and points beside
/// them, then random ties and random points.
fn tie_points(rng: &mut Rng) -> Vec<[f64; 3]> {
    let mut points = vec![
        [0.7, 0.7, 0.7],
        [1.0, 1.0, 1.0],
        [0.0, 0.0, 0.0],
        [1.0, 0.3, -2.0],
        [-1.25, 0.4, -1.25],
        [0.7, -0.3, 1.5],
        [0.5, 0.5 + 1e-9, 0.25],
    ];
    for _ in 0..testkit::cases(2, 40) {
        let t = rng.uniform(-2.0, 2.0);
        points.extend([
            [t, t, t],
            [1.0, t, rng.uniform(-2.0, 2.0)],
            rng.point(3, -2.0, 2.0).try_into().unwrap(),
        ]);
    }
    points
}

/// Issue 34, item 4: at a tie of `min` or `max` (`a == b`) each argument
/// gets half the derivative, a rule that depends neither on the order of
/// the arguments nor on whether the operation sits in a function. For
/// `min` and `max` of pairs that tie, every form of [`TIE_FORMS`] gives
/// every request's results of the form written out (values bit for bit),
/// at ties and beside them; every form's Jacobian equals dual numbers,
/// which give each argument half at a tie. Before 53ef746 a tie followed
/// the second argument: `m(y, x)` at `x == y` had `d/dx = 1`, while
/// `max(y, x)` written out is `max(x, y)` (commutative operands are
/// canonicalized) with `d/dx = 0`.
#[test]
fn issue_34_ties_of_min_and_max_do_not_depend_on_order_or_calls() {
    let mut rng = Rng::new(34);
    let points = tie_points(&mut rng);
    let options = Options { self_check: false, ..Options::default() };
    let (mut against_written, mut against_duals) = (0, 0);
    for op in ["min", "max"] {
        for (e1, e2) in TIE_PAIRS {
            let forms: Vec<(String, Program)> = TIE_FORMS
                .iter()
                .map(|(name, body)| {
                    let text = format!("param p\nin x, y\n{body}\n")
                        .replace("OP", op)
                        .replace("E1", e1)
                        .replace("E2", e2);
                    let what = format!("{op}({e1}, {e2}), {name}:\n{text}");
                    let program = parse(&text, &what);
                    (what, program)
                })
                .collect();
            for &request in &REQUESTS {
                let compiled: Vec<dstar::Compiled> = forms
                    .iter()
                    .map(|(what, program)| {
                        let function = Function::new(program.clone(), options.clone());
                        function.compile(request).unwrap_or_else(|e| panic!("{what}, {request:?}: {e:?}"))
                    })
                    .collect();
                let blocks = request.blocks(2, 1, 1);
                for point in &points {
                    let (x, p) = (&point[..2], &point[2..]);
                    let w = rng.point(blocks.w, -1.0, 1.0);
                    let v = rng.point(blocks.v, -1.0, 1.0);
                    let args = Args::x(x).p(p).w(&w).v(&v);
                    let results: Vec<Vec<Vec<f64>>> = compiled
                        .iter()
                        .map(|c| c.eval_dense(args).expect("fits").iter().map(|b| b.concat()).collect())
                        .collect();
                    let has_values =
                        matches!(request, Request::Values | Request::Jacobian | Request::Gradient);
                    for ((what, _), result) in forms.iter().zip(&results).skip(1) {
                        let what = format!("{what}\n{request:?} at {point:?}");
                        assert_eq!(result.len(), results[0].len(), "{what}: blocks");
                        for (k, (got, written)) in result.iter().zip(&results[0]).enumerate() {
                            let agree = if k == 0 && has_values {
                                same_bits(got, written)
                            } else {
                                all_close(got, written, Tol::rel(1e-13))
                            };
                            assert!(agree, "{what}: block {k} {got:?}, written out {written:?}");
                        }
                        against_written += 1;
                    }
                    if request != Request::Jacobian {
                        continue;
                    }
                    // Every form's Jacobian (one row, columns x and y) against dual numbers.
                    for ((what, program), result) in forms.iter().zip(&results) {
                        for col in 0..2 {
                            let dual = eval_dual(&program.dag, &program.output_nodes(), point, col);
                            let got = result[1][col];
                            assert!(
                                close(got, dual.outputs[0].d, Tol::rel(1e-12)),
                                "{what}\nat {point:?}: d/d{} = {got:e}, dual {:e}",
                                ["x", "y"][col],
                                dual.outputs[0].d
                            );
                        }
                        against_duals += 1;
                    }
                    if (e1, e2) == ("x", "y") && point[0] == point[1] {
                        // TIE_FORMS[3]: m(y, x), the form the old rule got wrong.
                        assert_eq!(results[3][1], [0.5, 0.5], "{op}(y, x) in a call at {point:?}: half each");
                    }
                }
            }
        }
    }
    eprintln!(
        "ties of min and max: {against_written} results against the written form, {against_duals} Jacobians"
    );
}

/// A chain of `n` calls of a 6-operation step (3 arguments, 2 results: a
/// small function), and, with `rest`, an output of `rest` further
/// operations of the inputs.
fn small_step_chain(n: usize, rest: usize) -> String {
    let mut text = String::from("in a0, b0");
    for i in 0..n {
        text += &format!(", u{i}");
    }
    text += "\nfunction step(a, b, u) -> (a1, b1)\n  a1 = a + 0.1*b\n  b1 = b + 0.1*(u - a*a)\nend\n";
    for i in 0..n {
        text += &format!("a{}, b{} = step(a{i}, b{i}, u{i})\n", i + 1, i + 1);
    }
    let mut r = String::from("a0");
    for k in 0..rest / 2 {
        r = format!("({r})*u{} + b0", k % n);
    }
    text += &format!("out a{n}\nout b{n}\nout {r}\n");
    text
}

#[test]
fn calls_past_the_optimizer_limit_match_the_interpreter_bit_for_bit() {
    // Straight-line code of `OPTIMIZE_BELOW_OPS` operations or more
    // compiles without Cranelift's optimizer unless it calls functions:
    // calls spread over kernels on both sides of the limit.
    let compiler = JitCompiler::new().expect("a supported host");
    let mut rng = Rng::new(43);
    let limit = JitCompiler::OPTIMIZE_BELOW_OPS;
    for statements in [limit / 8, limit / 2 + 1000] {
        let mut text = String::from("in x, u0, u1, u2\nfunction g(t) -> (r)\n");
        text += "  r = sin(t)*t + cos(t)*t*t + exp(t)*t + t*t*t*t + log(t*t + 1)\nend\ns0 = x\n";
        for k in 1..=statements {
            if k % 997 == 0 {
                text += &format!("s{k} = g(s{})*u{}\n", k - 1, k % 3);
            } else {
                text += &format!("s{k} = s{}*u{} + x\n", k - 1, k % 3);
            }
        }
        text += &format!("out s{statements}\nout s{}\n", statements / 2);
        let what = format!("{statements} statements");
        let program = parse(&text, &what);
        let kernel = program.kernel().expect("a kernel");
        assert_eq!(
            kernel.count_ops() >= limit,
            statements > limit / 4,
            "{what}: {} operations",
            kernel.count_ops()
        );
        assert!(dstar::frontend::call::small_calls_written_out(&kernel).has_calls(), "{what}: g is called");
        let jit = compiler.compile(&kernel).expect("compiles");
        let mut out = vec![0.0; kernel.num_outputs()];
        for _ in 0..3 {
            let x = rng.point(kernel.num_inputs(), -0.3, 0.3);
            jit.eval(&x, &mut out).expect("lengths");
            assert!(same_bits(&out, &kernel.eval(&x)), "{what} at {x:?}");
        }
        compiler.compile_two_points(&kernel, &jit).expect("compiles");
        let xs = rng.point(4 * kernel.num_inputs(), -0.3, 0.3);
        let mut outs = vec![0.0; 4 * kernel.num_outputs()];
        jit.eval_batch(&xs, &mut outs).expect("lengths");
        for (x, out) in xs.chunks(kernel.num_inputs()).zip(outs.chunks(kernel.num_outputs())) {
            assert!(same_bits(out, &kernel.eval(x)), "{what}, two points at a time, at {x:?}");
        }
    }
}

#[test]
fn small_functions_are_written_out_where_their_calls_are_most_of_the_kernel() {
    let compiler = JitCompiler::new().expect("a supported host");
    let mut rng = Rng::new(41);
    // 40 calls of 18 instructions of glue: 720; past 8 x 720 other
    // operations the calls stay.
    for (rest, written_out) in [(0, true), (2000, true), (8 * 720 + 200, false)] {
        let text = small_step_chain(40, rest);
        let what = format!("40 calls, {rest} other operations");
        let program = parse(&text, &what);
        let kernel = program.kernel().expect("a kernel");
        let step = &dstar::frontend::call::called_functions(kernel.dag(), kernel.roots(), &[])[0];
        assert!(dstar::frontend::call::is_small(step), "{what}: the step is small");
        let chosen = dstar::frontend::call::small_calls_written_out(&kernel);
        assert_eq!(chosen.has_calls(), !written_out, "{what}");
        // The machine code calls the step only where the calls stay (the
        // step and the rest call no library function).
        let listing = compiler.disassemble(&kernel, 1).expect("compiles");
        assert_eq!(listing.contains("call "), !written_out, "{what}");
        // Bit for bit the interpreter's, one point and two at a time.
        let jit = compiler.compile(&kernel).expect("compiles");
        compiler.compile_two_points(&kernel, &jit).expect("compiles");
        for _ in 0..5 {
            let x = rng.point(kernel.num_inputs(), -1.0, 1.0);
            let mut out = vec![0.0; kernel.num_outputs()];
            jit.eval(&x, &mut out).expect("lengths");
            assert!(same_bits(&out, &kernel.eval(&x)), "{what} at {x:?}");
        }
    }
    // A function bigger than its glue is called.
    let big = "in x\nfunction g(t) -> (r)\n  r = sin(t)*t + cos(t)*t*t + exp(t)*t + t*t*t*t + log(t*t + 1)\nend\nout g(x) + g(x*x)\n";
    let program = parse(big, "big");
    let kernel = program.kernel().expect("a kernel");
    let g = &dstar::frontend::call::called_functions(kernel.dag(), kernel.roots(), &[])[0];
    assert!(!dstar::frontend::call::is_small(g), "g is not small");
    assert!(dstar::frontend::call::small_calls_written_out(&kernel).has_calls());
}
