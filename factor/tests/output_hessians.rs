//! Issue 26: an output's Hessian never depends on the other outputs. Each
//! generated program gets a companion output whose second derivative is
//! infinite or NaN at the point (`sqrt`, `log`, `cbrt`, `1/x`, `acosh`,
//! `x^1.5` at the edge of their domains, `sqrt(x - c)` past it); every
//! other output's Hessian from [`factor::output_hessians`] must be the same
//! bits with and without the companion, and agree with hyper-dual numbers.
//! (Weight 1 on one output and 0 on the others in the Lagrangian kernel
//! gave NaN: `0 · ∞`.) 300 programs; `DSTAR_LONG=1` runs 10,000.

use frontend::{Kernel, NodeId, Op};
use testkit::{eval_hyper, generate, same, Rng, Shape};

/// Output `i`'s lower triangle, dense, from an [`factor::OutputHessians`] kernel at `x`.
fn own_hessians(kernel: Kernel, x: &[f64]) -> Vec<Vec<Vec<f64>>> {
    let hessians = factor::output_hessians(kernel);
    let out = hessians.kernel().eval(x);
    hessians.split(&out).into_iter().enumerate().map(|(i, values)| hessians.to_dense(i, values)).collect()
}

#[test]
fn an_output_hessian_ignores_a_singular_companion() {
    let count = testkit::cases(300, 10_000) as u64;
    let mut compared = 0;
    for seed in 0..count {
        let mut rng = Rng::new(seed);
        let shape = Shape::calculus(1 + rng.below(3), 1 + rng.below(3), 3 + rng.below(20), 0.5);
        let case = generate(&mut rng, &shape);
        let n = case.num_inputs;
        let mut dag = case.dag.clone();
        // A companion singular at the point: its argument is x_k - x_k(point) + edge.
        let k = rng.below(n);
        let at = dag.constant(case.point[k]);
        let xk = dag.input(k);
        let shifted = dag.apply(Op::Sub, &[xk, at]);
        let companion = match rng.below(6) {
            0 => dag.apply(Op::Sqrt, &[shifted]),
            1 => dag.apply(Op::Log, &[shifted]),
            2 => dag.apply(Op::Cbrt, &[shifted]),
            3 => {
                let one = dag.constant(1.0);
                dag.apply(Op::Div, &[one, shifted])
            }
            4 => {
                let one = dag.constant(1.0);
                let edge = dag.apply(Op::Add, &[shifted, one]);
                dag.apply(Op::Acosh, &[edge])
            }
            _ => {
                let e = dag.constant(1.5);
                dag.apply(Op::Pow, &[shifted, e])
            }
        };
        let alone: Vec<NodeId> = case.outputs.to_vec();
        let position = rng.below(alone.len() + 1);
        let mut with = alone.clone();
        with.insert(position, companion);
        let without = own_hessians(Kernel::new(dag.clone(), alone.clone(), n).unwrap(), &case.point);
        let mut beside = own_hessians(Kernel::new(dag.clone(), with, n).unwrap(), &case.point);
        beside.remove(position);
        for (i, (a, b)) in without.iter().zip(&beside).enumerate() {
            for (r, (row_a, row_b)) in a.iter().zip(b).enumerate() {
                for (c, (p, q)) in row_a.iter().zip(row_b).enumerate() {
                    assert!(
                        same(*p, *q),
                        "seed {seed}: output {i}'s H[{r}][{c}] is {q:e} beside the companion, {p:e} alone"
                    );
                }
            }
            // And it is the output's Hessian: against hyper-dual numbers.
            for r in 0..n {
                for c in 0..=r {
                    let hyper = eval_hyper(&dag, &alone[i..=i], &case.point, r, c).outputs[0];
                    let tolerance = 1e-9 * hyper.d12.abs() + 1e-11 * hyper.m12 + 1e-13;
                    let got = a[r][c];
                    assert!(
                        !hyper.d12.is_finite() || (got - hyper.d12).abs() <= tolerance,
                        "seed {seed}: output {i}'s H[{r}][{c}] is {got:e}, hyper-dual {:e}",
                        hyper.d12
                    );
                }
            }
            compared += 1;
        }
    }
    assert!(compared as u64 > count, "{compared} Hessians compared");
}
