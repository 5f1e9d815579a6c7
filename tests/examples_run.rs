//! Runs each example's checks: `cargo test` only builds `examples/`, so their
//! `run` functions are included here and called (they assert as they go).

#[allow(dead_code)] // `main` and what only it uses
#[path = "../examples/newton.rs"]
mod newton;

#[allow(dead_code)] // `main` and what only it uses
#[path = "../examples/robot_arm.rs"]
mod robot_arm;

#[allow(dead_code)] // `main` and what only it uses
#[path = "../examples/spherical_harmonics.rs"]
mod spherical_harmonics;

#[test]
fn newton_converges_quadratically_to_the_root() {
    let report = newton::run();
    let last = report.iterates.last().unwrap();
    assert!(last.residual < 1e-12 && last.error < 1e-12, "{last:?}");
    assert!(report.iterates.len() <= 10, "{} iterations", report.iterates.len());
}

#[test]
fn robot_arm_reaches_the_target() {
    let report = robot_arm::run();
    assert!(*report.errors.last().unwrap() < 1e-9, "{:?}", report.errors);
    assert!(report.max_jacobian_difference < 1e-8);
}

#[test]
fn spherical_harmonic_gradients_match_central_differences() {
    let kernels = spherical_harmonics::kernels();
    let report = spherical_harmonics::run(&kernels);
    assert_eq!(report.entries, report.points * 100 * 3);
    assert!(report.max_rel_error < spherical_harmonics::REL, "{report:?}");
}
