//! Partial derivatives of any order, `∂^(k₁+k₂+…) f / ∂x_{i₁}^k₁ ∂x_{i₂}^k₂ …`,
//! by univariate Taylor propagation ([`derivative::taylor`]) along one
//! variable after another (nesting), within a [`Budget`] of work.
//!
//! Orders are built one at a time, so a derivative that becomes zero (a
//! polynomial) or repeats an earlier one (the derivatives of `sin` cycle
//! with period 4, those of `exp(-x)` with period 2) answers any order at
//! once: a repeated derivative is the same node of the hash-consed DAG, and
//! equal functions have equal derivatives.

use derivative::taylor::{Scale, Taylor, TaylorError};

impl HigherError {
    /// The overflow of the recurrences' constants at order `order` of the
    /// variable `stage`.
    pub(crate) fn constants(error: TaylorError, order: u64, stage: usize) -> HigherError {
        let TaylorError::ConstantOverflow { order: at } = error;
        HigherError::Constants { order, stage, within: at as u64 - 1 }
    }
}
use frontend::{ExprDag, Kernel, NodeId, Stop};
use std::collections::HashMap;

/// Bounds on a higher derivative, in units of work (never time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Units of work all the orders together may spend: one per
    /// coefficient of each node and one per term of its recurrence, about
    /// the nodes they add to the DAG.
    pub max_work: u64,
    /// Operations the derivative may have.
    pub max_ops: usize,
}

impl Default for Budget {
    /// About a second of work, and derivatives a person could read.
    fn default() -> Budget {
        Budget { max_work: 2_000_000, max_ops: 100_000 }
    }
}

/// Why a higher derivative was not built. Each names the highest order that
/// is within the budget, so the caller can suggest it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HigherError {
    /// The work budget ran out at order `reached` of the variable `stage`
    /// (counting from 0 in the order given).
    #[error(
        "order {order} needs too much work: {reached} orders of the Taylor series took {work} units \
         (limit {limit}); ask for order {within} or lower"
    )]
    Work {
        /// The order asked for (of the variable `stage`).
        order: u64,
        /// Which variable of the list, from 0.
        stage: usize,
        /// Orders built before the budget ran out.
        reached: u64,
        /// The highest order within the budget.
        within: u64,
        /// Work spent.
        work: u64,
        /// The budget.
        limit: u64,
    },
    /// The derivative of order `order` has more operations than allowed.
    #[error(
        "the derivative of order {order} has {ops} operations, more than the limit of {limit}; \
         ask for order {within} or lower"
    )]
    Ops {
        /// The order whose derivative is too large.
        order: u64,
        /// Which variable of the list, from 0.
        stage: usize,
        /// Its operations.
        ops: usize,
        /// The highest order within the limit.
        within: u64,
        /// The limit.
        limit: usize,
    },
    /// The constants of the recurrences (binomial coefficients,
    /// factorials) overflow `f64` past order `within`.
    #[error(
        "order {order} needs constants beyond the range of double precision; ask for order {within} or lower"
    )]
    Constants {
        /// The order asked for (of the variable `stage`).
        order: u64,
        /// Which variable of the list, from 0.
        stage: usize,
        /// The highest order whose constants fit.
        within: u64,
    },
    /// The caller asked to stop.
    #[error("interrupted")]
    Stopped,
}

/// The partial derivative of `function`'s single output by its inputs
/// `by`: `(input, order)` pairs, differentiated in that order; an order of
/// 0 leaves the function as it is. Returns a one-output kernel over the
/// same inputs, in a fresh DAG with only what the derivative needs (the
/// constant 0 for a structural zero). `stop` is asked before every order.
///
/// ```
/// let program = frontend::parse_expr("x^3 * sin(y)")?;
/// let kernel = program.kernel()?;
/// let budget = factor::higher::Budget::default();
/// let d = factor::higher::partial(kernel, &[(0, 2), (1, 1)], &budget, &frontend::Stop::never())?;
/// assert_eq!(frontend::print_expr(d.dag(), d.roots()[0], &program.inputs), "6 * x * cos(y)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`HigherError`] when the budget runs out, the constants overflow, or
/// `stop` says so.
///
/// Panics if `function` has other than one output.
pub fn partial(
    function: Kernel,
    by: &[(usize, u64)],
    budget: &Budget,
    stop: &Stop,
) -> Result<Kernel, HigherError> {
    assert_eq!(function.num_outputs(), 1, "a partial derivative of a scalar function");
    let mut kernel = compact(&function, function.roots()[0]);
    let mut spent = 0;
    for (stage, &(input, order)) in by.iter().enumerate() {
        let (dag, root) = along(kernel, input, order, stage, budget, &mut spent, stop)?;
        kernel = function.derived(dag, vec![root], 0).expect("derivatives read the function's inputs");
    }
    Ok(kernel)
}

