//! Higher derivatives and Taylor polynomials as expressions a person would
//! write: Taylor-mode propagation ([`factor::higher`]) within a [`Budget`],
//! then the printing rewrites ([`simplify::Tidier`](factor::Tidier)).

use crate::Error;
use factor::higher::Budget;
use factor::Tidier;
use frontend::{ExprDag, NodeId, Op, Output, Program, Stop};

/// The partial derivative of `program`'s single output by its inputs `by`
/// (`(input, order)` pairs, differentiated in that order), as a program over
/// the same inputs and parameters, rewritten for printing. `stop` is asked before every
/// order, so that a caller (the REPL's Ctrl-C) can interrupt.
///
/// ```
/// let program = dstar::parse_expr("log(x) * y")?;
/// let d = dstar::partial(&program, &[(0, 10), (1, 1)], &dstar::Budget::default(), &dstar::Stop::never())?;
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
    stop: &Stop,
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
    Ok(tidy(&Program::new(dag, program.inputs.clone(), outputs).with_params(program.params.clone(), None)))
}

/// `program` rewritten for printing: like terms and powers collected,
/// constants folded, signs and constant factors in front, shared
/// subexpressions kept shared (see [`factor::Tidier`] for the limits and
/// the NaN policy). The outputs keep their names and the parameters stay
/// parameters; spans, the point and the parameters' values are dropped.
pub fn tidy(program: &Program) -> Program {
    let Ok(kernel) = program.kernel() else { return program.clone() };
    let (kernel, _) = Tidier::new().run(&kernel);
    let (dag, roots) = kernel.into_parts();
    let outputs =
        program.outputs.iter().zip(roots).map(|(o, node)| Output { name: o.name.clone(), node }).collect();
    Program::new(dag, program.inputs.clone(), outputs).with_params(program.params.clone(), None)
}

/// The Taylor polynomial of order `order` of `program`'s single output in
/// its input `input` around `input = at`, the other inputs and the
/// parameters left as they are: `Σ_k f^(k)(at) / k! · (x - at)^k`, written as a person writes one:
/// terms by ascending power, no zero terms, each coefficient rewritten for
/// printing and its constant over the factorial as an exact fraction when
/// both are whole numbers (`- x^3 * y^3 / 6`, not
/// `+ (-0.16666666666666666 * x^3 * y^3)`).
///
/// ```
/// let program = dstar::parse_expr("exp(x)")?;
/// let p = dstar::taylor_polynomial(&program, 0, 0.0, 3, &dstar::Budget::default(), &dstar::Stop::never())?;
/// assert_eq!(dstar::print_expr(&p.dag, p.outputs[0].node, &p.inputs), "1 + x + x^2 / 2 + x^3 / 6");
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
    stop: &Stop,
) -> Result<Program, Error> {
    let [output] = program.outputs.as_slice() else {
        return Err(Error::Usage(format!(
            "a Taylor polynomial needs a scalar function; this one has {} outputs",
            program.outputs.len()
        )));
    };
    // The leaves: the inputs, then the parameters.
    let (n, leaves) = (program.inputs.len(), program.leaves().len());
    let (derivatives, nodes) = factor::higher::derivatives(program.kernel()?, input, order, budget, stop)?;
    let mut dag = ExprDag::new();
    for k in 0..leaves {
        dag.input(k);
    }
    let a = dag.constant(at);
    // f^(k) at x = a: the input replaced by the constant, folded.
    let mut inputs: Vec<NodeId> = (0..leaves).map(|i| dag.input(i)).collect();
    inputs[input] = a;
    let values = substitute(&mut dag, &derivatives, &nodes, &inputs);
    let mut sum = Polynomial::new(leaves, input, at);
    for (k, value) in values.into_iter().enumerate() {
        let Some(value) = value else { continue };
        // Each coefficient rewritten alone, so the sum keeps its order.
        let mut alone = ExprDag::new();
        for i in 0..leaves {
            alone.input(i);
        }
        let root = alone.import(&dag, &[value], None)[0];
        let coefficient = frontend::Kernel::new(alone, vec![root], leaves)?.with_variables(n);
        let (tidy, _) = Tidier::new().run(&coefficient);
        sum.add_term(k, tidy.dag(), tidy.roots()[0]);
    }
    let node = sum.total.unwrap_or_else(|| sum.dag.constant(0.0));
    let outputs = vec![Output { name: output.name.clone(), node }];
    Ok(Program::new(sum.dag, program.inputs.clone(), outputs).with_params(program.params.clone(), None))
}

