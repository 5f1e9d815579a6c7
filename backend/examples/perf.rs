//! Performance reports: run them in release, alone,
//!
//! ```text
//! cargo run --release -p dstar-backend --example perf [compile|tiny|gcc]
//! ```
//!
//! (no argument: all three). They print what they measure and fail only on
//! gross regressions: compile time far from linear, or a tiny kernel call
//! far above its target.

use backend::{emit_c, JitCompiler, Regalloc};
use std::hint::black_box;
use std::time::{Duration, Instant};
use testkit::native::{c_compiler, CKernel};
use testkit::scaling_program;
use testkit::timing::paired_ns_per_call;

fn compile_time_is_linear() {
    println!("{:>9} {:>13} {:>8} {:>12} {:>10}", "ops", "regalloc", "chunks", "compile ms", "us/op");
    for regalloc in [Regalloc::Backtracking, Regalloc::SinglePass] {
        let compiler = JitCompiler::new().unwrap().with_regalloc(regalloc);
        let mut per_op = Vec::new();
        for num_ops in [1_000, 10_000, 100_000, 1_000_000] {
            let (dag, outputs, n) = scaling_program(num_ops, 1);
            let start = Instant::now();
            let kernel =
                compiler.compile(&frontend::Kernel::new(dag.clone(), outputs.to_vec(), n).unwrap()).unwrap();
            let elapsed = start.elapsed();
            let us = elapsed.as_secs_f64() * 1e6 / num_ops as f64;
            println!(
                "{num_ops:>9} {:>13} {:>8} {:>12.1} {us:>10.2}",
                format!("{regalloc:?}"),
                num_ops.div_ceil(JitCompiler::DEFAULT_CHUNK_SIZE),
                elapsed.as_secs_f64() * 1e3
            );
            let mut out = vec![0.0; kernel.num_outputs()];
            kernel.eval(&[0.5; 16], &mut out).unwrap();
            per_op.push(us);
        }
        // Linear: the per-op cost at 1e6 stays within 3x of the one at 1e4.
        assert!(per_op[3] < 3.0 * per_op[1], "{regalloc:?}: {per_op:?} us/op is not linear");
    }
}

fn tiny_kernel_call_is_cheap() {
    // 3 inputs, 10 operations.
    let program =
        frontend::parse_program("in x, y, z\na = x*y + z\nb = a*a - x/z\nout sqrt(abs(b)) + min(a, y)*0.5")
            .unwrap();
    assert_eq!(program.count_ops(), 10);
    let kernel = JitCompiler::new()
        .unwrap()
        .compile(&frontend::Kernel::new(program.dag.clone(), program.output_nodes(), 3).unwrap())
        .unwrap();
    let x = [0.3, 1.2, -0.7];
    let mut out = [0.0];
    let call = || kernel.eval(black_box(&x), black_box(&mut out)).unwrap();
    let (ns, _) = paired_ns_per_call(Duration::from_millis(500), call, || ());
    println!("tiny kernel (3 inputs, 10 ops): {ns:.1} ns/call");
    assert!(ns < 100.0, "a 10-op kernel call takes {ns:.1} ns");
}

fn jit_against_gcc_o3() {
    let Some(cc) = c_compiler() else { return };
    let compiler = JitCompiler::new().unwrap();
    println!(
        "{:>16} {:>7} {:>10} {:>10} {:>10} {:>7}",
        "problem", "ops", "compile ms", "JIT ns", "C ns", "JIT/C"
    );
    for problem in testkit::corpus() {
        let (name, program) = (problem.name, problem.program);
        let outputs = program.output_nodes();
        let n = program.inputs.len();
        let start = Instant::now();
        let jit = compiler
            .compile(&frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), n).unwrap())
            .unwrap();
        let compile_ms = start.elapsed().as_secs_f64() * 1e3;
        let source = emit_c(
            &frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), n).unwrap(),
            "dstar_kernel",
            &[n],
        )
        .unwrap();
        let c = CKernel::build(&cc, &source, "dstar_kernel", &["-O3", "-std=c99"], n, outputs.len());
        let x = testkit::point_of(&program);
        let mut out = vec![0.0; outputs.len()];
        let mut c_out = out.clone();
        let (jit_ns, c_ns) = paired_ns_per_call(
            Duration::from_millis(400),
            || jit.eval(black_box(&x), black_box(&mut out)).unwrap(),
            || c.eval(black_box(&x), black_box(&mut c_out)),
        );
        println!(
            "{name:>16} {:>7} {compile_ms:>10.2} {jit_ns:>10.1} {c_ns:>10.1} {:>7.2}",
            program.count_ops(),
            jit_ns / c_ns
        );
    }
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    if which.is_empty() || which == "compile" {
        compile_time_is_linear();
    }
    if which.is_empty() || which == "tiny" {
        tiny_kernel_call_is_cheap();
    }
    if which.is_empty() || which == "gcc" {
        jit_against_gcc_o3();
    }
}
