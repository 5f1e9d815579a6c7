//! Parsing plus DAG construction must be linear: 1e4, 1e5 and 1e6 statements.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// A straight-line program of `n` statements mixing every kind of operator,
/// with long-range reuse of intermediates.
pub fn program(n: usize) -> String {
    let mut s = String::with_capacity(n * 40);
    s.push_str("in x, y, z\nt0 = x*y + z\nt1 = sin(x) - y\nt2 = exp(z)/2\n");
    for i in 3..n {
        let (a, b, c) = (i - 1, i - 2, i / 2);
        let line = match i % 5 {
            0 => format!("t{i} = t{a}*t{b} + sin(t{c})\n"),
            1 => format!("t{i} = (t{a} - t{c})/(1 + t{b}^2)\n"),
            2 => format!("t{i} = -t{a} + x*{}.5\n", i % 7),
            3 => format!("t{i} = sqrt(t{b}*t{b} + y) - cos(t{a})\n"),
            _ => format!("t{i} = ifelse(t{a} < t{c}, t{b}, z*t{a})\n"),
        };
        s.push_str(&line);
    }
    s.push_str(&format!("out t{}\n", n - 1));
    s
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    group.sample_size(10);
    for n in [10_000, 100_000, 1_000_000] {
        let src = program(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &src, |b, src| {
            b.iter(|| frontend::parse_program(src).expect("generated programs parse"))
        });
    }
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
