//! Issue 13's oracle test: the compiled Hessian kernels against independent
//! oracles on generated programs. Half are the calculus mix (`min`, `max`
//! and `ifelse` on random conditions among the smooth operations), half are
//! [`testkit::guards`] programs whose `ifelse`, `min` and `max` hide a
//! singular derivative in the branch not taken, at the point where it is
//! singular.
//!
//! For each program, the Lagrangian's kernels (`Σ wᵢ∇²fᵢ` with random
//! weights, JIT-compiled over the blocks `x` and `w`: its lower triangle
//! alone, as [`dstar::Request::Hessian`] compiles it, and with the values
//! and the gradient) and the Hessian of every
//! output ([`factor::hessian`], JIT-compiled, or one method of
//! [`factor::hessian_with`] in turn, interpreted) must
//! - agree with the kit's hyper-dual numbers wherever those are finite,
//! - agree with central differences of their own compiled gradient (`wᵀJ`,
//!   in the same call) wherever the steps resolve it,
//! - be bitwise symmetric, and stored as a lower triangle,
//! - give, JIT-compiled, what the interpreter gives, bit for bit (node by
//!   node within an ulp where inline integer powers are lowered).
//!
//! 2,000 programs per run; `DSTAR_LONG=1` runs 50,000.

use dstar::factor::{self, Hessian, HessianMethod, Strategy, Weights};
use dstar::JitCompiler;
use frontend::Block;
use testkit::guards::random_guard_case;
use testkit::{eval_dual, eval_hyper, generate, hessian_oracle, Case, HyperEval, Rng, Shape};

#[derive(Default)]
struct Tally {
    programs: usize,
    guarded: usize,
    skipped_values: usize,
    /// Entries compared with the hyper-dual oracle.
    entries: usize,
    /// Of those, also confirmed by central differences of the compiled gradient.
    confirmed: usize,
    /// Entries whose oracle is not finite (a singular branch taken).
    not_finite: usize,
    /// Entries the differences could not resolve (a kink within reach, noise).
    unresolved: usize,
    parity: usize,
    failures: Vec<String>,
}

/// How far apart the kernel and an oracle may be.
///
/// Against hyper-dual numbers: both compute the same exact second
/// derivative, in different orders. A product of `k` rounded partials is off
/// by at most about `k·eps` relative, so the sum over paths is off by at most
/// `k·eps` times the sum of the paths' magnitudes, the cancellation-free
/// magnitude `m12` the oracle carries: with paths of at most a few hundred
/// factors here, `1e-11·m12` (`45·k·eps` for `k = 100`). `1e-9` relative
/// covers partials the library builds by other formulas than the textbook's
/// (a few ulps of an elementary function, amplified by its condition), and
/// `1e-13` absolute an exact zero against a rounded one. These are the
/// constants of [`testkit::compare`] for Jacobians.
fn hyper_dual_tolerance(exact: f64, magnitude: f64) -> f64 {
    1e-9 * exact.abs() + 1e-11 * magnitude + 1e-13
}

/// Against a central difference of the gradient with step `h`: truncation
/// `h²·|∂³L|/6` and rounding `(error of g)/h` are what the two steps `h`,
/// `h/2` estimate; a difference is used only where both are small against
/// `1e-5` relative plus `1e-7` absolute (the kit's Jacobian check), and then
/// the kernel must be within that plus its own rounding (`1e-11·m12`).
fn difference_room(a: f64, b: f64) -> f64 {
    1e-5 * a.abs().max(b.abs()) + 1e-7
}

