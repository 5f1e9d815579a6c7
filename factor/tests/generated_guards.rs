//! Issue 12, over the class: derivatives of generated programs whose guards
//! (`ifelse`, `min`, `max`) hide an infinite or undefined derivative in the
//! branch not taken ([`testkit::guards`]). Every accumulation's Jacobian
//! must agree with the dual numbers (which take the chosen branch's dual)
//! wherever those are finite, and with central differences away from kinks
//! ([`testkit::compare`]); every output's Hessian, by every method (edge
//! pushing, D* on the gradient), alone, in the Lagrangian and by `hvp`
//! (`accumulations::every_hessian`), with hyper-dual numbers, themselves
//! checked against central differences of the dual gradient away from
//! kinks. 500 programs per run; `DSTAR_LONG=1` runs 20,000.

mod accumulations;

use accumulations::{every_hessian, every_jacobian, Extraction};
use frontend::{ExprDag, Kernel, NodeId};
use testkit::guards::{random_guard_case, GuardCase};
use testkit::{compare, eval_dual, eval_hyper, HyperDual, Rng, Verdict};

#[derive(Default)]
struct Tally {
    jacobians_agreeing: usize,
    jacobians_skipped: std::collections::BTreeMap<&'static str, usize>,
    hessian_entries: usize,
    hessian_entries_confirmed: usize,
    hidden: usize,
    failures: Vec<String>,
}

#[test]
fn issue_12_guarded_programs_differentiate_the_branch_taken() {
    let count = testkit::cases(500, 20_000) as u64;
    let mut tally = Tally::default();
    for seed in 0..count {
        let mut rng = Rng::new(seed);
        let GuardCase { case, hidden } = random_guard_case(&mut rng);
        let point = case.point.clone();
        tally.hidden += hidden;
        let values = frontend::eval(&case.dag, &case.outputs, &point);
        if values.iter().any(|v| !v.is_finite()) {
            *tally.jacobians_skipped.entry("non-finite value").or_default() += 1;
            continue;
        }
        let function = Kernel::new(case.dag.clone(), case.outputs.clone(), case.num_inputs).expect("valid");
        let describe = |what: &str, message: &str| {
            let names: Vec<String> = (0..case.num_inputs).map(|k| format!("x{k}")).collect();
            let outputs: Vec<String> =
                case.outputs.iter().map(|&o| frontend::print_expr(&case.dag, o, &names)).collect();
            format!("seed {seed}, {what} at {point:?}: {message}\n  outputs: {outputs:#?}")
        };
        // Which entries the dual numbers find finite, for products with unit
        // vectors (see `Extraction`).
        let finite: Vec<Vec<bool>> = {
            let by_input: Vec<_> =
                (0..case.num_inputs).map(|k| eval_dual(&case.dag, &case.outputs, &point, k)).collect();
            (0..case.outputs.len())
                .map(|i| {
                    by_input
                        .iter()
                        .map(|d| d.outputs[i].d.is_finite() && d.outputs[i].m.is_finite())
                        .collect()
                })
                .collect()
        };
        let accumulations = every_jacobian(&function, &point);
        let reference = accumulations[0].1.clone();
        for (name, mut dense, extraction) in accumulations {
            mask_polluted(&mut dense, &reference, &finite, extraction);
            match compare(&case.dag, &case.outputs, &point, &values, &dense) {
                Verdict::Agrees => tally.jacobians_agreeing += 1,
                Verdict::Skipped(reason) => *tally.jacobians_skipped.entry(reason).or_default() += 1,
                Verdict::Wrong(message) | Verdict::NonFinite(message) => {
                    tally.failures.push(describe(&name, &message));
                }
            }
        }
        for output in 0..case.outputs.len() {
            for (name, dense, extraction) in every_hessian(&function, output, &point) {
                let root = case.outputs[output];
                if let Err(message) = check_hessian(&case.dag, root, &point, &dense, extraction, &mut tally) {
                    tally.failures.push(describe(&format!("{name} of output {output}"), &message));
                }
            }
        }
        if tally.failures.len() > 20 {
            break;
        }
    }
    eprintln!(
        "{count} guarded programs, {} hidden singular derivatives: {} Jacobians agree, skipped {:?}; \
         {} Hessian entries checked ({} confirmed by central differences); {} wrong",
        tally.hidden,
        tally.jacobians_agreeing,
        tally.jacobians_skipped,
        tally.hessian_entries,
        tally.hessian_entries_confirmed,
        tally.failures.len()
    );
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
    assert!(tally.hidden as u64 >= count, "too few hidden singularities: {}", tally.hidden);
    assert!(
        tally.hessian_entries as u64 >= count,
        "too few Hessian entries checked: {}",
        tally.hessian_entries
    );
}

