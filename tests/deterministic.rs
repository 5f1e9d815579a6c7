//! Same input, same kernel: every corpus problem is differentiated twice,
//! the second time with other threads loading the machine, and the two
//! kernels must be identical node for node. Budgets count work, never time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The kernel of `program` by the default pipeline, as comparable text.
fn kernel_text(program: &dstar::Program) -> String {
    let jacobian = dstar::differentiate(program, &dstar::Options::default()).expect("valid").jacobian;
    format!("{:?} {:?}", jacobian.kernel().roots(), jacobian.kernel().dag())
}

#[test]
fn every_corpus_kernel_is_the_same_under_load() {
    for problem in testkit::corpus() {
        let (_, program) = dstar::load_program(&problem.path).expect("corpus parses");
        let quiet = kernel_text(&program);
        let stop = Arc::new(AtomicBool::new(false));
        let load: Vec<_> = (0..3)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        let loaded = kernel_text(&program);
        stop.store(true, Ordering::Relaxed);
        load.into_iter().for_each(|t| t.join().expect("load thread"));
        assert!(quiet == loaded, "{}: the kernel changed under load", problem.name);
    }
}
