//! Every operation's Taylor recurrences (and closed forms) against nested
//! dual numbers, an oracle that knows only first derivatives: derivatives
//! of orders 0 to 8 along `x`, in both scales, at points away from kinks and
//! domain edges, for arguments of degree 1 (closed forms), of higher
//! polynomial degree and not polynomial (recurrences).

use derivative::taylor::{factorial, taylor, Scale};
use frontend::{NodeId, Op};
use testkit::{eval_jets, Jet};

const ORDER: usize = 8;

/// Where an operation's argument may range: `(lo, hi)` away from kinks and
/// domain edges.
fn domains(op: Op) -> Vec<(f64, f64)> {
    match op {
        Op::Asin | Op::Acos | Op::Atanh => vec![(-0.8, 0.8)],
        Op::Acosh => vec![(1.2, 3.0)],
        Op::Log | Op::Log2 | Op::Log10 | Op::Sqrt => vec![(0.3, 3.0)],
        Op::Log1p => vec![(-0.6, 2.0)],
        Op::Tan => vec![(-1.2, 1.2)],
        Op::Abs | Op::Cbrt => vec![(0.2, 2.0), (-2.0, -0.2)],
        Op::Sign | Op::Floor | Op::Ceil => vec![(0.2, 0.8), (-1.8, -1.2)],
        Op::Pow => vec![(0.3, 2.5)],
        _ => vec![(-2.0, 2.0)],
    }
}

/// Arguments ranging over `(lo, hi)` for `x` in `[0, 1]` (and `y` in
/// `[0.5, 1.5]`): of degree 1, a polynomial, not a polynomial, and with a
/// symbolic rate (`x*y` along `x`), and of degree 1 whose rate cancels
/// (`x - x`: structurally linear, constant along `x`).
fn arguments(lo: f64, hi: f64) -> Vec<String> {
    let at = |t: &str| format!("({lo} + {} * ({t}))", hi - lo);
    vec![
        at("0.1 + 0.8 * x"),
        at("0.2 + 0.3 * x^2 + 0.3 * x^3"),
        at("0.5 + 0.4 * sin(1.3 * x + 0.2)"),
        at("0.1 + 0.5 * x * y"),
        at("0.6 + x - x"),
    ]
}

/// The test expressions of `op`.
fn expressions(op: Op) -> Vec<String> {
    let mut all = vec![];
    let name = |op: Op| op.function_name().unwrap_or(op.name()).to_string();
    match op {
        Op::Select(cmp) => {
            let c = cmp.symbol();
            // Both branches taken over the points, never near the switch.
            all.push(format!("ifelse(x {c} 0.45, x^3 + y, sin(x) * y)"));
            all.push(format!("ifelse(0.45 {c} x, exp(x*y), 1/(1 + x))"));
        }
        Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Atan2 | Op::Hypot | Op::Min | Op::Max => {
            let args = arguments(0.4, 2.0);
            for a in &args {
                for b in &args {
                    all.push(binary(op, a, b));
                }
                all.push(binary(op, a, "1.7"));
                all.push(binary(op, "1.7", a));
            }
        }
        Op::Pow => {
            for (lo, hi) in domains(op) {
                for a in arguments(lo, hi) {
                    for e in ["2", "3", "5", "7", "-3", "2.5", "0.3", "y"] {
                        all.push(format!("{a}^{e}"));
                    }
                    all.push(format!("1.7^{a}"));
                    for b in arguments(0.2, 1.5) {
                        all.push(format!("{a}^{b}"));
                    }
                }
            }
            // Integer powers of negative bases and at zero.
            for a in arguments(-2.0, -0.3) {
                for e in ["2", "3", "4", "-3"] {
                    all.push(format!("{a}^{e}"));
                }
            }
            all.push("sin(x - 0.5)^5".into());
        }
        _ => {
            for (lo, hi) in domains(op) {
                for a in arguments(lo, hi) {
                    all.push(if op == Op::Neg { format!("-{a}") } else { format!("{}({a})", name(op)) });
                }
            }
        }
    }
    all
}

/// `op` applied to the texts `a` and `b`.
fn binary(op: Op, a: &str, b: &str) -> String {
    match op.function_name() {
        Some(name) => format!("{name}({a}, {b})"),
        None => format!("({a}) {} ({b})", op.name()),
    }
}

struct Tally {
    checked: usize,
    wrong: Vec<String>,
}

fn check(expr: &str, tally: &mut Tally) {
    let program =
        frontend::parse_expr_with_inputs(expr, &["x", "y"]).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let root = program.outputs[0].node;
    for x in [0.15, 0.35, 0.6, 0.85] {
        let y = 0.5 + x;
        let jets = eval_jets(&program.dag, &[root], &[Jet::seed(x, 1.0, ORDER), Jet::seed(y, 0.0, ORDER)]);
        let oracle: Vec<f64> = (0..=ORDER).map(|k| jets[0].derivative(k, ORDER)).collect();
        if oracle.iter().any(|v| !v.is_finite()) {
            continue;
        }
        let magnitude = oracle.iter().enumerate().map(|(k, v)| v.abs() / factorial(k)).fold(1.0, f64::max);
        for scale in [Scale::Derivatives, Scale::Coefficients] {
            let mut dag = frontend::ExprDag::clone(&program.dag);
            let one = dag.constant(1.0);
            let series =
                taylor(&mut dag, &[root], &[Some(one), None], ORDER, scale).expect("finite constants");
            let nodes: Vec<NodeId> = series[0].iter().map(|c| c.unwrap_or(one)).collect();
            let values = frontend::eval(&dag, &nodes, &[x, y]);
            for k in 0..=ORDER {
                let mut ours = if series[0][k].is_some() { values[k] } else { 0.0 };
                if scale == Scale::Coefficients {
                    ours *= factorial(k);
                }
                let want = oracle[k];
                tally.checked += 1;
                // Relative to the series' size at this order: the terms of
                // a recurrence can be that large while the result cancels.
                let tol = 1e-11 * factorial(k) * magnitude.max(want.abs() / factorial(k));
                // NaN is wrong too.
                let within = (ours - want).abs() <= tol;
                if !within {
                    tally.wrong.push(format!("{expr} at x = {x}, {scale:?} order {k}: {ours} vs {want}"));
                }
            }
        }
    }
}

#[test]
fn every_operation_matches_nested_duals_to_order_8() {
    let mut tally = Tally { checked: 0, wrong: vec![] };
    for op in Op::ALL {
        let before = tally.checked;
        for expr in expressions(op) {
            check(&expr, &mut tally);
        }
        assert!(tally.checked > before, "{op:?} was not checked");
    }
    assert!(
        tally.wrong.is_empty(),
        "{} of {} wrong:\n{}",
        tally.wrong.len(),
        tally.checked,
        tally.wrong.join("\n")
    );
    eprintln!("{} derivatives checked, 0 wrong", tally.checked);
}
