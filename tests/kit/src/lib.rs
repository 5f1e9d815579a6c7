//! dstar's test kit, a dev-dependency of every crate of the workspace: one
//! random generator ([`Rng`]), one random-program generator ([`generate`]
//! over a [`Shape`], and its preset of [`guards`] that hide singular
//! derivatives), the corpus ([`corpus()`]), the oracles (forward-mode
//! [`dual`] numbers, [`hyper`]-dual numbers for Hessians, nested dual
//! numbers for derivatives of any order ([`jet`]), central
//! [`diff`]erences, the JIT [`parity`] check and emitted C compiled by the
//! system compiler, [`native`]), tolerances ([`close`] with a [`Tol`]) and the
//! golden-file check ([`check_golden`]).
//!
//! It depends on `frontend` alone (the IR every stage shares), so no crate
//! of the pipeline sees another through its tests; `tests/README.md` says
//! where a new test goes.
//!
//! ```
//! use testkit::{check::compare, generate, Rng, Shape, Verdict};
//! let mut rng = Rng::new(7);
//! let case = generate(&mut rng, &Shape::calculus(2, 1, 6, 0.5));
//! // Central differences of the function itself stand in for a Jacobian
//! // under test here; a test would pass the library's.
//! let f = |x: &[f64]| frontend::eval(&case.dag, &case.outputs, x);
//! let jacobian = testkit::central_jacobian(&f, &case.point);
//! let values = f(&case.point);
//! let verdict = compare(&case.dag, &case.outputs, &case.point, &values, &jacobian);
//! assert!(!matches!(verdict, Verdict::NonFinite(_)));
//! ```

pub mod check;
pub mod command;
pub mod corpus;
pub mod diff;
pub mod dual;
pub mod functions;
pub mod gen;
pub mod golden;
pub mod guards;
pub mod harmonics;
pub mod hyper;
pub mod jet;
pub mod map_rules;
pub mod native;
pub mod parity;
pub mod rng;
pub mod scratch;
pub mod shapes;
pub mod structured;
pub mod timing;
pub mod tol;
pub mod zoo;

pub use check::{compare, Verdict};
pub use corpus::{
    as_f64, as_matrix, as_vec, corpus, corpus_dir, corpus_file, nlp, point_of, Problem, Reference,
};
pub use diff::{central_difference, central_hessian, central_jacobian, second_difference, step};
pub use dual::{eval_dual, Dual, DualEval};
pub use gen::{
    chain_sums, generate, random_algebra, random_elimination, scaling_program, seu_forest, with_seed, Case,
    Domain, Mix, Shape,
};
pub use golden::{check_golden, check_golden_bytes};
pub use harmonics::spherical_harmonics;
pub use hyper::{eval_hyper, hessian_oracle, HyperDual, HyperEval};
pub use jet::{eval_jets, Jet};
pub use parity::assert_nodewise_parity;
pub use rng::Rng;
pub use scratch::{scratch, Scratch};
pub use structured::gen_py;
pub use tol::{all_close, close, rows_close, same, same_bits, ulps, well_conditioned, Tol};

/// Whether this is a long run: `DSTAR_LONG` set to anything but `0`
/// (`DSTAR_LONG=1 cargo test --release`).
pub fn long_run() -> bool {
    std::env::var_os("DSTAR_LONG").is_some_and(|v| !v.is_empty() && v != "0")
}

/// How many random cases to try: `short` always, `long` in a long run.
pub fn cases(short: usize, long: usize) -> usize {
    if long_run() {
        long
    } else {
        short
    }
}
