//! Lagrangian Hessians by columns of `H·V` (`factor::columns`): on every
//! family of the shape zoo, in both forms, at sizes that leave a partial
//! last call, for one, three and eight directions a call, the columns
//! agree with the straight-line Hessian (edge pushing or D*) within
//! rounding, hold every entry it holds, and the compiled kernel equals the
//! interpreter bit for bit; the plan takes them for large, dense Hessians
//! only, on both sides of its threshold, and there they agree with
//! hyper-dual numbers.

use dstar::factor::columns::{columns, Columns};
use dstar::frontend::{Block, Kernel, Program};
use dstar::{ColumnsKernel, JitCompiler, Request};
use testkit::tol::{all_close, close, same_bits, Tol};
use testkit::zoo::{Form, Zoo};
use testkit::{eval_hyper, Rng};

/// `x`, `p` and weights for `program`: its point, or values about 0.3.
fn arguments(program: &Program, rng: &mut Rng) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let x = program
        .point
        .clone()
        .unwrap_or_else(|| (0..program.inputs.len()).map(|_| rng.uniform(-0.5, 0.5)).collect());
    let p = program.param_values.clone().unwrap_or_else(|| vec![0.3; program.params.len()]);
    let w = (0..program.outputs.len()).map(|i| 0.5 + 0.25 * i as f64).collect();
    (x, p, w)
}

/// The lower triangle `values` of `pattern`'s Hessian as a dense matrix.
fn dense(pattern: &dstar::frontend::SparsityPattern, values: &[f64]) -> Vec<Vec<f64>> {
    Block::Lower(pattern.clone()).to_dense(values)
}