/// The derivatives of orders `0..=order` of `function`'s single output by
/// its input `input`, in `function`'s DAG (extended): the `k`-th is
/// `None` where it is a structural zero.
///
/// # Errors
/// [`HigherError`] when the budget runs out (operations are not counted:
/// every order is returned), the constants overflow, or `stop` says so.
///
/// Panics if `function` has other than one output.
pub fn derivatives(
    function: Kernel,
    input: usize,
    order: u64,
    budget: &Budget,
    stop: &Stop,
) -> Result<(ExprDag, Vec<Option<NodeId>>), HigherError> {
    assert_eq!(function.num_outputs(), 1, "derivatives of a scalar function");
    // Taylor series run over calls written out.
    let function = function.inlined();
    let root = function.roots()[0];
    let (mut dag, _) = function.into_parts();
    let one = dag.constant(1.0);
    let mut direction = vec![None; input + 1];
    direction[input] = Some(one);
    let mut taylor = Taylor::new(&dag, &[root], &direction, Scale::Derivatives);
    let mut all = vec![Some(root)];
    for k in 1..=order {
        if stop.requested() {
            return Err(HigherError::Stopped);
        }
        advance_within(&mut taylor, &mut dag, k, order, budget)?;
        all.push(taylor.coefficient(root, k as usize));
    }
    Ok((dag, all))
}

/// Advances `taylor` to coefficient `k` (of `order` asked for), or fails
/// once its work passes `budget`, naming `k - 1` as the highest order within
/// it: the one budget check of `derivatives` and `taylor_series`.
pub(crate) fn advance_within(
    taylor: &mut Taylor,
    dag: &mut ExprDag,
    k: u64,
    order: u64,
    budget: &Budget,
) -> Result<(), HigherError> {
    let before = taylor.work();
    taylor.advance(dag).map_err(|e| HigherError::constants(e, order, 0))?;
    if taylor.work() > budget.max_work {
        let within = k - 1;
        let (work, limit) = (before, budget.max_work);
        return Err(HigherError::Work { order, stage: 0, reached: within, within, work, limit });
    }
    Ok(())
}

/// Order `order` of `kernel`'s root along `input`, in a fresh DAG.
fn along(
    kernel: Kernel,
    input: usize,
    order: u64,
    stage: usize,
    budget: &Budget,
    spent: &mut u64,
    stop: &Stop,
) -> Result<(ExprDag, NodeId), HigherError> {
    let kernel = kernel.inlined();
    let root = kernel.roots()[0];
    let (mut dag, _) = kernel.into_parts();
    if order == 0 {
        return Ok((dag, root));
    }
    let one = dag.constant(1.0);
    let mut direction = vec![None; input + 1];
    direction[input] = Some(one);
    let mut taylor = Taylor::new(&dag, &[root], &direction, Scale::Derivatives);
    if taylor.degree(root).is_some_and(|d| u64::from(d) < order) {
        return Ok(zero());
    }
    // Each derivative, by order, and where each node first appeared.
    let mut derivatives = vec![root];
    let mut seen: HashMap<NodeId, u64> = HashMap::from([(root, 0)]);
    let mut next_ops_check = 1;
    for k in 1..=order {
        if stop.requested() {
            return Err(HigherError::Stopped);
        }
        let before = taylor.work();
        taylor.advance(&mut dag).map_err(|e| HigherError::constants(e, order, stage))?;
        let work = *spent + taylor.work();
        // The guards are on repeating: a first derivative is what grad builds.
        if k > 1 && work > budget.max_work {
            return Err(HigherError::Work {
                order,
                stage,
                reached: k - 1,
                // The orders built were within the work, not all within the
                // operations.
                within: highest_within(&dag, &derivatives, k - 1, budget),
                work: *spent + before,
                limit: budget.max_work,
            });
        }
        let node = match taylor.coefficient(root, k as usize) {
            Some(node) if !dag.is_const(node, 0.0) => node,
            _ => {
                *spent = work;
                return Ok(zero());
            }
        };
        if let Some(&at) = seen.get(&node) {
            // Order k repeats order `at`: a cycle of k - at steps.
            let answer = derivatives[(at + (order - k) % (k - at)) as usize];
            *spent = work;
            return finish(dag, answer, order, stage, budget, &derivatives);
        }
        seen.insert(node, k);
        derivatives.push(node);
        // Operations grow with the order: checked at powers of two (each
        // check walks the DAG), then searched back on failure.
        if k == next_ops_check {
            next_ops_check *= 2;
            if dag.count_ops(&[node]) > budget.max_ops {
                *spent = work;
                return finish(dag, node, k, stage, budget, &derivatives);
            }
        }
        *spent = work;
    }
    let answer = derivatives[order as usize];
    finish(dag, answer, order, stage, budget, &derivatives)
}

