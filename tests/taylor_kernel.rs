//! Issue 15: `Request::Taylor`, the coefficients `0..=k` of `f(x + t·v)` at
//! one call, against kernels built by other means: coefficient 1 is `J·v`
//! (D*'s Jacobian), coefficient 2 is `½·vᵀ(H v)` (forward over reverse),
//! the JIT equals the interpreter of the same series, and polynomials
//! expand exactly.

use dstar::{Args, Compiled, Error, Function, Options, Program, Request};

/// The kernel of `request` on `program`.
fn compile(program: &Program, request: Request) -> Result<Compiled, Error> {
    Function::new(program.clone(), Options::default()).compile(request)
}

/// The Taylor coefficients of `program` to `order` at `x` along `v`.
fn series(program: &Program, order: u64, x: &[f64], v: &[f64]) -> Vec<f64> {
    let kernel = compile(program, Request::Taylor(order)).unwrap();
    let mut c = vec![0.0; kernel.out_len()];
    kernel.eval(Args::x(x).v(v), &mut c).unwrap();
    c
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn low_coefficients_match_the_jacobian_and_the_hessian_on_the_corpus() {
    for problem in testkit::corpus() {
        let (path, program) = (&problem.path, &problem.program);
        let (n, m) = (program.inputs.len(), program.outputs.len());
        let x = program.point.clone().unwrap_or_else(|| vec![0.5; n]);
        // A direction with every input moving, none alike.
        let v: Vec<f64> = (0..n).map(|i| 0.3 + (i as f64 * 0.618).fract()).collect();
        let c = series(program, 3, &x, &v);
        assert_eq!(c.len(), 4 * m);
        // The same series, interpreted.
        let kernel =
            dstar::factor::taylor_series(program.kernel().unwrap(), 3, &dstar::Budget::default()).unwrap();
        let interpreted = dstar::eval(kernel.dag(), kernel.roots(), &[x.as_slice(), &v].concat());
        let dense = compile(program, Request::Jacobian).unwrap().eval_dense(Args::x(&x)).unwrap();
        let (values, j) = (&dense[0][0], &dense[1]);
        let hv = compile(program, Request::Hvp(1)).unwrap();
        let name = path.display();
        for i in 0..m {
            assert!(close(c[i], values[i]), "{name} output {i}: c0 {} vs {}", c[i], values[i]);
            let jv: f64 = (0..n).map(|k| j[i][k] * v[k]).sum();
            assert!(close(c[m + i], jv), "{name} output {i}: c1 {} vs J·v {jv}", c[m + i]);
            let mut w = vec![0.0; m];
            w[i] = 1.0;
            let mut h = vec![0.0; n];
            hv.eval(Args::x(&x).w(&w).v(&v), &mut h).unwrap();
            let vhv: f64 = (0..n).map(|k| v[k] * h[k]).sum::<f64>() / 2.0;
            assert!(close(c[2 * m + i], vhv), "{name} output {i}: c2 {} vs vᵀHv/2 {vhv}", c[2 * m + i]);
        }
        for (k, (a, b)) in c.iter().zip(&interpreted).enumerate() {
            assert!(close(*a, *b), "{name} entry {k}: JIT {a} vs interpreter {b}");
        }
    }
}

#[test]
fn polynomials_expand_exactly() {
    // (x + t·v)^5 y... = Σ C(5, j) x^(5-j) v^j t^j; the y part is degree 1.
    let program = dstar::parse_program("in x, y\nout x^5 * y").unwrap();
    let c = series(&program, 8, &[2.0, 3.0], &[0.5, -1.0]);
    // (2 + t/2)^5 (3 - t), expanded by hand from the binomials.
    let p: Vec<f64> =
        (0..=5).map(|j| binomial(5, j) * 2f64.powi(5 - j as i32) * 0.5f64.powi(j as i32)).collect();
    let want: Vec<f64> = (0..=8)
        .map(|j| {
            3.0 * p.get(j).copied().unwrap_or(0.0)
                - if j > 0 { p.get(j - 1).copied().unwrap_or(0.0) } else { 0.0 }
        })
        .collect();
    assert_eq!(c, want);
}

fn binomial(n: u64, k: usize) -> f64 {
    (0..k as u64).map(|i| (n - i) as f64 / (i + 1) as f64).product()
}

#[test]
fn orders_past_the_constants_are_refused_at_once() {
    let program = dstar::parse_program("in x\nout sin(x)").unwrap();
    let e = compile(&program, Request::Taylor(u64::MAX)).unwrap_err();
    assert!(e.to_string().contains("ask for order 170 or lower"), "{e}");
    let program = dstar::parse_program("in x\nout sin(exp(x))").unwrap();
    let budget = dstar::Budget { max_work: 1_000, max_ops: usize::MAX };
    let e = dstar::factor::taylor_series(program.kernel().unwrap(), 100, &budget).unwrap_err();
    assert!(e.to_string().contains("needs too much work"), "{e}");
}

/// Whether `got` is within `rel` of `want`, relatively, entry by entry.
fn all_within(got: &[f64], want: &[f64], rel: f64) -> bool {
    got.len() == want.len() && got.iter().zip(want).all(|(g, w)| (g - w).abs() <= rel * w.abs())
}

/// Issue 26: the closed forms of `1/x`, `sqrt(x)` and `log(x)` along a
/// direction given at run time, at `x = v = 1e40`, where coefficient 8 was
/// NaN, -inf and NaN (`v^8` and `x^9` overflow apart), through the JIT and
/// the interpreter. mpmath's coefficients; every scale is in
/// `factor/derivative/tests/taylor_extreme_scales`.
#[test]
fn issue_26_closed_forms_at_1e40() {
    let program = dstar::parse_program("in x\nout r = 1/x\nout s = sqrt(x)\nout l = log(x)").unwrap();
    let c = series(&program, 8, &[1e40], &[1e40]);
    let kernel =
        dstar::factor::taylor_series(program.kernel().unwrap(), 8, &dstar::Budget::default()).unwrap();
    let interpreted = dstar::eval(kernel.dag(), kernel.roots(), &[1e40, 1e40]);
    assert_eq!(c, interpreted);
    let output = |i: usize| (0..=8).map(|k| c[3 * k + i]).collect::<Vec<f64>>();
    let reciprocal: Vec<f64> = (0..=8).map(|k| if k % 2 == 0 { 1e-40 } else { -1e-40 }).collect();
    let root = [
        1e20,
        5e19,
        -1.25e19,
        6.25e18,
        -3.90625e18,
        2.734375e18,
        -2.05078125e18,
        1.611328125e18,
        -1.3092041015625e18,
    ];
    let log = [92.10340371976183, 1.0, -0.5, 1.0 / 3.0, -0.25, 0.2, -1.0 / 6.0, 1.0 / 7.0, -0.125];
    assert!(all_within(&output(0), &reciprocal, 1e-14), "1/x: {:?}", output(0));
    assert!(all_within(&output(1), &root, 1e-14), "sqrt(x): {:?}", output(1));
    assert!(all_within(&output(2), &log, 1e-14), "log(x): {:?}", output(2));
}

/// Issue 26: the recurrences of `atan`, `asinh`, `hypot` and `atan2`, which
/// formed `1 + x²` or `x² + y²` (`atan` at `x = v = 1e200` gave `[π/2, 0,
/// NaN, NaN, ...]`), through the JIT and the interpreter. mpmath's
/// coefficients; every scale is in `factor/derivative/tests/taylor_extreme_scales`.
#[test]
fn issue_26_recurrences_at_1e200() {
    let series = |source: &str, x: &[f64], v: &[f64]| {
        let program = dstar::parse_program(source).unwrap();
        let c = series(&program, 8, x, v);
        let taylor =
            dstar::factor::taylor_series(program.kernel().unwrap(), 8, &dstar::Budget::default()).unwrap();
        let interpreted = dstar::eval(taylor.dag(), taylor.roots(), &[x, v].concat());
        assert!(c.iter().zip(&interpreted).all(|(a, b)| a == b || a.is_nan() && b.is_nan()), "{source}");
        c
    };
    let c = series("in x\nout a = atan(x)\nout s = asinh(x)", &[1e200], &[1e200]);
    let atan: Vec<f64> = (0..=8)
        .map(|k| if k == 0 { std::f64::consts::FRAC_PI_2 } else { -(-1f64).powi(k) * 1e-200 })
        .collect();
    let asinh: Vec<f64> =
        (0..=8).map(|k| if k == 0 { 461.2101657793691 } else { -(-1f64).powi(k) / f64::from(k) }).collect();
    let output = |c: &[f64], m: usize, i: usize| (0..=8).map(|k| c[m * k + i]).collect::<Vec<f64>>();
    assert!(all_within(&output(&c, 2, 0), &atan, 1e-14), "atan: {:?}", output(&c, 2, 0));
    assert!(all_within(&output(&c, 2, 1), &asinh, 1e-14), "asinh: {:?}", output(&c, 2, 1));
    let c = series("in x, y\nout hypot(x, y)", &[1e300, 1e300], &[1e300, 0.0]);
    let hypot = [
        1.4142135623730952e300,
        7.071067811865476e299,
        1.767766952966369e299,
        -8.838834764831845e298,
        3.3145630368119416e298,
        -5.524271728019903e297,
        -4.143203796014927e297,
        4.8337377620174147e297,
        -2.632660745384485e297,
    ];
    assert!(all_within(&c, &hypot, 1e-14), "hypot: {c:?}");
    // Coefficients 4 and 8 are exactly 0: within rounding of the size.
    let c = series("in x, y\nout atan2(x, y)", &[1e-300, 1e-300], &[1e-300, 0.0]);
    let atan2 = [
        std::f64::consts::FRAC_PI_4,
        0.5,
        -0.25,
        1.0 / 12.0,
        0.0,
        -0.025,
        0.020833333333333332,
        -0.008928571428571428,
        0.0,
    ];
    assert!(c.iter().zip(&atan2).all(|(c, w)| (c - w).abs() <= 1e-14 * w.abs().max(0.1)), "atan2: {c:?}");
}