#[test]
fn issue_13_hessians_match_hyper_duals_and_differences_of_the_compiled_gradient() {
    let count = testkit::cases(2_000, 50_000) as u64;
    // Test binaries run one after another: spread the programs over the
    // cores (each thread its own compiler).
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8) as u64;
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| scope.spawn(move || run((first..count).step_by(threads as usize))))
            .collect();
        workers.into_iter().map(|w| w.join().expect("a worker")).collect()
    });
    let mut tally = Tally::default();
    for t in tallies {
        tally.programs += t.programs;
        tally.guarded += t.guarded;
        tally.skipped_values += t.skipped_values;
        tally.entries += t.entries;
        tally.confirmed += t.confirmed;
        tally.not_finite += t.not_finite;
        tally.unresolved += t.unresolved;
        tally.parity += t.parity;
        tally.failures.extend(t.failures);
    }
    eprintln!(
        "{} programs ({} guarded, {} with a non-finite value skipped): {} Hessian entries agree with \
         hyper-dual numbers, {} of them confirmed by differences of the compiled gradient, {} left \
         unresolved by the steps, {} with a non-finite oracle; {} JIT/interpreter comparisons; {} wrong",
        tally.programs,
        tally.guarded,
        tally.skipped_values,
        tally.entries,
        tally.confirmed,
        tally.unresolved,
        tally.not_finite,
        tally.parity,
        tally.failures.len()
    );
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
    // The checks must bite: most entries are finite and resolved.
    assert!(tally.entries >= 4 * count as usize, "too few entries checked: {}", tally.entries);
    assert!(
        tally.confirmed * 2 >= tally.entries,
        "too few confirmed: {} of {}",
        tally.confirmed,
        tally.entries
    );
}

/// The programs of `seeds`, half calculus, half guarded.
fn run(seeds: impl Iterator<Item = u64>) -> Tally {
    let compiler = JitCompiler::new().expect("a supported host");
    let mut tally = Tally::default();
    for seed in seeds {
        let mut rng = Rng::new(seed);
        let case = if seed % 2 == 0 {
            let shape = Shape::calculus(1 + rng.below(4), 1 + rng.below(3), 2 + rng.below(24), 0.5);
            generate(&mut rng, &shape)
        } else {
            tally.guarded += 1;
            random_guard_case(&mut rng).case
        };
        tally.programs += 1;
        let x = case.point.clone();
        if frontend::eval(&case.dag, &case.outputs, &x).iter().any(|v| !v.is_finite()) {
            tally.skipped_values += 1;
            continue;
        }
        let weights: Vec<f64> = (0..case.outputs.len()).map(|_| nonzero_weight(&mut rng)).collect();
        if let Err(message) = check_program(&compiler, seed, &case, &weights, &mut tally) {
            let outputs = case.describe();
            tally
                .failures
                .push(format!("seed {seed} at {x:?}, weights {weights:?}: {message}\n  {outputs:#?}"));
            if tally.failures.len() >= 10 {
                break;
            }
        }
    }
    tally
}

/// A weight in `±[0.25, 2]`: nonzero, so that every output counts.
fn nonzero_weight(rng: &mut Rng) -> f64 {
    let magnitude = rng.uniform(0.25, 2.0);
    if rng.chance(0.5) {
        magnitude
    } else {
        -magnitude
    }
}

/// Every method of [`factor::hessian_with`].
const METHODS: [HessianMethod; 5] = [
    HessianMethod::EdgePushing,
    HessianMethod::DstarOnGradient(Strategy::ALL[0]),
    HessianMethod::DstarOnGradient(Strategy::ALL[1]),
    HessianMethod::DstarOnGradient(Strategy::ALL[2]),
    HessianMethod::DstarOnGradient(Strategy::ALL[3]),
];

