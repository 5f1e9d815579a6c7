//! Truncated Taylor series of a whole function along a direction given at
//! run time: the kernel behind `TaylorKernel`, for ODE and series users who
//! call it millions of times.

use crate::higher::{advance_within, Budget, HigherError};
use derivative::taylor::{Scale, Taylor};
use frontend::Kernel;

/// The Taylor coefficients `0..=order` of `f(x + t·v)` in `t` for every
/// output of `function`: a kernel of `(x, v)` (the direction is inputs
/// `n..2n`) whose output `k·m + i` is coefficient `k` of output `i`,
/// `f_i^(k)(x)[v, …, v] / k!`. Coefficient 0 is the function itself.
///
/// ```
/// let program = frontend::parse_expr("exp(x) * y")?;
/// let budget = factor::higher::Budget::default();
/// let series = factor::taylor_series(program.kernel()?, 3, &budget)?;
/// // exp(x + t) * (y + 2t) at x = 0, y = 1: 1 + 3t + 2.5t² + (7/6)t³
/// let c = frontend::eval(series.dag(), series.roots(), &[0.0, 1.0, 1.0, 2.0]);
/// assert_eq!(c[..3], [1.0, 3.0, 2.5]);
/// assert!((c[3] - 7.0 / 6.0).abs() < 1e-15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`HigherError::Work`] when the series needs more than `budget.max_work`
/// units of work (the message names the highest order within it);
/// [`HigherError::Constants`] past order 170, where `k!` overflows.
pub fn taylor_series(function: Kernel, order: u64, budget: &Budget) -> Result<Kernel, HigherError> {
    let (n, total, m) = (function.num_variables(), function.num_inputs(), function.num_outputs());
    // Taylor series run over calls written out.
    let (mut dag, roots) = function.inlined().into_parts();
    // Along the variables only: the direction is inputs total..total+n, the parameters stay put.
    let direction: Vec<_> = (0..total).map(|i| (i < n).then(|| dag.input(total + i))).collect();
    let mut taylor = Taylor::new(&dag, &roots, &direction, Scale::Coefficients);
    for k in 1..=order {
        advance_within(&mut taylor, &mut dag, k, order, budget)?;
    }
    let zero = dag.constant(0.0);
    let coefficients = (0..=order as usize)
        .flat_map(|k| roots.iter().map(move |&r| (k, r)))
        .map(|(k, r)| taylor.coefficient(r, k).unwrap_or(zero))
        .collect::<Vec<_>>();
    debug_assert_eq!(coefficients.len(), (order as usize + 1) * m);
    Ok(function.derived(dag, coefficients, n).expect("the series reads x, p and v only"))
}
