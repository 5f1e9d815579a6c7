//! Compile and call times of the JIT on the corpus, the call next to the
//! emitted C compiled with `cc -O3` and called through a function pointer.
//!
//! ```text
//! cargo bench -p dstar-backend --bench kernel -- call/
//! ```

#![allow(missing_docs)] // criterion_main! generates an undocumented main

use backend::{emit_c, JitCompiler};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::time::Duration;
use testkit::native::{c_compiler, CKernel};

fn compile(c: &mut Criterion) {
    let compiler = JitCompiler::new().unwrap();
    let mut group = c.benchmark_group("compile");
    group.sample_size(10).measurement_time(Duration::from_secs(1)).warm_up_time(Duration::from_millis(200));
    for problem in testkit::corpus() {
        let (name, program) = (problem.name, problem.program);
        let outputs = program.output_nodes();
        let n = program.inputs.len();
        group.bench_function(&name, |b| {
            b.iter(|| {
                compiler
                    .compile(&frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), n).unwrap())
                    .unwrap()
            })
        });
    }
    group.finish();
}

fn call(c: &mut Criterion) {
    let compiler = JitCompiler::new().unwrap();
    let cc = c_compiler();
    let mut group = c.benchmark_group("call");
    group.measurement_time(Duration::from_secs(1)).warm_up_time(Duration::from_millis(200));
    let tiny =
        frontend::parse_program("in x, y, z\na = x*y + z\nb = a*a - x/z\nout sqrt(abs(b)) + min(a, y)*0.5")
            .unwrap();
    let kernel =
        compiler.compile(&frontend::Kernel::new(tiny.dag.clone(), tiny.output_nodes(), 3).unwrap()).unwrap();
    let mut out = [0.0];
    group.bench_function("tiny/jit", |b| {
        b.iter(|| kernel.eval(black_box(&[0.3, 1.2, -0.7]), &mut out).unwrap())
    });
    for problem in testkit::corpus() {
        let (name, program) = (problem.name, problem.program);
        let outputs = program.output_nodes();
        let n = program.inputs.len();
        let x = testkit::point_of(&program);
        let mut out = vec![0.0; outputs.len()];
        let jit = compiler
            .compile(&frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), n).unwrap())
            .unwrap();
        group
            .bench_function(format!("{name}/jit"), |b| b.iter(|| jit.eval(black_box(&x), &mut out).unwrap()));
        if let Some(cc) = &cc {
            let source = emit_c(
                &frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), n).unwrap(),
                "dstar_kernel",
                &[n],
            )
            .unwrap();
            let c = CKernel::build(cc, &source, "dstar_kernel", &["-O3", "-std=c99"], n, outputs.len());
            group.bench_function(format!("{name}/c"), |b| b.iter(|| c.eval(black_box(&x), &mut out)));
        }
    }
    group.finish();
}

criterion_group!(benches, compile, call);
criterion_main!(benches);
