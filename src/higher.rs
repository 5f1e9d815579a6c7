//! Higher derivatives and Taylor polynomials as expressions a person would
//! write: Taylor-mode propagation ([`factor::higher`]) within a [`Budget`],
//! then the printing rewrites ([`simplify::Tidier`](factor::Tidier)).

use crate::Error;
use factor::higher::Budget;
use factor::Tidier;
use frontend::{ExprDag, NodeId, Op, Output, Program};

/// The partial derivative of `program`'s single output by its inputs `by`
/// (`(input, order)` pairs, differentiated in that order), as a program over
/// the same inputs, rewritten for printing. `stop` is asked before every
/// order, so that a caller (the REPL's Ctrl-C) can interrupt.
///
/// ```
/// let program = dstar::parse_expr("log(x) * y")?;
/// let d = dstar::partial(&program, &[(0, 10), (1, 1)], &dstar::Budget::default(), &|| false)?;
/// assert_eq!(dstar::print_expr(&d.dag, d.outputs[0].node, &d.inputs), "-362880 / x^10");
/// # Ok::<(), dstar::Error>(())
/// ```
///
/// # Errors
/// [`Error::Derivative`] when the budget runs out (the message names an
/// order within it) or `stop` says so; [`Error::Usage`] for a program of
/// several outputs.
pub fn partial(
    program: &Program,
    by: &[(usize, u64)],
    budget: &Budget,
    stop: &dyn Fn() -> bool,
) -> Result<Program, Error> {
    let [output] = program.outputs.as_slice() else {
        return Err(Error::Usage(format!(
            "a partial derivative needs a scalar function; this one has {} outputs",
            program.outputs.len()
        )));
    };
    let kernel = factor::higher::partial(program.kernel()?, by, budget, stop)?;
    let (dag, roots) = kernel.into_parts();
    let outputs = vec![Output { name: output.name.clone(), node: roots[0] }];
    Ok(tidy(&Program::new(dag, program.inputs.clone(), outputs)))
}

/// `program` rewritten for printing: like terms and powers collected,
/// constants folded, signs and constant factors in front, shared
/// subexpressions kept shared (see [`factor::Tidier`] for the limits and
/// the NaN policy). The outputs keep their names; spans and the point are
/// dropped.
pub fn tidy(program: &Program) -> Program {
    let Ok(kernel) = program.kernel() else { return program.clone() };
    let (kernel, _) = Tidier::new().run(&kernel);
    let (dag, roots) = kernel.into_parts();
    let outputs =
        program.outputs.iter().zip(roots).map(|(o, node)| Output { name: o.name.clone(), node }).collect();
    Program::new(dag, program.inputs.clone(), outputs)
}

/// The Taylor polynomial of order `order` of `program`'s single output in
/// its input `input` around `input = at`, the other inputs left as they
/// are: `Σ_k f^(k)(at) / k! · (x - at)^k`, rewritten for printing.
///
/// ```
/// let program = dstar::parse_expr("exp(x)")?;
/// let p = dstar::taylor_polynomial(&program, 0, 0.0, 3, &dstar::Budget::default(), &|| false)?;
/// assert_eq!(dstar::print_expr(&p.dag, p.outputs[0].node, &p.inputs), "x^3 / 6 + x^2 / 2 + x + 1");
/// # Ok::<(), dstar::Error>(())
/// ```
///
/// # Errors
/// As [`partial`].
pub fn taylor_polynomial(
    program: &Program,
    input: usize,
    at: f64,
    order: u64,
    budget: &Budget,
    stop: &dyn Fn() -> bool,
) -> Result<Program, Error> {
    let [output] = program.outputs.as_slice() else {
        return Err(Error::Usage(format!(
            "a Taylor polynomial needs a scalar function; this one has {} outputs",
            program.outputs.len()
        )));
    };
    let n = program.inputs.len();
    let (derivatives, nodes) = factor::higher::derivatives(program.kernel()?, input, order, budget, stop)?;
    let mut dag = ExprDag::new();
    let x = dag.input(input);
    let a = dag.constant(at);
    let shift = dag.sub(x, a);
    // f^(k) at x = a: the input replaced by the constant, folded.
    let mut inputs: Vec<NodeId> = (0..n).map(|i| dag.input(i)).collect();
    inputs[input] = a;
    let values = substitute(&mut dag, &derivatives, &nodes, &inputs);
    // Highest power first, as a person writes a polynomial; each term
    // tidied alone, so the sum keeps that order.
    let mut terms = vec![];
    for (k, value) in values.into_iter().enumerate().rev() {
        // A zero coefficient, of either sign, is no term.
        let Some(value) = value.filter(|&v| dag.as_const(v) != Some(0.0)) else { continue };
        let term = if k == 0 {
            value
        } else {
            let e = dag.constant(k as f64);
            let power = dag.apply(Op::Pow, &[shift, e]);
            let product = dag.mul(value, power);
            let factorial = dag.constant(factorial(k));
            dag.div(product, factorial)
        };
        terms.push(term);
    }
    let mut sum = ExprDag::new();
    for k in 0..n {
        sum.input(k);
    }
    let mut total: Option<NodeId> = None;
    for term in terms {
        let kernel = frontend::Kernel::new(dag.clone(), vec![term], n)?;
        let (tidy, _) = Tidier::new().run(&kernel);
        let term = sum.import(tidy.dag(), tidy.roots(), None)[0];
        total = Some(match total {
            None => term,
            Some(t) => sum.add(t, term),
        });
    }
    let node = total.unwrap_or_else(|| sum.constant(0.0));
    Ok(Program::new(sum, program.inputs.clone(), vec![Output { name: output.name.clone(), node }]))
}

/// Copies `roots` of `other` into `dag` with input `k` replaced by
/// `inputs[k]`, folding constants as it goes (unlike [`ExprDag::import`]).
fn substitute(
    dag: &mut ExprDag,
    other: &ExprDag,
    roots: &[Option<NodeId>],
    inputs: &[NodeId],
) -> Vec<Option<NodeId>> {
    let present: Vec<NodeId> = roots.iter().flatten().copied().collect();
    let reach = other.reachable(&present);
    let mut map = vec![None; other.len()];
    for id in other.ids().filter(|id| reach[id.index()]) {
        let node = other.node(id);
        map[id.index()] = Some(match node.op {
            Op::Input(k) => inputs[k as usize],
            op => {
                let args: Vec<NodeId> =
                    node.args().iter().map(|a| map[a.index()].expect("arguments first")).collect();
                dag.apply(op, &args)
            }
        });
    }
    roots.iter().map(|r| r.map(|r| map[r.index()].expect("the roots are reached"))).collect()
}

/// `k!`.
fn factorial(k: usize) -> f64 {
    (1..=k).map(|i| i as f64).product()
}
