//! Inverse kinematics of a planar three-link arm by damped least squares,
//! with the Jacobian of the forward kinematics from the JIT kernel.
//!
//! The pose `(x, y, phi)` of the end effector is a dstar program in the joint
//! angles `q1, q2, q3`. Each step solves `(J Jᵀ + λ² I) w = target - pose(q)`
//! and moves `q += Jᵀ w`, which stays well behaved near singular poses where
//! plain Newton steps blow up.
//!
//! ```text
//! cargo run --release --example robot_arm
//! ```

/// Forward kinematics: links of length 1, 0.8 and 0.5.
pub const FORWARD_KINEMATICS: &str = "\
in q1, q2, q3
a12 = q1 + q2
phi123 = a12 + q3
out x = 1.0*cos(q1) + 0.8*cos(a12) + 0.5*cos(phi123)
out y = 1.0*sin(q1) + 0.8*sin(a12) + 0.5*sin(phi123)
out phi = phi123
";

/// Joint angles whose pose is the target, so the target is reachable.
pub const TARGET_JOINTS: [f64; 3] = [0.9, -1.1, 0.6];

/// Where the arm starts.
pub const START: [f64; 3] = [0.1, 0.2, 0.3];

/// The damping `λ`.
pub const DAMPING: f64 = 0.05;

/// What an inverse-kinematics run did.
#[derive(Clone, Debug)]
pub struct Report {
    /// The target pose `(x, y, phi)`.
    pub target: [f64; 3],
    /// The pose error `|target - pose|_inf` before each step, and at the end.
    pub errors: Vec<f64>,
    /// The final joint angles.
    pub joints: Vec<f64>,
    /// The largest difference between the JIT Jacobian and central differences
    /// of the forward kinematics, over the iterates.
    pub max_jacobian_difference: f64,
}

/// Checks the JIT Jacobian against central differences, then runs damped
/// least squares from [`START`] until the pose is within 1e-12 of the target.
pub fn run() -> Report {
    let program = dstar::parse_program(FORWARD_KINEMATICS).expect("the kinematics parse");
    let function = dstar::Function::new(program.clone(), dstar::Options::default());
    let kernel = function.compile(dstar::Request::Jacobian).expect("and compile");
    let target = pose(&program, &TARGET_JOINTS);

    let mut q = START.to_vec();
    let mut errors = vec![];
    let mut max_jacobian_difference: f64 = 0.0;
    for _ in 0..100 {
        let dense = kernel.eval_dense(dstar::Args::x(&q)).expect("q has 3 values");
        let (p, jacobian) = (&dense[0][0], dense[1].clone());
        let e: Vec<f64> = (0..3).map(|i| target[i] - p[i]).collect();
        errors.push(norm_inf(&e));
        if norm_inf(&e) < 1e-12 {
            break;
        }
        let approx = central_differences(&program, &q);
        for (row, approx_row) in jacobian.iter().zip(&approx) {
            for (j, a) in row.iter().zip(approx_row) {
                max_jacobian_difference = max_jacobian_difference.max((j - a).abs());
            }
        }
        let step = damped_least_squares(&jacobian, &e, DAMPING);
        for (qi, dq) in q.iter_mut().zip(&step) {
            *qi += dq;
        }
    }
    let report = Report { target, errors, joints: q, max_jacobian_difference };
    check(&program, &report);
    report
}

/// The end effector reached the target and the Jacobian agreed with
/// central differences.
fn check(program: &dstar::Program, report: &Report) {
    let reached = pose(program, &report.joints);
    let miss = (0..3).map(|i| (reached[i] - report.target[i]).abs()).fold(0.0, f64::max);
    assert!(miss < 1e-9, "end effector misses the target by {miss:e}");
    assert!(report.errors.len() > 2, "the start is far from the target");
    // Entries are O(1); central differences with h = 1e-6 are good to ~1e-9.
    assert!(
        report.max_jacobian_difference < 1e-8,
        "JIT Jacobian differs from central differences by {:e}",
        report.max_jacobian_difference
    );
}

/// The pose at joint angles `q`, by the reference interpreter.
fn pose(program: &dstar::Program, q: &[f64]) -> [f64; 3] {
    let p = dstar::eval_program(program, q);
    [p[0], p[1], p[2]]
}

/// The Jacobian of [`pose`] by central differences, one row per output.
fn central_differences(program: &dstar::Program, q: &[f64]) -> Vec<Vec<f64>> {
    let h = 1e-6;
    let mut jacobian = vec![vec![0.0; q.len()]; 3];
    for j in 0..q.len() {
        let (mut plus, mut minus) = (q.to_vec(), q.to_vec());
        plus[j] += h;
        minus[j] -= h;
        let (fp, fm) = (pose(program, &plus), pose(program, &minus));
        for i in 0..3 {
            jacobian[i][j] = (fp[i] - fm[i]) / (2.0 * h);
        }
    }
    jacobian
}

/// The damped least-squares step `Jᵀ (J Jᵀ + λ² I)⁻¹ e`.
pub fn damped_least_squares(jacobian: &[Vec<f64>], e: &[f64], damping: f64) -> Vec<f64> {
    let (m, n) = (jacobian.len(), jacobian[0].len());
    let mut a = vec![vec![0.0; m]; m];
    for i in 0..m {
        for k in 0..m {
            a[i][k] = (0..n).map(|j| jacobian[i][j] * jacobian[k][j]).sum();
        }
        a[i][i] += damping * damping;
    }
    let w = solve_spd(a, e.to_vec());
    (0..n).map(|j| (0..m).map(|i| jacobian[i][j] * w[i]).sum()).collect()
}

/// Solves `a x = b` for symmetric positive definite `a` by Cholesky.
fn solve_spd(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    // a = L Lᵀ, L stored in the lower triangle of a.
    for j in 0..n {
        let d = a[j][j] - (0..j).map(|k| a[j][k] * a[j][k]).sum::<f64>();
        assert!(d > 0.0, "J Jᵀ + λ² I is positive definite");
        a[j][j] = d.sqrt();
        for i in j + 1..n {
            a[i][j] = (a[i][j] - (0..j).map(|k| a[i][k] * a[j][k]).sum::<f64>()) / a[j][j];
        }
    }
    for i in 0..n {
        b[i] = (b[i] - (0..i).map(|k| a[i][k] * b[k]).sum::<f64>()) / a[i][i];
    }
    for i in (0..n).rev() {
        b[i] = (b[i] - (i + 1..n).map(|k| a[k][i] * b[k]).sum::<f64>()) / a[i][i];
    }
    b
}

/// The largest absolute value in `v`.
fn norm_inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

fn main() {
    let report = run();
    let [x, y, phi] = report.target;
    println!("target pose: x = {x:.6}, y = {y:.6}, phi = {phi:.6}");
    for (k, e) in report.errors.iter().enumerate() {
        println!("step {k:>2}: |target - pose| = {e:.3e}");
    }
    let q: Vec<String> = report.joints.iter().map(|v| format!("{v:.9}")).collect();
    println!(
        "joint angles: {} (the target was posed at {TARGET_JOINTS:?}; IK may pick the other elbow)",
        q.join(", ")
    );
    println!("JIT Jacobian vs central differences: max difference {:.2e}", report.max_jacobian_difference);
}
