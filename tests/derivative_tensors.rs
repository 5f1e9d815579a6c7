//! Issue 15: derivative tensors (nested Taylor passes, sparse symmetric)
//! and mixed partials of any order (`dstar::partial`) against the repeated
//! Jacobian, D*'s first-order machinery applied `d` times, evaluated at
//! points away from kinks and domain edges: every entry, every structural
//! zero (outside the pattern the repeated Jacobian must be 0), 0 wrong.

use dstar::factor::higher::Budget;
use dstar::frontend::{ExprDag, Kernel, NodeId};
use dstar::Program;

/// Functions of three inputs over the operations of the table.
const FUNCTIONS: [&str; 8] = [
    "sin(x*y)/(1 + x^2) + exp(z)*y^3",
    "log(1 + x^2 + y^2) * atan(z - x)",
    "sqrt(1 + x*y*z) + tanh(x - y) * cosh(z)",
    "x^3 * y^2 * z + pow(x, y) - y / z",
    "max(x, y) * exp(-z^2) + abs(x - 2*y)",
    "asin(x / 4) * acos(y / 4) + sinh(z) / (2 + cos(x))",
    "ifelse(x > y, x*y*z, x + y + z)^2 + log10(z^2 + 1)",
    "x*y + z",
];

/// Points where `FUNCTIONS` are smooth: no ties of max, abs or ifelse.
const POINTS: [[f64; 3]; 3] = [[0.7, -0.4, 1.3], [1.9, 0.6, -0.8], [0.3, 1.1, 0.5]];

/// The dense tensor of order `d` of every output, `m·n^d` entries in
/// row-major order, as a kernel: the Jacobian of the Jacobian of ...
fn repeated_jacobian(function: Kernel, d: usize) -> Kernel {
    let n = function.num_inputs();
    let mut kernel = function;
    for _ in 0..d {
        let rows = kernel.num_outputs();
        let jacobian = dstar::factor::jacobian(kernel);
        let entries: Vec<Option<NodeId>> =
            (0..rows).flat_map(|r| (0..n).map(move |c| (r, c))).map(|(r, c)| jacobian.get(r, c)).collect();
        let (mut dag, _): (ExprDag, _) = jacobian.into_kernel().into_parts();
        let zero = dag.constant(0.0);
        let roots = entries.into_iter().map(|e| e.unwrap_or(zero)).collect();
        kernel = Kernel::new(dag, roots, n).unwrap();
    }
    kernel
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// The entries of `index` in row-major order of an `n^d` block.
fn flat(index: &[u32], n: usize) -> usize {
    index.iter().fold(0, |acc, &j| acc * n + j as usize)
}

/// Every multi-index of `d` inputs below `n`, in row-major order.
fn all_indices(n: usize, d: usize) -> Vec<Vec<u32>> {
    (0..n.pow(d as u32))
        .map(|mut k| {
            let mut index = vec![0u32; d];
            for slot in index.iter_mut().rev() {
                *slot = (k % n) as u32;
                k /= n;
            }
            index
        })
        .collect()
}

fn check_tensor(program: &Program, d: usize, points: &[Vec<f64>], name: &str) -> usize {
    let (n, m) = (program.inputs.len(), program.outputs.len());
    let tensor = dstar::factor::derivative_tensor(program.kernel().unwrap(), d, &Budget::default()).unwrap();
    let dense = repeated_jacobian(program.kernel().unwrap(), d);
    let mut checked = 0;
    for x in points {
        let values = tensor.kernel().eval(x);
        let want = dense.eval(x);
        for i in 0..m {
            for index in all_indices(n, d) {
                let w = want[i * n.pow(d as u32) + flat(&index, n)];
                let got = tensor.position(i, &index).map_or(0.0, |k| values[k]);
                assert!(close(got, w), "{name}, order {d}, output {i}, ∂{index:?} at {x:?}: {got} vs {w}");
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn tensors_match_the_repeated_jacobian() {
    let points: Vec<Vec<f64>> = POINTS.iter().map(|p| p.to_vec()).collect();
    let mut checked = 0;
    for f in FUNCTIONS {
        let program = dstar::parse_expr_with_inputs(f, &["x", "y", "z"]).unwrap();
        for d in 1..=4 {
            checked += check_tensor(&program, d, &points, f);
        }
    }
    for name in ["lyons", "sh_5", "chebyshev_10"] {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/corpus/{name}.dstar"));
        let (_, program) = dstar::load_program(&path).unwrap();
        let point = program.point.clone().unwrap();
        let shifted: Vec<f64> = point.iter().map(|v| v * 0.9 + 0.05).collect();
        for d in 1..=3 {
            checked += check_tensor(&program, d, &[point.clone(), shifted.clone()], name);
        }
    }
    assert!(checked > 4_000, "{checked}");
}

#[test]
fn patterns_are_structural() {
    // Only what the expression can reach: x*y + z has one second derivative
    // and no third; a sum of squares has a diagonal Hessian.
    let t = |f: &str, d| {
        let program = dstar::parse_expr_with_inputs(f, &["x", "y", "z"]).unwrap();
        dstar::factor::derivative_tensor(program.kernel().unwrap(), d, &Budget::default()).unwrap()
    };
    let h = t("x*y + z", 2);
    assert_eq!((h.nnz(), h.entry(0)), (1, (0, &[0, 1][..])));
    assert_eq!(t("x*y + z", 3).nnz(), 0);
    let h = t("sin(x) + y^2 + exp(z)", 2);
    assert_eq!((0..h.nnz()).map(|k| h.entry(k).1.to_vec()).collect::<Vec<_>>(), [[0, 0], [1, 1], [2, 2]]);
    assert_eq!(t("x*y*z", 3).nnz(), 1);
    // Symmetric entries are stored once: C(n + d - 1, d) at most.
    assert_eq!(t("exp(x + y + z)", 4).nnz(), 15);
}

#[test]
fn mixed_partials_match_the_repeated_jacobian() {
    let budget = Budget::default();
    let mut checked = 0;
    for f in FUNCTIONS {
        let program = dstar::parse_expr_with_inputs(f, &["x", "y", "z"]).unwrap();
        let dense = repeated_jacobian(program.kernel().unwrap(), 4);
        for index in all_indices(3, 4) {
            // The index as (input, order) runs, in the order written.
            let mut by: Vec<(usize, u64)> = vec![];
            for &j in &index {
                match by.last_mut() {
                    Some((last, order)) if *last == j as usize => *order += 1,
                    _ => by.push((j as usize, 1)),
                }
            }
            let partial = dstar::partial(&program, &by, &budget, &dstar::Stop::never()).unwrap();
            for x in POINTS {
                let got = dstar::eval_program(&partial, &x)[0];
                let want = dense.eval(&x)[flat(&index, 3)];
                assert!(close(got, want), "{f}: {by:?} at {x:?}: {got} vs {want}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, FUNCTIONS.len() * 81 * POINTS.len());
}
