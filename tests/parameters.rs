//! Issue 27: parameters through every kind of kernel, on generated
//! programs whose inputs are declared, at random, as inputs or as
//! parameters, each line at a random place before its first use.
//!
//! Each request compiled with parameters is checked against
//! - the interpreter on the same graph with the parameters read as inputs
//!   (values of every kernel bit for bit),
//! - the same program with the parameter values written in as numbers
//!   (`a = 0.731...` in place of `param a`): values bit for bit, every
//!   derivative up to rounding in its accumulation,
//! - dual and hyper-dual numbers (Jacobian, Hessian, J·v, vᵀJ, H·v columns
//!   for the inputs only),
//!
//! and has no row, column or block of its own for a parameter. One kernel
//! called with new parameter values gives what recompiling with those
//! values written in gives; a batch with one parameter row per point gives
//! the single calls.
//!
//! The short run checks 40 programs; `DSTAR_LONG=1` checks 1,000.

use dstar::frontend::{Kernel, Program};
use dstar::{Args, Batch, Compiled, Function, Options, Request};
use testkit::{close, eval_dual, generate, hessian_oracle, same, well_conditioned, Rng, Shape, Tol};

/// Every request, with small direction counts and a short series.
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

/// A generated program as text, its inputs `x0, x1, ...` declared one per
/// line as `in` or `param` (at least one of each) at random places before
/// their first use.
struct Declared {
    /// The body lines of the printed program, without its `in` line.
    body: Vec<String>,
    /// `(line, name, is_param)`: a declaration to insert before body line `line`.
    declarations: Vec<(usize, String, bool)>,
}

impl Declared {
    fn new(rng: &mut Rng, program: &Program) -> Declared {
        let text = dstar::frontend::print_program(program);
        let body: Vec<String> = text.lines().filter(|l| !l.starts_with("in ")).map(String::from).collect();
        let n = program.inputs.len();
        let mut roles: Vec<bool> = (0..n).map(|_| rng.below(5) < 2).collect();
        if roles.iter().all(|&p| p) {
            roles[rng.below(n)] = false;
        }
        if roles.iter().all(|&p| !p) {
            roles[rng.below(n)] = true;
        }
        let declarations = program
            .inputs
            .iter()
            .zip(roles)
            .map(|(name, is_param)| {
                let first_use = body.iter().position(|l| uses(l, name)).unwrap_or(body.len());
                (rng.below(first_use + 1), name.clone(), is_param)
            })
            .collect();
        Declared { body, declarations }
    }