/// Replaces the entries of `dense` that a product with unit vectors cannot
/// give finitely (a non-finite entry elsewhere in the row, or column, by the
/// dual numbers) with `reference`'s, which are checked on their own.
fn mask_polluted(
    dense: &mut [Vec<f64>],
    reference: &[Vec<f64>],
    finite: &[Vec<bool>],
    extraction: Extraction,
) {
    for i in 0..dense.len() {
        for k in 0..dense[i].len() {
            let polluted = match extraction {
                Extraction::Entries => false,
                Extraction::Columns => (0..finite[i].len()).any(|other| other != k && !finite[i][other]),
                Extraction::Rows => (0..finite.len()).any(|other| other != i && !finite[other][k]),
            };
            if polluted {
                dense[i][k] = reference[i][k];
            }
        }
    }
}

/// Compares `hessian` (dense) of `root` at `x` with hyper-dual numbers,
/// wherever those are finite (for products with unit vectors, wherever the
/// whole row is); where central differences of the dual gradient are
/// well-conditioned (no kink within reach), checks the hyper-dual numbers
/// against them too.
fn check_hessian(
    dag: &ExprDag,
    root: NodeId,
    x: &[f64],
    hessian: &[Vec<f64>],
    extraction: Extraction,
    tally: &mut Tally,
) -> Result<(), String> {
    let n = x.len();
    let oracle: Vec<Vec<HyperDual>> = (0..n)
        .map(|i| (0..n).map(|j| eval_hyper(dag, &[root], x, i.max(j), i.min(j)).outputs[0]).collect())
        .collect();
    let is_finite = |h: &HyperDual| h.d12.is_finite() && h.m12.is_finite();
    for i in 0..n {
        for j in 0..=i {
            let exact = oracle[i][j];
            if !is_finite(&exact) {
                continue;
            }
            tally.hessian_entries += 1;
            let tolerance = 1e-9 * exact.d12.abs() + 1e-11 * exact.m12 + 1e-13;
            for (value, (row, col)) in [(hessian[i][j], (i, j)), (hessian[j][i], (j, i))] {
                let polluted = extraction == Extraction::Columns
                    && (0..n).any(|other| other != col && !is_finite(&oracle[row][other]));
                if polluted {
                    continue;
                }
                let agrees = (value - exact.d12).abs() <= tolerance; // false for NaN
                if !agrees {
                    return Err(format!(
                        "H[{row}][{col}] = {value} vs hyper-dual {} (magnitude {})",
                        exact.d12, exact.m12
                    ));
                }
            }
            if let Some(difference) = gradient_difference(dag, root, x, i, j) {
                tally.hessian_entries_confirmed += 1;
                let tolerance = 1e-4 * difference.abs().max(exact.d12.abs()) + 1e-6 + 1e-9 * exact.m12;
                if (difference - exact.d12).abs() > tolerance {
                    return Err(format!(
                        "hyper-dual H[{i}][{j}] = {} vs central difference of the gradient {difference}",
                        exact.d12
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `∂/∂x_j` of the dual-number gradient entry `i` by central differences,
/// when two step sizes agree and no kink lies within reach; else `None`.
fn gradient_difference(dag: &ExprDag, root: NodeId, x: &[f64], i: usize, j: usize) -> Option<f64> {
    let h = 1e-4 * x[j].abs().max(1.0);
    if eval_dual(dag, &[root], x, i).kink_margin < 100.0 * h
        || eval_dual(dag, &[root], x, j).kink_margin < 100.0 * h
    {
        return None;
    }
    let difference = |h: f64| {
        let at = |sign: f64| {
            let mut y = x.to_vec();
            y[j] += sign * h;
            eval_dual(dag, &[root], &y, i).outputs[0].d
        };
        let (above, below) = (at(1.0), at(-1.0));
        (above - below) / (2.0 * h)
    };
    let (coarse, fine) = (difference(h), difference(h / 2.0));
    let agree = (coarse - fine).abs() <= 1e-6 * coarse.abs().max(fine.abs()) + 1e-8;
    (coarse.is_finite() && fine.is_finite() && agree).then_some(fine)
}