#[test]
fn columns_equal_the_straight_line_hessian_on_every_family_of_the_zoo() {
    let compiler = JitCompiler::new().expect("a supported host");
    let mut rng = Rng::new(35);
    let mut checked = 0;
    for zoo in Zoo::ALL {
        for form in [Form::Functions, Form::Flat] {
            for size in [3, 11] {
                let program =
                    dstar::parse_program(&zoo.generate(size, form)).expect("the zoo writes valid programs");
                let f: Kernel = program.kernel().expect("a kernel");
                let (n, q, m) = (program.inputs.len(), program.params.len(), program.outputs.len());
                let (x, p, w) = arguments(&program, &mut rng);
                let input: Vec<f64> = x.iter().chain(&p).chain(&w).copied().collect();
                let straight = factor_hessian(&f);
                let expected = dense(&straight.0, &straight.1.eval(&input));
                for k in [1, 3, 8] {
                    let what = format!("{} {} {size}, {k} directions a call", zoo.name(), form.name());
                    let by_columns = Columns::new(&f, k);
                    let values = by_columns.eval(&input);
                    let pattern = by_columns.pattern();
                    for (row, col) in straight.0.positions() {
                        assert!(pattern.find(row, col).is_some(), "{what}: ({row}, {col}) missing");
                    }
                    let got = dense(pattern, &values);
                    for (i, (a, b)) in got.iter().zip(&expected).enumerate() {
                        assert!(all_close(a, b, Tol::rel(1e-11)), "{what}: row {i}: {a:?} against {b:?}");
                    }
                    let compiled =
                        ColumnsKernel::compile(&compiler, by_columns.clone(), [n, q, m]).expect("compiles");
                    let mut out = vec![0.0; compiled.num_outputs()];
                    compiled.eval_parts(&[&x, &p, &w, &[]], &mut out).expect("lengths");
                    assert!(
                        same_bits(&out, &values),
                        "{what}: compiled {out:?} against interpreted {values:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, Zoo::ALL.len() * 2 * 2 * 3);
}

/// The straight-line Lagrangian Hessian's lower pattern and kernel.
fn factor_hessian(f: &Kernel) -> (dstar::frontend::SparsityPattern, Kernel) {
    let hessian = dstar::factor::lagrangian_hessian(f.clone());
    (hessian.lower_pattern().clone(), hessian.lower_kernel())
}

/// Single shooting over 700 steps has a lower triangle of at most 246,753
/// nonzeros, under the plan's 2^18, and over 760 steps 289,180, over it; a
/// tree of 800 inputs 320,400; multiple shooting and a wide sum of as many
/// variables are banded, too sparse for columns at any size.
#[test]
fn the_plan_takes_columns_for_large_dense_hessians_only() {
    let cases = [
        (Zoo::SingleShooting { controls: 1 }, Form::Flat, 700, false),
        (Zoo::SingleShooting { controls: 1 }, Form::Flat, 760, true),
        (Zoo::SingleShooting { controls: 1 }, Form::Functions, 760, true),
        (Zoo::Tree, Form::Flat, 800, true),
        (Zoo::MultipleShooting, Form::Flat, 400, false),
        (Zoo::WideSum, Form::Flat, 800, false),
    ];
    for (zoo, form, size, expected) in cases {
        let program = dstar::parse_program(&zoo.generate(size, form)).expect("the zoo writes valid programs");
        let f = program.kernel().expect("a kernel");
        let found = columns(&f);
        assert_eq!(found.is_some(), expected, "{} {} {size}", zoo.name(), form.name());
        if let Some(found) = found {
            let n = f.num_variables();
            assert!(found.nnz() >= dstar::factor::plan::COLUMNS_MIN_NONZEROS);
            assert!(found.nnz() <= n * (n + 1) / 2);
            assert_eq!(found.pattern().nnz(), found.nnz());
        }
    }
}

/// Where the plan takes columns, the compiled Hessian a user gets agrees
/// with hyper-dual numbers, on entries spread over the whole triangle.
#[test]
fn a_hessian_by_columns_agrees_with_hyper_dual_numbers() {
    let mut rng = Rng::new(36);
    for (zoo, form, size) in
        [(Zoo::SingleShooting { controls: 1 }, Form::Functions, 760), (Zoo::Tree, Form::Flat, 800)]
    {
        let program = dstar::parse_program(&zoo.generate(size, form)).expect("the zoo writes valid programs");
        let (x, p, w) = arguments(&program, &mut rng);
        let function = dstar::Function::new(program.clone(), dstar::Options::default());
        let hessian = function.compile(Request::Hessian).expect("compiles");
        assert_eq!(hessian.method(), Some("hvp_columns"), "{}", zoo.name());
        let mut out = vec![0.0; hessian.out_len()];
        hessian.eval(dstar::Args::x(&x).p(&p).w(&w), &mut out).expect("lengths");
        let pattern = hessian.pattern().expect("a Hessian's pattern");
        let f = program.kernel().expect("a kernel");
        let point: Vec<f64> = x.iter().chain(&p).copied().collect();
        let entries: Vec<(usize, usize)> = pattern.positions().collect();
        for _ in 0..40 {
            let (row, col) = entries[rng.below(entries.len())];
            let at = pattern.find(row, col).expect("a structural entry");
            let hyper = eval_hyper(f.dag(), f.roots(), &point, row, col);
            let exact: f64 = hyper.outputs.iter().zip(&w).map(|(h, w)| w * h.d12).sum();
            assert!(
                close(out[at], exact, Tol::rel(1e-10)),
                "{} ({row}, {col}): {} against {exact}",
                zoo.name(),
                out[at]
            );
        }
    }
}

/// Rows that are not one run of columns (an arrow, a band with holes,
/// scattered pairs) are written from the pattern, rows that are from
/// their first column: on generated functions with both, for one to eight
/// directions a call, the columns agree with the straight line and the
/// compiled kernel with the interpreter bit for bit.
#[test]
fn columns_with_gaps_in_rows_agree_with_the_straight_line() {
    let compiler = JitCompiler::new().expect("a supported host");
    let mut rng = Rng::new(37);
    for (case, n) in [(0, 7), (1, 12), (2, 20), (3, 33)] {
        let x: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        // A band of width 2, an arrow to the last input, and pairs at random.
        let mut terms: Vec<String> = (0..n).map(|i| format!("sin({})*{}", x[i], x[(i + 2) % n])).collect();
        terms.extend((0..n - 1).step_by(3).map(|i| format!("{}*{}^2", x[n - 1], x[i])));
        terms.extend((0..n).map(|_| format!("exp({}*{})", x[rng.below(n)], x[rng.below(n)])));
        let source =
            format!("in {}\nout {}\nout {}", x.join(", "), terms.join(" + "), terms[..n / 2].join(" * "));
        let program = dstar::parse_program(&source).expect("a valid program");
        let f = program.kernel().expect("a kernel");
        let (xs, p, w) = arguments(&program, &mut rng);
        let input: Vec<f64> = xs.iter().chain(&p).chain(&w).copied().collect();
        let straight = factor_hessian(&f);
        let expected = dense(&straight.0, &straight.1.eval(&input));
        for k in [1, 2, 5, 8] {
            let by_columns = Columns::new(&f, k);
            let pattern = by_columns.pattern();
            let gaps = (0..n).filter(|&row| {
                let cols = &pattern.cols[pattern.row_offsets[row]..pattern.row_offsets[row + 1]];
                cols.windows(2).any(|pair| pair[1] != pair[0] + 1)
            });
            assert!(gaps.count() > 0, "case {case}: some row has a gap");
            let values = by_columns.eval(&input);
            let got = dense(pattern, &values);
            for (i, (a, b)) in got.iter().zip(&expected).enumerate() {
                assert!(all_close(a, b, Tol::rel(1e-11)), "case {case}, k {k}: row {i}: {a:?} against {b:?}");
            }
            let compiled =
                ColumnsKernel::compile(&compiler, by_columns.clone(), [n, 0, 2]).expect("compiles");
            let mut out = vec![0.0; compiled.num_outputs()];
            compiled.eval_parts(&[&xs, &p, &w, &[]], &mut out).expect("lengths");
            assert!(same_bits(&out, &values), "case {case}, k {k}: compiled against interpreted");
        }
    }
}
