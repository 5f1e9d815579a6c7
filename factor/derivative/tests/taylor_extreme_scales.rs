//! Issue 26: Taylor coefficients 0 to 8 at extreme scales, the point and
//! the direction each from 1e-300 to 1e300, against mpmath references
//! (`taylor_extreme_scales/references.py`, 800 digits, closed forms that
//! share nothing with the recurrences), in both scales.
//!
//! Two classes of the issue, one test each:
//! - the closed forms for an argument of degree 1 (`sqrt`, `cbrt`, the
//!   logarithms, `1/x`, `x^c`) multiplied `v^k` by a power of `x` with the
//!   opposite sign of exponent, each apart leaving the range (`1/x` at `x =
//!   v = 1e40`: coefficient 8 is `1e-40`, but `v^8` and `x^9` are `inf`);
//! - the recurrences that squared their argument (`atan`, `asinh`, `acosh`,
//!   `atan2`, `hypot`, `erf`): `1 + a²` or `a² + b²` overflows from 1e155
//!   and underflows below 1e-155 (`atan` at `x = v = 1e200`: coefficients
//!   `[π/2, 0, NaN, NaN]`, true `[π/2, 1e-200, -1e-200, 1e-200]`).
//!
//! The direction is an input, as in `factor::taylor_series` (a constant
//! direction keeps the closed forms as a person writes them). Wherever the
//! true coefficient is a normal double, ours must be within 1e-12 of it,
//! relatively, or, where the truth is far below the coefficient's natural
//! size (a direction nearly along the point, an odd function about 0; see
//! `references.py`), within 1e-12 of that size: there the terms of any
//! recurrence are of that size, and their rounding is all it can promise.
//! Where the truth is not a normal double (it underflows, or is exactly
//! zero), ours must be within 1e-12 of the size or below the normal range,
//! and never NaN.
//!
//! Both hold while the natural sizes of the coefficient and of those below
//! it are within the range: a recurrence builds coefficient `k` from those
//! below, and one of them past the range leaves nothing to build from
//! (`atan` at 1e-300 along 1e50: coefficient 7 is 1e350, coefficient 8, a
//! multiple of the point, 1e100). Likewise the closed forms are built from
//! the value (`x^c · C(c, k) · (v/x)^k`), and hold where it is a normal
//! double (`x^-3` at 1e150 is 1e-450, while coefficient 1 along 1e300 is
//! -3e-300).

use derivative::taylor::{factorial, Scale, Taylor};
use frontend::NodeId;

const ORDER: usize = 8;
const TOLERANCE: f64 = 1e-12;
const REFERENCES: &str = include_str!("taylor_extreme_scales/references.txt");

/// One line of the table: coefficients `0..=ORDER` of `source` at `point`
/// along `direction`.
struct Reference<'a> {
    class: &'a str,
    source: &'a str,
    point: Vec<f64>,
    direction: Vec<f64>,
    /// The truths, 0 where exactly zero.
    coefficients: Vec<f64>,
    /// The natural sizes, at least the truths' magnitudes.
    sizes: Vec<f64>,
}

fn number(text: &str) -> f64 {
    text.parse().unwrap_or_else(|_| panic!("a number: {text}"))
}

fn references() -> Vec<Reference<'static>> {
    REFERENCES
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').collect();
            let [class, source, point, direction, coefficients, sizes] = cells[..] else {
                panic!("six cells: {line}")
            };
            let coefficients: Vec<f64> =
                coefficients.split(' ').map(|c| if c == "_" { 0.0 } else { number(c) }).collect();
            let sizes: Vec<f64> = sizes
                .split(' ')
                .zip(&coefficients)
                .map(|(s, c)| if s == "=" { c.abs() } else { number(s) })
                .collect();
            assert_eq!((coefficients.len(), sizes.len()), (ORDER + 1, ORDER + 1), "{line}");
            Reference {
                class,
                source,
                point: point.split(',').map(number).collect(),
                direction: direction.split(',').map(number).collect(),
                coefficients,
                sizes,
            }
        })
        .collect()
}