/// The Lagrangian through the facade (the cheapest method, JIT-compiled),
/// then each output's Hessian: one program in four by [`factor::hessian`]
/// (the cheapest method), JIT-compiled, the others by one method in turn,
/// interpreted (each candidate costs a symbolic build, each kernel a
/// compilation: this keeps the always-on run to a few seconds while every
/// method and both evaluators meet every kind of program).
fn check_program(
    compiler: &JitCompiler,
    seed: u64,
    case: &Case,
    w: &[f64],
    tally: &mut Tally,
) -> Result<(), String> {
    let (dag, roots, x) = (&case.dag, &case.outputs, &case.point);
    let (n, m) = (case.num_inputs, roots.len());
    // One hyper-dual evaluation per pair i >= j serves every output.
    let hyper: Vec<Vec<HyperEval>> =
        (0..n).map(|i| (0..=i).map(|j| eval_hyper(dag, roots, x, i, j)).collect()).collect();
    let duals: Vec<_> = (0..n).map(|k| eval_dual(dag, roots, x, k)).collect();

    let lagrangian = factor::lagrangian_hessian(case.kernel());
    let parts = [n, m];
    let compile =
        |k: &frontend::Kernel| compiler.compile_parts(k, &parts).map_err(|e| format!("compiles: {e}"));
    let (all_kernel, lower_kernel) = (compile(lagrangian.kernel())?, compile(&lagrangian.lower_kernel())?);
    let input = [x.as_slice(), w].concat();
    let mut all = vec![0.0; all_kernel.num_outputs()];
    all_kernel.eval_parts(&[x, w], &mut all).map_err(|e| format!("evaluates: {e}"))?;
    check_parity(&lagrangian, &input, &all, "Lagrangian", tally)?;
    let mut lower = vec![0.0; lower_kernel.num_outputs()];
    lower_kernel.eval_parts(&[x, w], &mut lower).map_err(|e| format!("evaluates: {e}"))?;
    let dense = Block::Lower(lagrangian.lower_pattern().clone()).to_dense(&lower);
    let tail = &all[all.len() - lower.len()..];
    if !testkit::same_bits(&lower, tail) {
        return Err(format!(
            "the Hessian call {lower:?} differs from the one with values and gradient {tail:?}"
        ));
    }
    let gradient = |y: &[f64]| {
        let mut out = vec![0.0; all_kernel.num_outputs()];
        all_kernel.eval_parts(&[y, w], &mut out).expect("evaluates");
        scatter(&out[m..], &lagrangian.gradient_pattern().cols, n)
    };
    let exact = |i: usize, j: usize| {
        let outputs = &hyper[i][j].outputs;
        let d12 = outputs.iter().zip(w).map(|(h, w)| w * h.d12).sum::<f64>();
        let m12 = outputs.iter().zip(w).map(|(h, w)| w.abs() * h.m12).sum::<f64>();
        (d12, m12)
    };
    let absorbed = |j: usize| duals[j].outputs.iter().zip(w).map(|(d, w)| w.abs() * d.e).sum::<f64>();
    let magnitude = |i: usize| duals[i].outputs.iter().zip(w).map(|(d, w)| w.abs() * d.m).sum::<f64>();
    let lagrangian_check =
        Check { x, hyper: &hyper, exact: &exact, absorbed: &absorbed, magnitude: &magnitude };
    lagrangian_check
        .run(&dense, lagrangian.lower_pattern().positions(), &gradient, tally)
        .map_err(|e| format!("Lagrangian: {e}"))?;

    for r in 0..m {
        let thorough = seed % 4 == 0;
        let hessian = if thorough {
            factor::hessian(case.kernel(), r)
        } else {
            let alone = case.kernel().with_roots(vec![roots[r]]).expect("an output");
            factor::hessian_with(alone, Weights::Unit, METHODS[(seed as usize + r) % METHODS.len()])
        };
        let jit = if thorough {
            Some(compiler.compile(hessian.kernel()).map_err(|e| format!("compiles: {e}"))?)
        } else {
            None
        };
        let evaluate = |y: &[f64]| match &jit {
            Some(jit) => {
                let mut out = vec![0.0; hessian.kernel().num_outputs()];
                jit.eval(y, &mut out).expect("evaluates");
                out
            }
            None => hessian.kernel().eval(y),
        };
        let out = evaluate(x);
        if thorough {
            check_parity(&hessian, x, &out, &format!("output {r}"), tally)?;
        }
        let nnz = hessian.lower_pattern().nnz();
        let dense = Block::Lower(hessian.lower_pattern().clone()).to_dense(&out[out.len() - nnz..]);
        let gradient = |y: &[f64]| scatter(&evaluate(y)[1..], &hessian.gradient_pattern().cols, n);
        let exact = |i: usize, j: usize| (hyper[i][j].outputs[r].d12, hyper[i][j].outputs[r].m12);
        let absorbed = |j: usize| duals[j].outputs[r].e;
        let magnitude = |i: usize| duals[i].outputs[r].m;
        let check = Check { x, hyper: &hyper, exact: &exact, absorbed: &absorbed, magnitude: &magnitude };
        check
            .run(&dense, hessian.lower_pattern().positions(), &gradient, tally)
            .map_err(|e| format!("factor::hessian of output {r} ({}): {e}", hessian.method()))?;
    }
    Ok(())
}

