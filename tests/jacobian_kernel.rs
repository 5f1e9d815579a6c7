//! `JacobianKernel`: the documented CSR layout, dense output and batches.

use dstar::{compile, Options};

const SOURCE: &str = "in x, y, z\nt = x*y\nout f = sin(t) + z\nout g = t*t\nout h = 2*z\n";

#[test]
fn output_is_values_then_csr_entries() {
    let kernel = compile(SOURCE, &Options::default()).expect("compiles");
    let pattern = kernel.pattern();
    // f depends on x, y, z; g on x, y; h on z.
    assert_eq!(pattern.row_offsets, [0, 3, 5, 6]);
    assert_eq!(pattern.cols, [0, 1, 2, 0, 1, 2]);
    assert_eq!(kernel.out_len(), 3 + 6);
    let (x, y, z) = (0.3, -1.2, 2.0);
    let mut out = vec![0.0; kernel.out_len()];
    kernel.eval(&[x, y, z], &mut out).expect("lengths match");
    let t: f64 = x * y;
    assert_eq!(&out[..3], &[t.sin() + z, t * t, 2.0 * z]);
    let c = t.cos();
    let expected = [y * c, x * c, 1.0, 2.0 * t * y, 2.0 * t * x, 2.0];
    for (got, want) in out[3..].iter().zip(expected) {
        assert!((got - want).abs() <= 1e-15 * want.abs().max(1.0), "{got} vs {want}");
    }
    let (values, dense) = kernel.eval_dense(&[x, y, z]).expect("lengths match");
    assert_eq!(values, &out[..3]);
    assert_eq!(dense, pattern.to_dense(&out[3..]));
    assert_eq!(dense[2], [0.0, 0.0, 2.0]);
}

#[test]
fn wrong_lengths_are_errors_and_batches_match_single_calls() {
    let kernel = compile(SOURCE, &Options::default()).expect("compiles");
    let mut out = vec![0.0; kernel.out_len()];
    assert!(kernel.eval(&[1.0, 2.0], &mut out).is_err());
    assert!(kernel.eval(&[1.0, 2.0, 3.0], &mut out[..4]).is_err());
    let points: Vec<f64> = (0..300).map(|i| (i as f64 * 0.37).sin()).collect();
    let rows = points.len() / 3;
    let mut batch = vec![0.0; rows * kernel.out_len()];
    kernel.eval_batch(&points, &mut batch).expect("shapes match");
    for (p, o) in points.chunks(3).zip(batch.chunks(kernel.out_len())) {
        kernel.eval(p, &mut out).expect("lengths match");
        assert_eq!(out, o);
    }
}

/// Batches run two points per call, bit for bit the single calls, on every
/// corpus Jacobian (matrix products too, whose one-point kernels already
/// run most operations in `f64x2` lanes).
#[test]
fn corpus_batches_run_two_points_per_call_and_match_single_calls() {
    for problem in testkit::corpus() {
        let kernel = dstar::compile_program(&problem.program, &Options::default()).expect("compiles");
        let n = problem.program.inputs.len();
        let x = testkit::point_of(&problem.program);
        let points: Vec<f64> =
            (0..9).flat_map(|i| x.iter().map(move |v| v * (1.0 + 0.01 * i as f64))).collect();
        let mut batch = vec![f64::NAN; 9 * kernel.out_len()];
        kernel.eval_batch(&points, &mut batch).expect("shapes match");
        let mut out = vec![0.0; kernel.out_len()];
        for (p, o) in points.chunks(n).zip(batch.chunks(kernel.out_len())) {
            kernel.eval(p, &mut out).expect("lengths match");
            assert!(out.iter().zip(o).all(|(a, b)| a.to_bits() == b.to_bits()), "{}", problem.name);
        }
        assert_eq!(kernel.kernel().points_per_call(), 2, "{}", problem.name);
    }
}

/// Issue 31: `Options::stop` is asked between the stages and the compiled
/// chunks; a request makes the result `Error::Stopped`.
#[test]
fn issue_31_a_requested_stop_stops_compiling() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let flag = Arc::new(AtomicBool::new(true));
    let options = dstar::Options { stop: dstar::Stop::flag(Arc::clone(&flag)), ..Default::default() };
    let source = "in x, y\nout f = sin(x*y) + x^2";
    assert!(matches!(dstar::compile(source, &options), Err(dstar::Error::Stopped)));
    flag.store(false, Ordering::Relaxed);
    assert!(dstar::compile(source, &options).is_ok());
}