/// What the checks of one class found.
#[derive(Default)]
struct Tally {
    /// Normal truths compared.
    checked: usize,
    /// Of those, how many were within the tolerance of the natural size
    /// only.
    by_size: usize,
    /// Truths below the normal range, held to the natural size.
    below: usize,
    /// Coefficients past the range (theirs or below) or built on a value
    /// past it.
    skipped: usize,
    /// The largest relative error of a normal truth, and where.
    worst: f64,
    worst_at: String,
    wrong: Vec<String>,
}

/// Every reference of `class`, in both scales.
fn check_class(class: &str) -> Tally {
    let all = references();
    let mut sources: Vec<&str> = all.iter().filter(|r| r.class == class).map(|r| r.source).collect();
    sources.dedup();
    let mut tally = Tally::default();
    for source in sources {
        let program = frontend::parse_expr_with_inputs(source, &["x", "y"]).expect("parses");
        let root = program.outputs[0].node;
        for scale in [Scale::Coefficients, Scale::Derivatives] {
            let mut dag = frontend::ExprDag::clone(&program.dag);
            // The direction is inputs 2 and 3, (v, w), as taylor_series has it.
            let direction = [Some(dag.input(2)), Some(dag.input(3))];
            let mut taylor = Taylor::new(&dag, &[root], &direction, scale);
            for _ in 0..ORDER {
                taylor.advance(&mut dag).expect("finite constants");
            }
            let zero = dag.constant(0.0);
            let nodes: Vec<NodeId> = taylor.series(root).iter().map(|c| c.unwrap_or(zero)).collect();
            let factor = |k: usize| if scale == Scale::Derivatives { factorial(k) } else { 1.0 };
            for reference in all.iter().filter(|r| r.source == source) {
                let (x, v) = (&reference.point, &reference.direction);
                let inputs = [x[0], x.get(1).copied().unwrap_or(0.0), v[0], v.get(1).copied().unwrap_or(0.0)];
                let values = frontend::eval(&dag, &nodes, &inputs);
                let value = reference.coefficients[0].abs();
                let value_lost = class == "closed" && !(f64::MIN_POSITIVE..=f64::MAX).contains(&value);
                for (k, &ours) in values.iter().enumerate() {
                    let truth = reference.coefficients[k] * factor(k);
                    let size = reference.sizes[k] * factor(k);
                    let past = (0..=k).any(|j| (reference.sizes[j] * factor(j)).is_infinite());
                    if past || value_lost {
                        tally.skipped += 1;
                        continue;
                    }
                    let error = (ours - truth).abs();
                    let normal = truth.abs() >= f64::MIN_POSITIVE;
                    let ok = if normal {
                        tally.checked += 1;
                        let relative = error / truth.abs();
                        // NaN fails.
                        if relative <= TOLERANCE {
                            if relative > tally.worst {
                                tally.worst = relative;
                                tally.worst_at = format!("{source} at {x:?} along {v:?}, {scale:?} {k}");
                            }
                            true
                        } else {
                            let within = error <= TOLERANCE * size;
                            tally.by_size += usize::from(within);
                            within
                        }
                    } else {
                        tally.below += 1;
                        error <= (TOLERANCE * size).max(f64::MIN_POSITIVE)
                    };
                    if !ok {
                        tally.wrong.push(format!(
                            "{source} at {x:?} along {v:?}, {scale:?} {k}: {ours:e}, want {truth:e} \
                             (relative error {:.1e}, size {size:e})",
                            error / truth.abs()
                        ));
                    }
                }
            }
        }
    }
    tally
}

fn report(class: &str, tally: &Tally) {
    eprintln!(
        "{class}: {} normal coefficients checked (largest relative error {:.1e}, {}; {} within 1e-12 \
         of their natural size only), {} below the normal range, {} past the range",
        tally.checked, tally.worst, tally.worst_at, tally.by_size, tally.below, tally.skipped
    );
    assert!(tally.checked > 10_000, "only {} checks", tally.checked);
    let shown = tally.wrong.iter().take(60).cloned().collect::<Vec<_>>().join("\n");
    assert!(tally.wrong.is_empty(), "{} wrong:\n{shown}", tally.wrong.len());
}

#[test]
fn issue_26_closed_forms_at_extreme_scales_match_mpmath() {
    report("closed forms", &check_class("closed"));
}

#[test]
fn issue_26_recurrences_at_extreme_scales_match_mpmath() {
    report("recurrences", &check_class("recurrence"));
}