/// The dense gradient from its nonzeros (`values`, then anything) at `cols`.
fn scatter(values: &[f64], cols: &[usize], n: usize) -> Vec<f64> {
    let mut dense = vec![0.0; n];
    for (&col, &v) in cols.iter().zip(values) {
        dense[col] = v;
    }
    dense
}

/// The JIT's outputs `compiled` at `input` against the interpreter's, bit
/// for bit.
fn check_parity(
    hessian: &Hessian,
    input: &[f64],
    compiled: &[f64],
    what: &str,
    tally: &mut Tally,
) -> Result<(), String> {
    tally.parity += 1;
    let interpreted = hessian.kernel().eval(input);
    if testkit::same_bits(compiled, &interpreted) {
        Ok(())
    } else {
        Err(format!("{what}: the JIT gives {compiled:?}, the interpreter {interpreted:?}"))
    }
}

/// The oracles of one Hessian: `exact(i, j)` is the hyper-dual `(d12, m12)`
/// of the (weighted) entry `i >= j`; `magnitude(i)` the cancellation-free
/// magnitude of gradient entry `i` and `absorbed(j)` what a step along `x_j`
/// cannot resolve in the values, both by dual numbers.
struct Check<'a> {
    x: &'a [f64],
    hyper: &'a [Vec<HyperEval>],
    exact: &'a dyn Fn(usize, usize) -> (f64, f64),
    absorbed: &'a dyn Fn(usize) -> f64,
    magnitude: &'a dyn Fn(usize) -> f64,
}

