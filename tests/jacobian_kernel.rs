//! The compiled kernel (`dstar::Compiled`) for every request: the
//! documented layouts, named argument blocks checked by length, dense
//! output, and batches that match single calls bit for bit, with the
//! parameters shared or given per point.

use dstar::{compile, Args, Batch, Block, Error, Function, Options, Request};

const SOURCE: &str = "in x, y, z\nt = x*y\nout f = sin(t) + z\nout g = t*t\nout h = 2*z\n";

#[test]
fn jacobian_output_is_values_then_csr_entries() {
    let kernel = compile(SOURCE, Request::Jacobian, &Options::default()).expect("compiles");
    let pattern = kernel.pattern().expect("a Jacobian has a pattern").clone();
    // f depends on x, y, z; g on x, y; h on z.
    assert_eq!(*pattern.row_offsets, [0, 3, 5, 6]);
    assert_eq!(*pattern.cols, [0, 1, 2, 0, 1, 2]);
    assert_eq!(kernel.out_len(), 3 + 6);
    assert_eq!(kernel.layout().blocks(), [Block::Values(3), Block::Sparse(pattern.clone())]);
    let (x, y, z) = (0.3, -1.2, 2.0);
    let mut out = vec![0.0; kernel.out_len()];
    kernel.eval(Args::x(&[x, y, z]), &mut out).expect("lengths match");
    let t: f64 = x * y;
    assert_eq!(&out[..3], &[t.sin() + z, t * t, 2.0 * z]);
    let c = t.cos();
    let expected = [y * c, x * c, 1.0, 2.0 * t * y, 2.0 * t * x, 2.0];
    for (got, want) in out[3..].iter().zip(expected) {
        assert!((got - want).abs() <= 1e-15 * want.abs().max(1.0), "{got} vs {want}");
    }
    let dense = kernel.eval_dense(Args::x(&[x, y, z])).expect("lengths match");
    assert_eq!(dense[0][0], &out[..3]);
    assert_eq!(dense[1], pattern.to_dense(&out[3..]));
    assert_eq!(dense[1][2], [0.0, 0.0, 2.0]);
}

#[test]
fn every_request_has_its_blocks_and_layout() {
    let f = Function::parse("param a\nin x, y\nout f = a*x*y\nout g = sin(x)", Options::default()).unwrap();
    let (x, p) = ([0.5, 2.0], [3.0]);
    let cases: [(Request, usize, usize, &[usize]); 8] = [
        (Request::Values, 0, 0, &[2]),
        (Request::Jacobian, 0, 0, &[2, 3]),
        (Request::Gradient, 0, 0, &[2, 2]),
        (Request::Hessian, 2, 0, &[2]),
        (Request::Jvp(3), 0, 6, &[6]),
        (Request::Vjp(2), 4, 0, &[4]),
        (Request::Hvp(2), 2, 4, &[4]),
        (Request::Taylor(3), 0, 2, &[8]),
    ];
    for (request, w, v, lengths) in cases {
        let kernel = f.compile(request).unwrap();
        let blocks = kernel.blocks();
        assert_eq!((blocks.x, blocks.p, blocks.w, blocks.v), (2, 1, w, v), "{request:?}");
        let got: Vec<usize> = kernel.layout().blocks().iter().map(Block::len).collect();
        assert_eq!(got, lengths, "{request:?}");
        let (wv, vv) = (vec![0.5; w], vec![1.0; v]);
        let mut out = vec![0.0; kernel.out_len()];
        kernel.eval(Args::x(&x).p(&p).w(&wv).v(&vv), &mut out).unwrap();
        assert!(out.iter().all(|v| v.is_finite()), "{request:?}: {out:?}");
    }
    // J·v with v = (1, 0): the first column of J = [[a*y, a*x], [cos x, 0]].
    let jv = f.compile(Request::Jvp(1)).unwrap();
    let mut out = [0.0; 2];
    jv.eval(Args::x(&x).p(&p).v(&[1.0, 0.0]), &mut out).unwrap();
    assert_eq!(out, [6.0, 0.5f64.cos()]);
}

