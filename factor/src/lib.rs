//! Exact Jacobians, Hessians and directional derivatives, built by the
//! cheapest accumulation: D* ([`derivative`]) or an elimination
//! ([`eliminate`]), chosen by [`plan`]; then common subchains
//! ([`simplify`]).
//!
//! Which symbolic kernel answers each [`Request`] (values, Jacobian,
//! gradient, Hessian, products, Taylor coefficients), whole or as maps
//! ([`mapped`]), is decided once, beside the plan: [`build`]
//! ([`request`]). The facade compiles what it gives.
//!
//! ```
//! let program = frontend::parse_program("in x, y\nout sin(x*y) + x*x")?;
//! let jacobian = factor::jacobian(program.kernel()?);
//! let (values, dense) = jacobian.eval(&[1.0, 2.0]);
//! assert_eq!(values[0], 2f64.sin() + 1.0);
//! assert_eq!(dense[0], vec![2.0 * 2f64.cos() + 2.0, 2f64.cos()]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod active;
pub mod columns;
pub mod directional;
pub mod hessian;
pub mod higher;
pub mod jacobian;
pub mod ledger;
pub mod mapped;
pub mod method;
pub mod output_hessians;
pub mod plan;
pub mod report;
pub mod request;
pub mod series;
pub mod tensor;

pub use derivative::{forward_mode_ops, reverse_mode_ops, DerivativeGraph, Entry, Orientation, Strategy};
pub use directional::{gradient, hvp, jvp, vjp};
pub use eliminate::{Elimination, Remainder};
pub use hessian::{hessian, hessian_with, lagrangian_hessian, Hessian, HessianMethod, Weights};
pub use jacobian::{
    cheapest_elimination, dstar_jacobian, elimination_jacobian, jacobian, jacobian_with, Jacobian,
};
pub use ledger::{Fallback, Ledger, Stage};
pub use mapped::{mapped_gradient, mapped_hessian, mapped_jacobian, mapped_lagrangian, mapped_values, Maps};
pub use method::Method;
pub use output_hessians::{output_hessians, OutputHessians};
pub use report::{cheapest, dstar_report, strategies, Outcome, StrategyReport};
pub use request::{build, build_lagrangian, build_with, Blocks, Build, Built, Request, Searches, Symbolic};
pub use series::taylor_series;
pub use simplify::{Simplifier, SimplifyReport, StopReason, Tidier, TidyReport};
pub use tensor::{derivative_tensor, DerivativeTensor};
