//! Kernels whose input comes as separate arrays read in place
//! (`compile_parts`, `eval_parts`): the same values as one concatenated
//! input, bit for bit, on generated programs; wrong arrays are errors.

use backend::{CodegenError, JitCompiler, KernelError, MAX_PARTS};
use testkit::{same, with_seed, Rng, Shape};

#[test]
fn parts_read_in_place_match_the_concatenated_input() {
    let Ok(compiler) = JitCompiler::new() else { return };
    let mut rng = Rng::new(14);
    for seed in 0..40 {
        let num_inputs = 1 + rng.below(9);
        let case = with_seed(seed, &Shape::every(num_inputs, 30 + rng.below(60)));
        let kernel = frontend::Kernel::new(case.dag.clone(), case.outputs.clone(), num_inputs).unwrap();
        // Random cuts into up to MAX_PARTS arrays, empty ones included.
        let mut lengths = vec![0; 1 + rng.below(MAX_PARTS)];
        for _ in 0..num_inputs {
            let p = rng.below(lengths.len());
            lengths[p] += 1;
        }
        // Small chunks too, so that parts are read in several functions.
        for chunk_size in [1000, 7] {
            let whole = compiler.clone().with_chunk_size(chunk_size).compile(&kernel).unwrap();
            let split =
                compiler.clone().with_chunk_size(chunk_size).compile_parts(&kernel, &lengths).unwrap();
            assert_eq!(split.part_lengths(), &lengths[..]);
            let mut arrays: Vec<Vec<f64>> = Vec::new();
            let mut rest = &case.point[..];
            for &len in &lengths {
                let (head, tail) = rest.split_at(len);
                arrays.push(head.to_vec());
                rest = tail;
            }
            let parts: Vec<&[f64]> = arrays.iter().map(Vec::as_slice).collect();
            let (mut a, mut b, mut c) =
                (vec![0.0; case.outputs.len()], vec![1.0; case.outputs.len()], vec![2.0; case.outputs.len()]);
            whole.eval(&case.point, &mut a).unwrap();
            split.eval_parts(&parts, &mut b).unwrap();
            split.eval(&case.point, &mut c).unwrap();
            for k in 0..a.len() {
                assert!(same(a[k], b[k]) && same(a[k], c[k]), "seed {seed}, parts {lengths:?}, output {k}");
            }
        }
    }
}

#[test]
fn wrong_arrays_are_errors_and_write_nothing() {
    let Ok(compiler) = JitCompiler::new() else { return };
    let program = frontend::parse_program("in x, y, w\nout x * w + y").unwrap();
    let kernel = program.kernel().unwrap();
    let split = compiler.compile_parts(&kernel, &[2, 1]).unwrap();
    let mut out = [-1.0];
    assert_eq!(
        split.eval_parts(&[&[1.0, 2.0]], &mut out),
        Err(KernelError::PartCount { expected: 2, found: 1 })
    );
    assert_eq!(
        split.eval_parts(&[&[1.0, 2.0], &[]], &mut out),
        Err(KernelError::PartLength { part: 1, expected: 1, found: 0 })
    );
    assert_eq!(out, [-1.0]);
    split.eval_parts(&[&[1.0, 2.0], &[3.0]], &mut out).unwrap();
    assert_eq!(out, [5.0]);
    for lengths in [&[][..], &[1, 1], &[1, 1, 1, 0, 0]] {
        let err = compiler.compile_parts(&kernel, lengths).unwrap_err();
        assert!(matches!(err, CodegenError::InputParts { .. }), "{lengths:?}: {err}");
    }
}
