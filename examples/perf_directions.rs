//! A report: J·V for 16 directions through the compiled scarcity remainder
//! against the compiled Jacobian followed by a sparse product, on the
//! corpus. Run it in release, alone:
//!
//! ```text
//! cargo run --release -p dstar --example perf_directions
//! ```

use dstar::timing::median_ns;
use dstar::{Args, Function, Options, Request};
use std::hint::black_box;

fn main() {
    let k = 16;
    println!(
        "{:>14} {:>9} {:>9} {:>12} {:>12} {:>7}",
        "problem", "nonunit", "nnz", "J·V ns", "J then ns", "ratio"
    );
    for problem in testkit::corpus() {
        let (_, program) = dstar::load_program(&problem.path).expect("corpus parses");
        let n = program.inputs.len();
        let function = Function::new(program.clone(), Options::default());
        let directions = function.compile(Request::Jvp(k)).expect("compiles");
        let jacobian = function.compile(Request::Jacobian).expect("compiles");
        let remainder = dstar::factor::plan::directions_remainder(&program.kernel().expect("a kernel"));
        let input: Vec<f64> = (0..n * (1 + k)).map(|j| 0.3 + 0.1 * (j as f64 * 1.7).sin()).collect();
        let (x, v) = input.split_at(n);
        let mut out = vec![0.0; directions.out_len()];
        let through_remainder =
            median_ns(|| directions.eval(black_box(Args::x(x).v(v)), &mut out).expect("lengths"));
        let pattern = jacobian.pattern().expect("a Jacobian's pattern").clone();
        let m = pattern.num_rows();
        let mut buffer = vec![0.0; jacobian.out_len()];
        let mut products = vec![0.0; k * m];
        let through_jacobian = median_ns(|| {
            jacobian.eval(black_box(Args::x(x)), &mut buffer).expect("lengths");
            let entries = &buffer[m..];
            for d in 0..k {
                let v = &input[n + d * n..n + (d + 1) * n];
                for i in 0..m {
                    let row = pattern.row_offsets[i]..pattern.row_offsets[i + 1];
                    products[d * m + i] = row.map(|e| entries[e] * v[pattern.cols[e]]).sum();
                }
            }
            black_box(&products);
        });
        let name = problem.name;
        println!(
            "{name:>14} {:>9} {:>9} {through_remainder:>12.0} {through_jacobian:>12.0} {:>7.2}",
            remainder.nonunit_edges(),
            pattern.nnz(),
            through_remainder / through_jacobian
        );
    }
}
