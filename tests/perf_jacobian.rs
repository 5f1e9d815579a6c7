//! Performance report, `#[ignore]`d (run in release, alone): the default
//! pipeline's function-and-Jacobian kernel, JIT against the emitted C
//! compiled with `gcc -O3` and called through a function pointer.
//!
//! ```text
//! cargo test --release -p dstar --test perf_jacobian -- --ignored --nocapture
//! ```
//!
//! `ONLY=lyons,matmul_4` limits the report to those problems.

#[allow(dead_code)]
#[path = "../backend/tests/support/mod.rs"]
mod jit;
mod support;

use std::hint::black_box;
use std::time::Duration;

#[test]
#[ignore = "a report: run in release"]
fn jacobian_kernels_against_gcc_o3() {
    let Some(cc) = jit::c_kernel::c_compiler() else { return };
    let compiler = dstar::JitCompiler::new().expect("host supported");
    println!("{:>16} {:>7} {:>10} {:>10} {:>7}", "problem", "ops", "JIT ns", "C ns", "JIT/C");
    let mut worst: f64 = 0.0;
    for path in support::corpus() {
        let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        if std::env::var("ONLY").is_ok_and(|o| !o.split(',').any(|o| o == name)) {
            continue;
        }
        let program = dstar::parse_program(&std::fs::read_to_string(&path).expect("corpus")).expect("parses");
        let jacobian = dstar::differentiate(&program, &dstar::Options::default()).expect("valid").jacobian;
        let (roots, n) = (jacobian.kernel().roots(), program.inputs.len());
        let kernel = compiler.compile(jacobian.kernel()).expect("compiles");
        let source = dstar::emit_c(jacobian.kernel(), "dstar_kernel").expect("a C name");
        let c =
            jit::c_kernel::CKernel::build(&cc, &source, "dstar_kernel", &["-O3", "-std=c99"], n, roots.len());
        let x = program.point.clone().unwrap_or_else(|| vec![0.5; n]);
        let (mut out, mut c_out) = (vec![0.0; roots.len()], vec![0.0; roots.len()]);
        let (jit_ns, c_ns) = jit::paired_ns_per_call(
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