impl Check<'_> {
    fn run(
        &self,
        dense: &[Vec<f64>],
        mut positions: impl Iterator<Item = (usize, usize)>,
        gradient: &dyn Fn(&[f64]) -> Vec<f64>,
        tally: &mut Tally,
    ) -> Result<(), String> {
        let n = self.x.len();
        if let Some((row, col)) = positions.find(|(row, col)| row < col) {
            return Err(format!("({row}, {col}) stored above the diagonal"));
        }
        for i in 0..n {
            for j in 0..=i {
                let (got, transposed) = (dense[i][j], dense[j][i]);
                if got.to_bits() != transposed.to_bits() {
                    return Err(format!("H[{i}][{j}] = {got:e} but H[{j}][{i}] = {transposed:e}"));
                }
                let (d12, m12) = (self.exact)(i, j);
                if !d12.is_finite() || !m12.is_finite() {
                    tally.not_finite += 1;
                    continue;
                }
                tally.entries += 1;
                let agrees = (got - d12).abs() <= hyper_dual_tolerance(d12, m12); // false for NaN
                if !agrees {
                    return Err(format!("H[{i}][{j}] = {got:e} vs hyper-dual {d12:e} (magnitude {m12:e})"));
                }
                match self.difference(gradient, i, j) {
                    Some(difference) => {
                        tally.confirmed += 1;
                        if (got - difference).abs() > difference_room(got, difference) + 1e-11 * m12 {
                            return Err(format!(
                                "H[{i}][{j}] = {got:e} vs central difference of the compiled gradient {difference:e}"
                            ));
                        }
                    }
                    None => tally.unresolved += 1,
                }
            }
        }
        Ok(())
    }

    /// `∂g_i/∂x_j` by central differences of the compiled gradient with
    /// steps `h` and `h/2`, when no kink lies within reach and the two agree
    /// well within [`difference_room`], their rounding noise small against it.
    fn difference(&self, gradient: &dyn Fn(&[f64]) -> Vec<f64>, i: usize, j: usize) -> Option<f64> {
        let x = self.x;
        let h = 1e-5 * x[j].abs().max(1.0);
        if self.hyper[i.max(j)][i.min(j)].kink_margin < 100.0 * h {
            return None;
        }
        let at = |h: f64| {
            let column = testkit::central_difference(gradient, x, j, h);
            column[i].0
        };
        let (coarse, fine) = (at(h), at(h / 2.0));
        // The compiled gradient entry is off by up to ~1e-13 of its
        // cancellation-free magnitude (paths of ≤ ~60 factors, each `eps`),
        // and its input x_j is resolved only to what the values absorb.
        let noise = (1e-13 * (self.magnitude)(i) + 2.0 * (self.absorbed)(j)) / h;
        let room = difference_room(coarse, fine);
        let resolved = coarse.is_finite()
            && fine.is_finite()
            && noise <= 0.1 * room
            && (coarse - fine).abs() <= 0.25 * room;
        resolved.then_some(fine)
    }
}

/// The known silent failure of the best public D* implementation: the
/// Hessian of `exp(v1 - v2) * v2`, whose H[2][2] it returned about 9 times
/// too large. Through the facade's kernel with weight 1, every method of
/// [`factor::hessian_with`], the closed form and the hyper-dual oracle.
#[test]
fn issue_13_hessian_of_exp_of_difference_times_v2() {
    let program = dstar::parse_program("in v1, v2\nout exp(v1 - v2) * v2").unwrap();
    let (a, b): (f64, f64) = (0.7, 1.3);
    let e = (a - b).exp();
    // f = e·b: f_11 = e·b, f_12 = e - e·b, f_22 = -2e + e·b.
    let want = [[e * b, e * (1.0 - b)], [e * (1.0 - b), e * (b - 2.0)]];
    let oracle = &hessian_oracle(&program.dag, &program.output_nodes(), &[a, b])[0];
    let function = dstar::Function::new(program.clone(), dstar::Options::default());
    let kernel = function.compile(dstar::Request::Hessian).unwrap();
    let dense = kernel.eval_dense(dstar::Args::x(&[a, b]).w(&[1.0])).unwrap().remove(0);
    let mut found = vec![("Request::Hessian".to_string(), dense)];
    let methods = std::iter::once(factor::HessianMethod::EdgePushing)
        .chain(factor::Strategy::ALL.into_iter().map(factor::HessianMethod::DstarOnGradient));
    for method in methods {
        let hessian = factor::hessian_with(program.kernel().unwrap(), factor::Weights::Unit, method);
        found.push((method.to_string(), hessian.eval(&[a, b]).2));
    }
    for (name, dense) in found {
        for i in 0..2 {
            for j in 0..2 {
                let (got, want, oracle) = (dense[i][j], want[i][j], oracle[i][j]);
                assert!(
                    (got - want).abs() <= 1e-15 * want.abs().max(1.0),
                    "{name}: H[{i}][{j}] = {got} vs {want}"
                );
                assert!(
                    (got - oracle).abs() <= 1e-15 * want.abs().max(1.0),
                    "{name}: H[{i}][{j}] = {got} vs {oracle}"
                );
            }
        }
    }
}
