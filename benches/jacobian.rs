//! The whole pipeline on the corpus: symbolic D* time, Jacobian kernel
//! compile time, and the call of function-and-Jacobian kernels.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

fn corpus() -> Vec<(String, dstar::Program)> {
    testkit::corpus().into_iter().map(|p| (p.name, p.program)).collect()
}

fn pipeline(c: &mut Criterion) {
    let compiler = dstar::JitCompiler::new().expect("host supported");
    let mut symbolic = c.benchmark_group("symbolic");
    symbolic.sample_size(10);
    for (name, program) in corpus() {
        symbolic.bench_with_input(BenchmarkId::from_parameter(&name), &program, |b, p| {
            b.iter(|| factor::jacobian(p.kernel().unwrap()))
        });
    }
    symbolic.finish();
    let mut compile = c.benchmark_group("compile_jacobian");
    compile.sample_size(10);
    for (name, program) in corpus() {
        let jacobian = factor::jacobian(program.kernel().unwrap());
        compile.bench_with_input(BenchmarkId::from_parameter(&name), &jacobian, |b, j| {
            b.iter(|| compiler.compile(j.kernel()).expect("compiles"))
        });
    }
    compile.finish();
    let mut call = c.benchmark_group("call_jacobian");
    for (name, program) in corpus() {
        let jacobian = factor::jacobian(program.kernel().unwrap());
        let kernel = compiler.compile(jacobian.kernel()).expect("compiles");
        let x = program.point.clone().unwrap_or_else(|| vec![0.5; program.inputs.len()]);
        let mut out = vec![0.0; kernel.num_outputs()];
        call.bench_function(BenchmarkId::from_parameter(&name), |b| {
            b.iter(|| kernel.eval(std::hint::black_box(&x), &mut out).expect("lengths"))
        });
    }
    call.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
