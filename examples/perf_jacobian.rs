//! Performance report (run in release, alone): the default pipeline's
//! function-and-Jacobian kernel, JIT against the emitted C compiled with
//! `gcc -O3` and called through a function pointer.
//!
//! ```text
//! cargo run --release -p dstar --example perf_jacobian
//! ```
//!
//! `ONLY=lyons,matmul_4` limits the report to those problems.

use std::hint::black_box;
use std::time::Duration;
use testkit::native::{c_compiler, CKernel};
use testkit::timing::paired_ns_per_call;

fn main() {
    let Some(cc) = c_compiler() else { return };
    let compiler = dstar::JitCompiler::new().expect("host supported");
    println!("{:>16} {:>7} {:>10} {:>10} {:>7}", "problem", "ops", "JIT ns", "C ns", "JIT/C");
    let mut worst: f64 = 0.0;
    for problem in testkit::corpus() {
        let name = problem.name;
        if std::env::var("ONLY").is_ok_and(|o| !o.split(',').any(|o| o == name)) {
            continue;
        }
        let program = problem.program;
        let jacobian = dstar::differentiate(&program, &dstar::Options::default()).expect("valid").jacobian;
        let (roots, n) = (jacobian.kernel().roots(), program.inputs.len());
        let kernel = compiler.compile(jacobian.kernel()).expect("compiles");
        let source = dstar::emit_c(jacobian.kernel(), "dstar_kernel", &[n]).expect("a C name");
        let c = CKernel::build(&cc, &source, "dstar_kernel", &["-O3", "-std=c99"], n, roots.len());
        let x = program.point.clone().unwrap_or_else(|| vec![0.5; n]);
        let (mut out, mut c_out) = (vec![0.0; roots.len()], vec![0.0; roots.len()]);
        let (jit_ns, c_ns) = paired_ns_per_call(
            Duration::from_millis(400),
            || kernel.eval(black_box(&x), black_box(&mut out)).expect("lengths"),
            || c.eval(black_box(&x), black_box(&mut c_out)),
        );
        worst = worst.max(jit_ns / c_ns);
        println!(
            "{name:>16} {:>7} {jit_ns:>10.1} {c_ns:>10.1} {:>7.2}",
            jacobian.jacobian_ops(),
            jit_ns / c_ns
        );
    }
    println!("worst JIT/C: {worst:.2}");
}