/// `answer`, the derivative of order `order`, in a fresh DAG, unless it has
/// too many operations: then the error names the highest order within the
/// limit among `derivatives` (by order).
fn finish(
    dag: ExprDag,
    answer: NodeId,
    order: u64,
    stage: usize,
    budget: &Budget,
    derivatives: &[NodeId],
) -> Result<(ExprDag, NodeId), HigherError> {
    let ops = dag.count_ops(&[answer]);
    // The guards are on repeating: a first derivative is what grad builds.
    if ops <= budget.max_ops || order <= 1 {
        let mut fresh = ExprDag::new();
        let root = fresh.import(&dag, &[answer], None)[0];
        return Ok((fresh, root));
    }
    let within = highest_within(&dag, derivatives, order, budget);
    Err(HigherError::Ops { order, stage, ops, within, limit: budget.max_ops })
}

/// The highest order up to `upto` among `derivatives` (by order, from 0)
/// that [`along`] answers: asking for order `j` checks the operations of
/// the orders `2, 4, 8, ... <= j` on the way and of `j` at the end (orders
/// 0 and 1 pass whatever they hold), so the answer is below the first
/// power of two over the limit, and within the limit itself. Operations
/// grow with the order, so a bisection finds the last order within the
/// limit; should they not, it still ends on one that is.
fn highest_within(dag: &ExprDag, derivatives: &[NodeId], upto: u64, budget: &Budget) -> u64 {
    let within = |k: u64| k <= 1 || dag.count_ops(&[derivatives[k as usize]]) <= budget.max_ops;
    let mut hi = upto.min(derivatives.len() as u64 - 1);
    let mut power = 2;
    while power <= hi {
        if !within(power) {
            hi = power - 1;
            break;
        }
        power *= 2;
    }
    if within(hi) {
        return hi;
    }
    // `lo` is within the limit, `hi` is not.
    let mut lo = 1;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if within(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The constant 0, alone in a DAG.
fn zero() -> (ExprDag, NodeId) {
    let mut dag = ExprDag::new();
    let zero = dag.constant(0.0);
    (dag, zero)
}

/// The kernel with only what `root` needs.
fn compact(function: &Kernel, root: NodeId) -> Kernel {
    let mut dag = ExprDag::new();
    let root = dag.import(function.dag(), &[root], None)[0];
    function.derived(dag, vec![root], 0).expect("a part of a valid kernel")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derivative(source: &str, by: &[(usize, u64)]) -> Result<String, HigherError> {
        let program = frontend::parse_expr_with_inputs(source, &["x", "y"]).expect("valid");
        let d = partial(program.kernel().expect("valid"), by, &Budget::default(), &Stop::never())?;
        Ok(frontend::print_expr(d.dag(), d.roots()[0], &program.inputs))
    }

    #[test]
    fn zeros_and_cycles_answer_any_order() {
        assert_eq!(derivative("x^2", &[(0, u64::MAX)]).unwrap(), "0");
        assert_eq!(derivative("sin(x)", &[(0, 1_000_000_000_000_000_002)]).unwrap(), "-sin(x)");
        assert_eq!(derivative("exp(-x)", &[(0, 999)]).unwrap(), "-exp(-x)");
        assert_eq!(derivative("x^5", &[(0, 3)]).unwrap(), "60 * x^2");
        assert_eq!(derivative("log(x)", &[(0, 10)]).unwrap(), "-362880 / x^10");
        assert_eq!(derivative("sin(x)", &[(0, 4)]).unwrap(), "sin(x)");
        assert_eq!(derivative("x*y", &[(0, 1), (1, 1)]).unwrap(), "1");
        assert_eq!(derivative("y", &[(0, 1)]).unwrap(), "0");
    }

    /// The stage and the order an error names as within the budget.
    fn hint(error: &HigherError) -> Option<(usize, u64)> {
        match *error {
            HigherError::Work { stage, within, .. }
            | HigherError::Ops { stage, within, .. }
            | HigherError::Constants { stage, within, .. } => Some((stage, within)),
            HigherError::Stopped => None,
        }
    }

    /// Issue 31: a work error named the last order built within the work,
    /// whatever its operations: order (40, 40) of this function asked for
    /// (40, 28), whose derivative has 196,153 operations (limit 100,000),
    /// and that error asked for (40, 18). A hint is now an order that
    /// works: asking for it gets past that variable.
    #[test]
    fn issue_31_the_order_an_error_names_works() {
        type Case = (&'static str, &'static [(usize, u64)], Budget);
        let cases: [Case; 6] = [
            ("exp(sin(x)*cos(y))/(1+x^2+y^2)", &[(0, 40), (1, 40)], Budget::default()),
            ("exp(sin(x)*cos(y))/(1+x^2+y^2)", &[(1, 40), (0, 40)], Budget::default()),
            ("exp(sin(x)*cos(y))/(1+x^2+y^2)", &[(0, 200)], Budget::default()),
            ("sin(x)*exp(x)/(1+y^2)", &[(0, 300), (1, 30)], Budget { max_work: 100_000, max_ops: 400 }),
            ("sin(x*y)/(1+x^2)", &[(0, 60)], Budget { max_work: 20_000, max_ops: 300 }),
            ("atan(x*y)*log(1+x)", &[(0, 30), (1, 30)], Budget { max_work: 300_000, max_ops: 3_000 }),
        ];
        for (source, by, budget) in cases {
            let program = frontend::parse_expr_with_inputs(source, &["x", "y"]).expect("valid");
            let kernel = program.kernel().expect("valid");
            let Err(error) = partial(kernel.clone(), by, &budget, &Stop::never()) else {
                panic!("{source} {by:?} is within {budget:?}")
            };
            let (stage, within) = hint(&error).expect("a hint");
            let mut asked = by.to_vec();
            asked[stage].1 = within;
            match partial(kernel, &asked, &budget, &Stop::never()) {
                Ok(_) => {}
                Err(e) => assert!(
                    hint(&e).is_some_and(|(later, _)| later > stage),
                    "{source} {by:?}: {error}; then {asked:?}: {e}"
                ),
            }
        }
    }

    #[test]
    fn budgets_name_an_order_within_them() {
        let program = frontend::parse_expr("sin(x)*exp(x)").expect("valid");
        let budget = Budget { max_work: 20_000, max_ops: usize::MAX };
        let error = partial(program.kernel().unwrap(), &[(0, 1000)], &budget, &Stop::never()).unwrap_err();
        let HigherError::Work { within, .. } = error else { panic!("{error}") };
        assert!(partial(program.kernel().unwrap(), &[(0, within)], &budget, &Stop::never()).is_ok());
        let budget = Budget { max_work: u64::MAX, max_ops: 50 };
        let error = partial(program.kernel().unwrap(), &[(0, 40)], &budget, &Stop::never()).unwrap_err();
        let HigherError::Ops { within, .. } = error else { panic!("{error}") };
        assert!(partial(program.kernel().unwrap(), &[(0, within)], &budget, &Stop::never()).is_ok());
        assert!(partial(program.kernel().unwrap(), &[(0, within + 1)], &budget, &Stop::never()).is_err());
    }
}
