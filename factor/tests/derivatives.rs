//! Hessians, J·v, vᵀ·J and H·v against the Jacobian and central differences.

use frontend::{ExprDag, NodeId};
use testkit::{all_close, generate, Rng, Shape, Tol};

fn program(source: &str) -> frontend::Program {
    frontend::parse_program(source).expect("valid program")
}

const SCALAR: &str =
    "in x, y, z\na = x*y + sin(z)\nb = exp(a) * hypot(x, z)\nout f = b*b - atan2(y, a) + pow(a*a + 1, y)";

#[test]
fn hessian_matches_central_differences_of_the_gradient() {
    let p = program(SCALAR);
    let f = p.outputs[0].node;
    let hessian = factor::hessian(frontend::Kernel::new(p.dag.clone(), vec![f], 3).unwrap(), 0);
    let gradient = factor::jacobian(frontend::Kernel::new(p.dag.clone(), vec![f], 3).unwrap());
    let x = [0.3, -0.4, 0.7];
    let (value, grad, dense) = hessian.eval(&x);
    assert_eq!(value[0], frontend::eval(&p.dag, &[f], &x)[0]);
    assert_eq!(grad, gradient.eval(&x).1[0]);
    for k in 0..3 {
        let h = 1e-5;
        let (mut hi, mut lo) = (x, x);
        hi[k] += h;
        lo[k] -= h;
        let (_, g_hi) = gradient.eval(&hi);
        let (_, g_lo) = gradient.eval(&lo);
        for i in 0..3 {
            let approx = (g_hi[0][i] - g_lo[0][i]) / (2.0 * h);
            let exact = dense[i][k];
            assert!(
                (exact - approx).abs() <= 1e-5 * exact.abs().max(1.0),
                "H[{i}][{k}]: {exact} vs {approx}"
            );
            assert_eq!(dense[i][k], dense[k][i], "symmetric");
        }
    }
    assert!(hessian.lower_entries().all(|e| e.row >= e.col), "each symmetric pair built once");
}

#[test]
fn hessian_is_sparse_where_the_function_separates() {
    // f = x² + sin(y)·z: H[x][y] = H[x][z] = 0 structurally, H[z][z] = 0.
    let p = program("in x, y, z\nout x*x + sin(y)*z");
    let hessian =
        factor::hessian(frontend::Kernel::new(p.dag.clone(), vec![p.outputs[0].node], 3).unwrap(), 0);
    let pattern = hessian.lower_pattern();
    assert!(pattern.find(1, 0).is_none() && pattern.find(2, 0).is_none() && pattern.find(2, 2).is_none());
    assert_eq!(hessian.nnz(), 4, "xx, yy, yz and zy");
    let (_, _, values) = hessian.eval(&[1.0, 0.5, 2.0]);
    assert_eq!(values[0][0], 2.0);
    assert_eq!(values[1][2], 0.5f64.cos());
}

/// `J·v` and `vᵀ·J` from the dense Jacobian.
fn products(jacobian: &[Vec<f64>], v: &[f64], w: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let jv = jacobian.iter().map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum()).collect();
    let n = v.len();
    let wj = (0..n).map(|k| jacobian.iter().zip(w).map(|(row, wi)| row[k] * wi).sum()).collect();
    (jv, wj)
}

fn assert_close(a: &[f64], b: &[f64]) {
    assert!(all_close(a, b, Tol::rel(1e-10)), "{a:?} vs {b:?}");
}

#[test]
fn directional_products_match_the_jacobian() {
    for seed in 0..200 {
        let mut rng = Rng::new(seed);
        let case = generate(&mut rng, &Shape::calculus(3, 4, 20, 0.4));
        let (n, m) = (case.num_inputs, case.outputs.len());
        let jacobian =
            factor::jacobian(frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), n).unwrap());
        let jvp = factor::jvp(frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), n).unwrap(), 1);
        let vjp = factor::vjp(frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), n).unwrap(), 1);
        assert_eq!((jvp.num_inputs(), jvp.num_outputs()), (2 * n, m));
        assert_eq!((vjp.num_inputs(), vjp.num_outputs()), (n + m, n));
        let x: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let v: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let w: Vec<f64> = (0..m).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let (values, dense) = jacobian.eval(&x);
        if values.iter().chain(dense.iter().flatten()).any(|t| !t.is_finite()) {
            continue;
        }
        let (jv, wj) = products(&dense, &v, &w);
        assert_close(&jvp.eval(&[x.clone(), v.clone()].concat()), &jv);
        assert_close(&vjp.eval(&[x.clone(), w.clone()].concat()), &wj);
    }
}

#[test]
fn hessian_vector_product_matches_the_hessian() {
    let p = program(SCALAR);
    let f = p.outputs[0].node;
    let hvp = factor::hvp(frontend::Kernel::new(p.dag.clone(), vec![f], 3).unwrap(), 1);
    let hessian = factor::hessian(frontend::Kernel::new(p.dag.clone(), vec![f], 3).unwrap(), 0);
    let x = [0.2, 0.9, -0.5];
    let v = [1.5, -0.25, 0.75];
    let (_, _, dense) = hessian.eval(&x);
    let expected: Vec<f64> = dense.iter().map(|row| row.iter().zip(&v).map(|(a, b)| a * b).sum()).collect();
    // Inputs: x, the weight of the one output, the direction.
    assert_close(&hvp.eval(&[x.to_vec(), vec![1.0], v.to_vec()].concat()), &expected);
}

#[test]
fn derivatives_of_any_order_by_applying_the_jacobian_again() {
    // d³/dx³ sin(x²) at x = 0.7, against the closed form.
    let mut dag = ExprDag::new();
    let x = dag.input(0);
    let square = dag.mul(x, x);
    let f = dag.apply(frontend::Op::Sin, &[square]);
    let mut kernel = frontend::Kernel::new(dag, vec![f], 1).unwrap();
    for _ in 0..3 {
        let jacobian = factor::jacobian(kernel);
        let current: NodeId = jacobian.get(0, 0).expect("nonzero derivative");
        kernel = jacobian.into_kernel().with_roots(vec![current]).unwrap();
    }
    let t: f64 = 0.7;
    let u = t * t;
    let exact = -12.0 * t * u.sin() - 8.0 * t * t * t * u.cos();
    let value = kernel.eval(&[t])[0];
    assert!((value - exact).abs() < 1e-12 * exact.abs().max(1.0), "{value} vs {exact}");
}

#[test]
fn baselines_count_both_sweeps() {
    let p = program("in x, y\na = x*y\nout sin(a)\nout cos(a) + x");
    let outputs = p.output_nodes();
    let jacobian = factor::jacobian(p.kernel().unwrap());
    let forward = factor::forward_mode_ops(
        &frontend::Kernel::new(p.dag.clone(), outputs.to_vec(), 2).unwrap(),
        usize::MAX,
    )
    .expect("no limit");
    let reverse = factor::reverse_mode_ops(
        &frontend::Kernel::new(p.dag.clone(), outputs.to_vec(), 2).unwrap(),
        usize::MAX,
    )
    .expect("no limit");
    assert!(
        jacobian.jacobian_ops() <= forward.min(reverse),
        "{} vs {forward}/{reverse}",
        jacobian.jacobian_ops()
    );
}