/// A Taylor polynomial as it is written, term by term.
struct Polynomial {
    dag: ExprDag,
    /// `x - a`, or `x` around 0.
    shift: NodeId,
    total: Option<NodeId>,
}

impl Polynomial {
    /// The empty polynomial over `leaves` inputs and parameters, in `input`.
    fn new(leaves: usize, input: usize, at: f64) -> Polynomial {
        let mut dag = ExprDag::new();
        for k in 0..leaves {
            dag.input(k);
        }
        let x = dag.input(input);
        let shift = if at == 0.0 {
            x
        } else {
            let a = dag.constant(at);
            dag.sub(x, a)
        };
        Polynomial { dag, shift, total: None }
    }

    /// Adds `value / k! · shift^k`, `value` being node `value` of `from`
    /// (its inputs those of the polynomial); nothing for a zero value.
    fn add_term(&mut self, k: usize, from: &ExprDag, value: NodeId) {
        let (p, q, rest) = constant_factor(from, value);
        if p == 0.0 {
            return; // a zero coefficient, of either sign, is no term
        }
        let (numerator, denominator) = fraction(p, q, k);
        let negative = numerator < 0.0;
        // The first term carries its sign on its first factor (`-x^3 / 6`);
        // later ones are subtracted.
        let mut sign = negative && self.total.is_none();
        let dag = &mut self.dag;
        let mut factors = vec![];
        if numerator.abs() != 1.0 {
            factors.push(dag.constant(if sign { numerator } else { numerator.abs() }));
            sign = false;
        }
        if k > 0 {
            let e = dag.constant(k as f64);
            factors.push(dag.apply(Op::Pow, &[self.shift, e]));
        }
        if let Some(rest) = rest {
            factors.push(dag.import(from, &[rest], None)[0]);
        }
        match factors.first_mut() {
            Some(first) if sign => *first = dag.neg(*first),
            Some(_) => {}
            None => factors.push(dag.constant(if sign { -1.0 } else { 1.0 })),
        }
        let mut top = factors[0];
        for &factor in &factors[1..] {
            top = dag.mul(top, factor);
        }
        let term = if denominator == 1.0 {
            top
        } else {
            let d = dag.constant(denominator);
            dag.div(top, d)
        };
        self.total = Some(match self.total {
            None => term,
            Some(t) if negative => dag.sub(t, term),
            Some(t) => dag.add(t, term),
        });
    }
}

/// `value` as `p / q · rest`: the constant factors of a product, a
/// quotient and a negation around `rest` (none when `value` is a constant).
fn constant_factor(dag: &ExprDag, value: NodeId) -> (f64, f64, Option<NodeId>) {
    let (mut p, mut q, mut node) = (1.0, 1.0, value);
    loop {
        let args = dag.args(node);
        node = match (dag.op(node), args) {
            (Op::Const(c), _) => return (p * c.get(), q, None),
            (Op::Neg, &[a]) => {
                p = -p;
                a
            }
            (Op::Mul, &[c, a]) | (Op::Mul, &[a, c])
                if dag.as_const(c).is_some() && dag.as_const(a).is_none() =>
            {
                p *= dag.as_const(c).unwrap_or(1.0);
                a
            }
            (Op::Div, &[a, d]) if dag.as_const(d).is_some() => {
                q *= dag.as_const(d).unwrap_or(1.0);
                a
            }
            _ => return (p, q, Some(node)),
        };
    }
}

/// `p / (q · k!)` as a numerator and a denominator: whole numbers in lowest
/// terms when `p` is a whole number of 2^-30ths and the denominator stays a
/// whole number a double holds exactly (`-1 / 6`, `3 / 16`), the numerator
/// over the factorial when only that is whole, else one constant over 1.
fn fraction(p: f64, q: f64, k: usize) -> (f64, f64) {
    let denominator = q * factorial(k);
    let exact = 2f64.powi(53);
    let whole = |v: f64| v.fract() == 0.0 && v.abs() < exact;
    if !whole(denominator) {
        return (p / denominator, 1.0);
    }
    // The least power of two that makes `p` whole (`0.375 = 3 / 8`).
    let scale = (0..=30).map(|e| 2f64.powi(e)).find(|s| whole(p * s) && whole(denominator * s));
    let Some(scale) = scale else { return (p * denominator.signum(), denominator.abs()) };
    let (p, d) = (p * scale, denominator * scale);
    let (mut a, mut b) = (p.abs() as u64, d.abs() as u64);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let g = a.max(1) as f64;
    let sign = if (p < 0.0) != (d < 0.0) { -1.0 } else { 1.0 };
    (sign * (p.abs() / g), d.abs() / g)
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
