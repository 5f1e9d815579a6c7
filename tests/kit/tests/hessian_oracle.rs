//! The hyper-dual Hessian oracle against central differences: second
//! differences of the values, and first differences of the dual numbers'
//! exact gradients (more accurate, so a tighter check), on a function using
//! every smooth operation and on generated programs.

use frontend::{ExprDag, NodeId};
use testkit::{
    cases, central_hessian, close, eval_dual, eval_hyper, generate, hessian_oracle, step, Rng, Shape, Tol,
};

/// Every smooth operation, each inside its domain at the points below.
const SMOOTH: &str = "in x, y, z
a = sin(x) * cos(y) + tan(z / 2) - x / (y + 3)
b = asin(x / 2) + acos(y / 3) * atan(z)
c = sinh(x) + cosh(y) * tanh(z)
d = asinh(x) - acosh(2 + y * y) + atanh(z / 2)
f = exp(x) * log(y + 3) + log2(z + 2) - log10(x + 3)
g = sqrt(x + y + 3) + cbrt(z + 4) * erf(y - x)
h = atan2(y, x + 2) + hypot(x, z + 1) + pow(x + 2, y) + (y + 2)^2.5 + x^3
k = expm1(y) * exp2(z) + log1p(x + 0.5)
out a * b + c
out d - f * g + k
out h * a";

const POINTS: [[f64; 3]; 3] = [[0.3, -0.4, 0.7], [-0.6, 0.9, 0.2], [1.1, 0.25, -0.8]];

/// `∂/∂xj` of the dual numbers' exact gradient `∂f/∂xi`, by a central
/// difference, with the rounding error of its subtraction: `[r]` for each root.
fn gradient_difference(
    dag: &ExprDag,
    roots: &[NodeId],
    x: &[f64],
    i: usize,
    j: usize,
    h: f64,
) -> Vec<(f64, f64)> {
    let gradient = |y: &[f64]| eval_dual(dag, roots, y, i).outputs.iter().map(|d| d.d).collect::<Vec<_>>();
    testkit::central_difference(&gradient, x, j, h)
}

#[test]
fn every_smooth_operation_matches_central_differences() {
    let program = frontend::parse_program(SMOOTH).expect("valid program");
    let (dag, roots) = (&program.dag, program.output_nodes());
    let f = |x: &[f64]| frontend::eval(dag, &roots, x);
    for x in POINTS {
        let exact = hessian_oracle(dag, &roots, &x);
        let from_values = central_hessian(&f, &x);
        for (r, hessian) in exact.iter().enumerate() {
            for i in 0..3 {
                for j in 0..3 {
                    let (e, v) = (hessian[i][j], from_values[r][i][j]);
                    assert!(close(e, v, Tol { rel: 1e-5, abs: 1e-5 }), "H{r}[{i}][{j}] at {x:?}: {e} vs {v}");
                    let g = gradient_difference(dag, &roots, &x, i, j, step(x[j], 1))[r].0;
                    assert!(close(e, g, Tol { rel: 1e-7, abs: 1e-8 }), "H{r}[{i}][{j}] at {x:?}: {e} vs {g}");
                    assert_eq!(e.to_bits(), hessian[j][i].to_bits(), "symmetric");
                }
            }
        }
    }
}

#[test]
fn first_derivatives_are_the_dual_numbers() {
    let program = frontend::parse_program(SMOOTH).expect("valid program");
    let roots = program.output_nodes();
    for x in POINTS {
        for i in 0..3 {
            let dual = eval_dual(&program.dag, &roots, &x, i);
            let hyper = eval_hyper(&program.dag, &roots, &x, i, (i + 1) % 3);
            for (d, h) in dual.outputs.iter().zip(&hyper.outputs) {
                assert_eq!((d.v.to_bits(), d.d.to_bits()), (h.v.to_bits(), h.d1.to_bits()));
            }
        }
    }
}