#[test]
fn wrong_lengths_are_errors_that_name_the_block() {
    let f = Function::parse("param a, b\nin x, y\nout a*x + b*y", Options::default()).unwrap();
    let kernel = f.compile(Request::Hessian).unwrap();
    let mut out = vec![0.0; kernel.out_len()];
    let message = |result: Result<(), Error>| match result {
        Err(e @ Error::Argument { .. }) => e.to_string(),
        other => panic!("not an argument error: {other:?}"),
    };
    let p_short = message(kernel.eval(Args::x(&[1.0, 2.0]).p(&[1.0]).w(&[1.0]), &mut out));
    assert_eq!(p_short, "p has 1 values; the kernel takes 2 parameters");
    let w_missing = message(kernel.eval(Args::x(&[1.0, 2.0]).p(&[1.0, 2.0]), &mut out));
    assert_eq!(w_missing, "w has 0 values; the kernel takes 1 weights");
    let x_long = message(kernel.eval(Args::x(&[1.0, 2.0, 3.0]).p(&[1.0, 2.0]).w(&[1.0]), &mut out));
    assert!(x_long.starts_with("x has 3 values"), "{x_long}");
    assert!(kernel.eval(Args::x(&[1.0, 2.0]).p(&[1.0, 2.0]).w(&[1.0]), &mut [0.0; 5]).is_err());
    let mut outs = vec![0.0; 3 * kernel.out_len()];
    let batch = Batch::x(&[1.0; 6]).p(&[1.0; 4]).w(&[1.0]);
    let p_rows = message(kernel.eval_batch(batch, &mut outs));
    assert!(p_rows.starts_with("p has 4 values; the kernel takes 2 parameters for all 3 points"), "{p_rows}");
}

#[test]
fn batches_match_single_calls_with_shared_or_per_point_parameters() {
    let source = "param a, b\nin x, y, z\nt = x*y*a\nout f = sin(t) + z*b\nout g = t*t\nout h = 2*z^b\n";
    let f = Function::parse(source, Options::default()).unwrap();
    for request in [Request::Values, Request::Jacobian, Request::Hessian, Request::Hvp(2)] {
        let kernel = f.compile(request).unwrap();
        let blocks = kernel.blocks();
        let points = 11;
        let xs: Vec<f64> = (0..points * 3).map(|i| 1.0 + (i as f64 * 0.37).sin()).collect();
        let ps: Vec<f64> = (0..points * 2).map(|i| 1.5 + (i as f64 * 0.11).cos()).collect();
        let w: Vec<f64> = (0..blocks.w).map(|i| 0.5 + i as f64).collect();
        let v: Vec<f64> = (0..blocks.v).map(|i| 1.0 - 0.1 * i as f64).collect();
        let len = kernel.out_len();
        let mut single = vec![0.0; len];
        for shared in [true, false] {
            let p = if shared { &ps[..2] } else { &ps[..] };
            let mut outs = vec![f64::NAN; points * len];
            kernel.eval_batch(Batch::x(&xs).p(p).w(&w).v(&v), &mut outs).unwrap();
            for i in 0..points {
                let pi = if shared { &ps[..2] } else { &ps[2 * i..2 * i + 2] };
                kernel.eval(Args::x(&xs[3 * i..3 * i + 3]).p(pi).w(&w).v(&v), &mut single).unwrap();
                let row = &outs[i * len..(i + 1) * len];
                assert!(
                    single.iter().zip(row).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{request:?}, point {i}, shared {shared}"
                );
            }
        }
        assert_eq!(kernel.kernel().expect("one kernel").points_per_call(), 2, "{request:?}");
    }
}