    /// The program text; `values` writes each parameter in as a number
    /// (in source order, the parser's) instead of declaring it.
    fn text(&self, values: Option<&[f64]>) -> String {
        let mut out = String::new();
        let mut params = values.map(|v| v.iter());
        for (i, line) in self.body.iter().chain([&String::new()]).enumerate() {
            for (_, name, is_param) in self.declarations.iter().filter(|d| d.0 == i) {
                match (is_param, params.as_mut()) {
                    (false, _) => out.push_str(&format!("in {name}\n")),
                    (true, None) => out.push_str(&format!("param {name}\n")),
                    (true, Some(values)) => {
                        let value = values.next().expect("a value per parameter");
                        out.push_str(&format!("{name} = {value:?}\n"));
                    }
                }
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    /// The declarations in source order, as the parser numbers them.
    fn in_source_order(&self) -> Vec<&(usize, String, bool)> {
        let mut order: Vec<_> = self.declarations.iter().enumerate().collect();
        order.sort_by_key(|(k, d)| (d.0, *k));
        order.into_iter().map(|(_, d)| d).collect()
    }
}

/// Whether `line` mentions the name `name` (not as part of a longer name).
fn uses(line: &str, name: &str) -> bool {
    line.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').any(|word| word == name)
}

/// The arguments of `request` on `n` inputs and `m` outputs: weights and
/// directions in [-1, 1].
fn extra_blocks(rng: &mut Rng, request: Request, n: usize, m: usize) -> (Vec<f64>, Vec<f64>) {
    let blocks = request.blocks(n, 0, m);
    (rng.point(blocks.w, -1.0, 1.0), rng.point(blocks.v, -1.0, 1.0))
}

/// Panics with `what` unless `a` and `b` are equal bit for bit (NaN equals NaN).
fn assert_bits(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    if let Some(k) = a.iter().zip(b).position(|(x, y)| !same(*x, *y)) {
        panic!("{what}: entry {k}: {:e} vs {:e}", a[k], b[k]);
    }
}

/// Panics unless `ours` at parameters `p` and `theirs` (the same program
/// with `p` written in) agree at `(x, w, v)`: in the values bit for bit,
/// in the derivatives to `tol` (when given) as dense matrices (folding the
/// written-in constants may drop structural nonzeros that are zeros here).
fn same_function(
    ours: &Compiled,
    p: &[f64],
    theirs: &Compiled,
    (x, w, v): (&[f64], &[f64], &[f64]),
    has_values: bool,
    tol: Option<Tol>,
    what: &str,
) {
    let ours = ours.eval_dense(Args::x(x).p(p).w(w).v(v)).expect("the arguments fit");
    let theirs = theirs.eval_dense(Args::x(x).w(w).v(v)).expect("the arguments fit");
    assert_eq!(ours.len(), theirs.len(), "{what}: blocks");
    for (b, (a, c)) in ours.iter().zip(&theirs).enumerate() {
        let (a, c) = (a.concat(), c.concat());
        if b == 0 && has_values {
            assert_bits(&a, &c, &format!("{what}: values, written in"));
        } else if let Some(tol) = tol {
            assert_eq!(a.len(), c.len(), "{what}: block {b}");
            for (k, (a, c)) in a.iter().zip(&c).enumerate() {
                assert!(close(*a, *c, tol), "{what}: block {b}, entry {k}: {a:e} vs written in {c:e}");
            }
        }
    }
}

/// The dense derivative of `compiled` at `(x, p)` for the first block
/// that is not the values.
fn dense(compiled: &Compiled, x: &[f64], p: &[f64], w: &[f64], v: &[f64]) -> Vec<Vec<f64>> {
    let blocks = compiled.eval_dense(Args::x(x).p(p).w(w).v(v)).expect("the arguments fit");
    blocks.into_iter().last().expect("a block")
}

/// Everything this file checks, for one generated program.
fn check(seed: u64, shape: &Shape, tally: &mut [usize; 4]) {
    let mut rng = Rng::new(seed);
    let case = generate(&mut rng, shape);
    let names: Vec<String> = (0..case.num_inputs).map(|k| format!("x{k}")).collect();
    let outputs = case
        .outputs
        .iter()
        .enumerate()
        .map(|(i, &node)| dstar::frontend::Output { name: format!("f{i}"), node })
        .collect();
    let plain = Program::new(case.dag.clone(), names, outputs);
    let declared = Declared::new(&mut rng, &plain);
    let text = declared.text(None);
    let function = Function::parse(&text, Options { self_check: false, ..Options::default() })
        .unwrap_or_else(|e| panic!("seed {seed}: {}\n{text}", e.render(&text)));
    let program = function.program();
    let (n, q, m) = (program.inputs.len(), program.params.len(), program.outputs.len());

    // The point: the generated one, split by role in source order.
    let order = declared.in_source_order();
    let value_of = |name: &str| case.point[name[1..].parse::<usize>().expect("x<k>")];
    let x: Vec<f64> = order.iter().filter(|d| !d.2).map(|d| value_of(&d.1)).collect();
    let p: Vec<f64> = order.iter().filter(|d| d.2).map(|d| value_of(&d.1)).collect();
    assert_eq!((x.len(), p.len()), (n, q), "seed {seed}: the parser's roles");

    // The graph with the parameters read as inputs: the interpreter.
    let roots: Vec<_> = program.outputs.iter().map(|o| o.node).collect();
    let everything = Kernel::new(program.dag.clone(), roots.clone(), n + q).expect("a kernel");
    let xp: Vec<f64> = x.iter().chain(&p).copied().collect();
    let conditioned = well_conditioned(&program.dag, &roots, &xp, 1e4);

    let written = Function::parse(&declared.text(Some(&p)), Options::default())
        .expect("the program with its parameters written in");
    let tol = Tol::rel(1e-9);

    for request in REQUESTS {
        let what = format!("seed {seed}, {request:?}, {n} inputs, {q} parameters\n{text}");
        let compiled = function.compile(request).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let reference = written.compile(request).expect("compiles");
        // No row, column or block for a parameter.
        assert_eq!(compiled.blocks(), request.blocks(n, q, m), "{what}");
        if let Some(pattern) = compiled.pattern() {
            assert!(
                pattern.num_cols == n && pattern.cols.iter().all(|&c| c < n),
                "{what}: a parameter column"
            );
        }
        let (w, v) = extra_blocks(&mut rng, request, n, m);
        let mut out = vec![0.0; compiled.out_len()];
        compiled.eval(Args::x(&x).p(&p).w(&w).v(&v), &mut out).expect("the arguments fit");

        // The interpreter on the same graph, parameters as inputs.
        if request == Request::Values {
            assert_bits(&out, &everything.eval(&xp), &format!("{what}: against the interpreter"));
        }
        let has_values = matches!(request, Request::Values | Request::Jacobian | Request::Gradient);
        let derivatives = conditioned.then_some(tol);
        same_function(&compiled, &p, &reference, (&x, &w, &v), has_values, derivatives, &what);
        tally[1] += usize::from(conditioned);

        // New parameters, same kernel: what recompiling gives.
        let p2: Vec<f64> = p.iter().map(|v| v * rng.uniform(0.9, 1.1)).collect();
        let mut again = vec![0.0; compiled.out_len()];
        compiled.eval(Args::x(&x).p(&p2).w(&w).v(&v), &mut again).expect("fits");
        let recompiled = Function::parse(&declared.text(Some(&p2)), Options::default())
            .expect("parses")
            .compile(request)
            .expect("compiles");
        let xp2: Vec<f64> = x.iter().chain(&p2).copied().collect();
        let derivatives = well_conditioned(&program.dag, &roots, &xp2, 1e4).then_some(tol);
        let what2 = format!("{what}: new parameters");
        same_function(&compiled, &p2, &recompiled, (&x, &w, &v), has_values, derivatives, &what2);

        // A batch of three points, a parameter row each, gives the single calls.
        let xs: Vec<f64> = [&x, &x, &x].into_iter().flatten().copied().collect();
        let ps: Vec<f64> = [&p, &p2, &p].into_iter().flatten().copied().collect();
        let mut rows = vec![0.0; 3 * compiled.out_len()];
        compiled.eval_batch(Batch::x(&xs).p(&ps).w(&w).v(&v), &mut rows).expect("fits");
        let len = compiled.out_len();
        assert_bits(&rows[..len], &out, &format!("{what}: batch row 0"));
        assert_bits(&rows[len..2 * len], &again, &format!("{what}: batch row 1"));
        assert_bits(&rows[2 * len..], &out, &format!("{what}: batch row 2"));
        tally[0] += 1;

        // Derivatives against dual and hyper-dual numbers, columns of the inputs only.
        if conditioned {
            tally[2] += oracles(&compiled, request, &everything, &xp, (&x, &p, &w, &v), n, &what);
        }
    }
    tally[3] += 1;
}

/// Compares the derivative of `compiled` with dual (Jacobian, J·v, vᵀJ)
/// and hyper-dual (Hessian, H·v) numbers on `everything` (the graph with
/// the parameters as its last inputs) at `xp`; returns 1 if it compared.
fn oracles(
    compiled: &Compiled,
    request: Request,
    everything: &Kernel,
    xp: &[f64],
    (x, p, w, v): (&[f64], &[f64], &[f64], &[f64]),
    n: usize,
    what: &str,
) -> usize {
    let (dag, roots) = (everything.dag(), everything.roots());
    let m = roots.len();
    let tol = Tol::rel(1e-8);
    let jacobian = || -> Vec<Vec<f64>> {
        let columns: Vec<Vec<f64>> =
            (0..n).map(|j| eval_dual(dag, roots, xp, j).outputs.iter().map(|d| d.d).collect()).collect();
        (0..m).map(|i| (0..n).map(|j| columns[j][i]).collect()).collect()
    };
    let lagrangian = || -> Vec<Vec<f64>> {
        let each = hessian_oracle(dag, roots, xp);
        (0..n).map(|i| (0..n).map(|j| (0..m).map(|r| w[r] * each[r][i][j]).sum()).collect()).collect()
    };
    let expected: Vec<Vec<f64>> = match request {
        Request::Jacobian => jacobian(),
        Request::Hessian => lagrangian(),
        Request::Jvp(k) => {
            let j = jacobian();
            (0..k).map(|d| (0..m).map(|i| (0..n).map(|c| j[i][c] * v[d * n + c]).sum()).collect()).collect()
        }
        Request::Vjp(k) => {
            let j = jacobian();
            (0..k).map(|d| (0..n).map(|c| (0..m).map(|i| w[d * m + i] * j[i][c]).sum()).collect()).collect()
        }
        Request::Hvp(k) => {
            let h = lagrangian();
            (0..k).map(|d| (0..n).map(|r| (0..n).map(|c| h[r][c] * v[d * n + c]).sum()).collect()).collect()
        }
        _ => return 0,
    };
    let got = dense(compiled, x, p, w, v);
    assert_eq!((got.len(), got.first().map_or(0, Vec::len)), (expected.len(), expected[0].len()), "{what}");
    for (r, (a, b)) in got.iter().zip(&expected).enumerate() {
        // An oracle's NaN (a partial undefined at the point, as atan2's at
        // the origin) may be cancelled symbolically (`g - g`): not compared.
        for (c, (a, b)) in a.iter().zip(b).enumerate().filter(|(_, (_, b))| b.is_finite()) {
            assert!(close(*a, *b, tol), "{what}: [{r}][{c}]: {a:e} vs oracle {b:e}");
        }
    }
    1
}

fn run(count: u64) {
    let mut tally = [0usize; 4];
    for seed in 0..count {
        let shape = match seed % 3 {
            0 => Shape::every(6, 40),
            1 => Shape::calculus(5, 3, 50, 0.5),
            _ => Shape::calculus(8, 4, 120, 0.3),
        };
        check(seed, &shape, &mut tally);
    }
    eprintln!(
        "{} programs: {} kernels against the interpreter and the written-in program, \
         {} derivatives up to rounding, {} against dual and hyper-dual numbers",
        tally[3], tally[0], tally[1], tally[2]
    );
    assert!(tally[2] * 4 >= tally[3], "too few well-conditioned programs to mean anything: {tally:?}");
}

#[test]
fn parameters_are_data_in_every_kernel() {
    run(if std::env::var_os("DSTAR_LONG").is_some() { 1000 } else { 40 });
}

/// The symbolic derivatives (the REPL's and `dstar diff`'s) keep the
/// parameters as parameters: named when printed, given when evaluated.
#[test]
fn symbolic_derivatives_keep_the_parameters() -> Result<(), dstar::Error> {
    let program = dstar::parse_program("param a, b\nin x, y\nout f = a * x^3 + b * x * y")?;
    let (budget, never) = (dstar::Budget::default(), dstar::Stop::never());
    let print = |p: &Program| dstar::print_expr(&p.dag, p.outputs[0].node, &p.leaves());
    let d = dstar::partial(&program, &[(0, 2)], &budget, &never)?;
    assert_eq!((d.inputs.len(), d.params.len()), (2, 2));
    assert_eq!(print(&d), "6 * x * a");
    assert_eq!(
        Function::new(d, Options::default())
            .compile(Request::Values)?
            .eval_dense(Args::x(&[2.0, 0.0]).p(&[5.0, 0.0]))?[0],
        [[60.0]]
    );
    let t = dstar::taylor_polynomial(&program, 1, 1.0, 2, &budget, &never)?;
    assert_eq!(t.params, ["a", "b"]);
    assert_eq!(print(&t), "t1 = x * b; a * x^3 + t1 + (y - 1) * t1");
    let tidy = dstar::tidy(&program);
    assert_eq!(tidy.params, ["a", "b"]);
    let dot = dstar::derivative_graph_dot(&program)?;
    // A parameter is no node of the graph (nothing is differentiated by
    // it); it appears in the partials, by name.
    let node_a = dot.lines().any(|l| l.ends_with("[label=\"a\"];") && !l.contains("->"));
    assert!(dot.contains("n5 -> n6 [label=\"a\"]") && !node_a, "{dot}");
    Ok(())
}