/// Generated programs (every operation, domain-safe): where both steps of
/// the difference stay clear of kinks and agree with each other, the oracle
/// agrees with them.
#[test]
fn generated_programs_match_differences_of_the_gradient() {
    let (mut agreed, mut skipped) = (0usize, 0usize);
    for seed in 0..cases(300, 100_000) as u64 {
        let mut rng = Rng::new(seed);
        let shape = Shape::calculus(1 + rng.below(3), 1 + rng.below(3), 2 + rng.below(20), 0.5);
        let case = generate(&mut rng, &shape);
        let (dag, roots, x) = (&case.dag, &case.outputs, &case.point);
        let exact = hessian_oracle(dag, roots, x);
        for i in 0..case.num_inputs {
            for j in 0..case.num_inputs {
                let eval = eval_hyper(dag, roots, x, i, j);
                let h = 1e-5 * x[j].abs().max(1.0);
                if eval.kink_margin < 100.0 * h {
                    skipped += 1;
                    continue;
                }
                // What a step along xj cannot resolve (xj absorbed by a huge value).
                let along_j = eval_dual(dag, roots, x, j);
                let coarse = gradient_difference(dag, roots, x, i, j, h);
                let fine = gradient_difference(dag, roots, x, i, j, h / 2.0);
                for (r, hyper) in eval.outputs.iter().enumerate() {
                    let tol = Tol { rel: 1e-5, abs: 1e-7 };
                    let ((c, c_noise), (f, f_noise), e) = (coarse[r], fine[r], exact[r][i][j]);
                    let room = tol.abs + tol.rel * c.abs().max(f.abs());
                    let quantized = 2.0 * along_j.outputs[r].e / h;
                    let noisy = c_noise.max(f_noise).max(quantized) > 0.1 * room
                        || c_noise.is_nan()
                        || f_noise.is_nan();
                    if !c.is_finite() || !f.is_finite() || noisy || (c - f).abs() > 0.25 * room {
                        skipped += 1; // ill-conditioned: rounding noise, or the two steps disagree
                        continue;
                    }
                    let rounding = 1e-11 * hyper.m12;
                    assert!(
                        (e - f).abs() <= tol.abs + tol.rel * e.abs().max(f.abs()) + rounding,
                        "seed {seed}: H{r}[{i}][{j}] at {x:?}: hyper-dual {e} vs difference {f}\n{:#?}",
                        case.describe()
                    );
                    agreed += 1;
                }
            }
        }
    }
    eprintln!("{agreed} second derivatives agree, {skipped} skipped");
    assert!(agreed > 10 * skipped, "{agreed} agreed, {skipped} skipped");
}

/// Issue 12's semantics in both oracles: `ifelse`, `min` and `max` take the
/// derivatives of the argument they return, whatever the others' are
/// (here infinite or undefined: `x/y` at `y = 0`, `sqrt(x)` and `1/x` at 0).
#[test]
fn the_branch_not_taken_contributes_nothing() {
    let cases: [(&str, [f64; 2], [f64; 2]); 3] = [
        ("in x, y\nout ifelse(y != 0, x/y, x)", [1.5, 0.0], [1.0, 0.0]),
        ("in x, y\nout max(x + 1, sqrt(x)) * y", [0.0, 2.0], [2.0, 1.0]),
        ("in x, y\nout min(y, 1/x)", [0.0, 2.0], [0.0, 1.0]),
    ];
    for (source, x, gradient) in cases {
        let program = frontend::parse_program(source).expect("valid program");
        let roots = program.output_nodes();
        for (k, want) in gradient.iter().enumerate() {
            assert_eq!(eval_dual(&program.dag, &roots, &x, k).outputs[0].d, *want, "{source}: d/dx{k}");
        }
        let hessian = &hessian_oracle(&program.dag, &roots, &x)[0];
        let mixed = if source.contains("max") { 1.0 } else { 0.0 };
        assert_eq!(hessian, &vec![vec![0.0, mixed], vec![mixed, 0.0]], "{source}");
    }
}