/// Batches run two points per call, bit for bit the single calls, on every
/// corpus Jacobian (matrix products too, whose one-point kernels already
/// run most operations in `f64x2` lanes).
#[test]
fn corpus_batches_run_two_points_per_call_and_match_single_calls() {
    for problem in testkit::corpus() {
        let function = Function::new(problem.program.clone(), Options::default());
        let kernel = function.compile(Request::Jacobian).expect("compiles");
        let n = problem.program.inputs.len();
        let x = testkit::point_of(&problem.program);
        let points: Vec<f64> =
            (0..9).flat_map(|i| x.iter().map(move |v| v * (1.0 + 0.01 * i as f64))).collect();
        let mut batch = vec![f64::NAN; 9 * kernel.out_len()];
        kernel.eval_batch(Batch::x(&points), &mut batch).expect("shapes match");
        let mut out = vec![0.0; kernel.out_len()];
        for (p, o) in points.chunks(n).zip(batch.chunks(kernel.out_len())) {
            kernel.eval(Args::x(p), &mut out).expect("lengths match");
            assert!(out.iter().zip(o).all(|(a, b)| a.to_bits() == b.to_bits()), "{}", problem.name);
        }
        assert_eq!(kernel.kernel().expect("one kernel").points_per_call(), 2, "{}", problem.name);
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
    for request in [Request::Jacobian, Request::Hessian, Request::Values] {
        assert!(matches!(dstar::compile(source, request, &options), Err(dstar::Error::Stopped)));
    }
    flag.store(false, Ordering::Relaxed);
    assert!(dstar::compile(source, Request::Jacobian, &options).is_ok());
}

/// Issue 27: a stop given with one compile or one batch (Python's Ctrl-C)
/// stops that compile or batch alone (the two-point variant's compile
/// included); the function and kernel stay usable.
#[test]
fn issue_27_compile_and_batch_until_a_stop() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let flag = Arc::new(AtomicBool::new(true));
    let stop = dstar::Stop::flag(Arc::clone(&flag));
    let f = Function::parse("param a\nin x, y\nout f = sin(a*x*y) + x^2", Options::default()).unwrap();
    assert!(matches!(f.compile_until(Request::Jacobian, &stop), Err(Error::Stopped)));
    let jacobian = f.compile(Request::Jacobian).unwrap();
    let xs: Vec<f64> = (0..2_000).map(|i| i as f64 / 1000.0).collect();
    let mut outs = vec![0.0; 1_000 * jacobian.out_len()];
    let batch = Batch::x(&xs).p(&[0.5]);
    assert!(matches!(jacobian.eval_batch_until(batch, &mut outs, &stop), Err(Error::Stopped)));
    flag.store(false, Ordering::Relaxed);
    jacobian.eval_batch_until(batch, &mut outs, &stop).unwrap();
    // The stopped first batch left the two-point variant to the next one.
    assert_eq!(jacobian.kernel().expect("one kernel").points_per_call(), 2);
    let mut want = vec![0.0; outs.len()];
    jacobian.eval_batch(batch, &mut want).unwrap();
    assert_eq!(outs, want);
    assert!(f.compile_until(Request::Hessian, &stop).is_ok());
}

/// Issue 27: what a caller keeps of each point (a Jacobian scattered
/// dense, the Hessian's nonzeros) is, bit for bit, what it would cut out
/// of `eval_batch`'s outputs, with parameters shared or per point.
#[test]
fn issue_27_kept_parts_of_a_batch_are_cut_from_its_outputs() {
    let source = "param a, b\nin x, y, z\nout f = a*sin(x*y) + z^2\nout g = b*x*z\nout h = exp(a*y)";
    let f = Function::parse(source, Options::default()).unwrap();
    let points = 301;
    let xs: Vec<f64> = (0..3 * points).map(|i| (i as f64 * 0.37).sin()).collect();
    let per_point: Vec<f64> = (0..2 * points).map(|i| 1.0 + (i as f64 * 0.11).cos()).collect();
    for request in [Request::Jacobian, Request::Hessian] {
        let kernel = f.compile(request).unwrap();
        let (last, block) = (kernel.layout().blocks().len() - 1, kernel.layout().blocks().last().unwrap());
        let offset = kernel.out_len() - block.len();
        let (rows, cols) = block.dense_shape();
        for p in [&[0.5, 2.0][..], &per_point] {
            let weights = [1.0, -2.0, 0.5];
            let batch = Batch::x(&xs).p(p).w(if request == Request::Hessian { &weights[..] } else { &[] });
            let mut outs = vec![0.0; points * kernel.out_len()];
            kernel.eval_batch(batch, &mut outs).unwrap();
            let mut want = vec![0.0; points * rows * cols];
            for (out, row) in outs.chunks(kernel.out_len()).zip(want.chunks_mut(rows * cols)) {
                block.scatter(&out[offset..], row);
            }
            let mut kept = vec![f64::NAN; want.len()];
            let keep = |out: &[f64], row: &mut [f64]| block.scatter(&out[offset..], row);
            kernel.eval_batch_keep(batch, &mut kept, rows * cols, &dstar::Stop::never(), keep).unwrap();
            assert_eq!(kept, want, "{request:?}, block {last}");
            let mut wrong = vec![0.0; want.len() + 1];
            assert!(kernel
                .eval_batch_keep(batch, &mut wrong, rows * cols, &dstar::Stop::never(), keep)
                .is_err());
        }
    }
}
