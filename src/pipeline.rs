//! The default derivative pipeline: the cheapest Jacobian accumulation (D*
//! unless an elimination strategy needs fewer ops), then common subchains
//! (`simplify`) within a work budget proportional to the kernel.

use crate::Error;
use backend::JitCompiler;
use factor::Jacobian;
use factor::SimplifyReport;
use frontend::{Program, Stop};
use std::time::{Duration, Instant};

/// How [`crate::compile`] and the command line build a Jacobian.
#[derive(Clone, Debug)]
pub struct Options {
    /// Extract common subchains after accumulation (on by default).
    pub simplify: bool,
    /// Every compiled kernel checks itself against the interpreter before
    /// it is returned, at a fixed point, bit for bit (on by default;
    /// [`JitCompiler::with_self_check`]): a disagreement is
    /// [`Error::SelfCheck`], never a wrong number.
    pub self_check: bool,
    /// A request to stop, asked between the stages and between batches of
    /// compiled chunks ([`JitCompiler::with_stop`]): then the result is
    /// [`Error::Stopped`]. [`Stop::never`] by default.
    pub stop: Stop,
    /// A large, dense Lagrangian Hessian by columns of `H·V` where the plan
    /// takes them ([`factor::columns`]; on by default): set-up linear in
    /// the function, not in the Hessian's nonzeros. Off, its straight-line
    /// kernel: far slower to build (single shooting over 1,000 steps: 3.0 s
    /// against 0.12 s, and 300 MB against 55 MB), and up to 6 times faster
    /// to evaluate while its code fits the processor's caches (over 724
    /// steps: 0.5 ms against 3.3 ms; over 1,000 steps both 6-7 ms).
    pub hessian_columns: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { simplify: true, self_check: true, stop: Stop::never(), hessian_columns: true }
    }
}

impl Options {
    /// [`Error::Stopped`] if the caller asked to stop.
    pub(crate) fn check_stop(&self) -> Result<(), Error> {
        if self.stop.requested() {
            return Err(Error::Stopped);
        }
        Ok(())
    }

    /// The compiler these options ask for.
    ///
    /// # Errors
    /// [`Error::Codegen`] if Cranelift cannot target this machine.
    pub fn compiler(&self) -> Result<JitCompiler, Error> {
        Ok(JitCompiler::new()?.with_self_check(self.self_check).with_stop(self.stop.clone()))
    }
}

/// A Jacobian and what building it took.
#[derive(Debug)]
pub struct Differentiated {
    /// The Jacobian, in the same DAG as the function.
    pub jacobian: Jacobian,
    /// Operations of function and Jacobian before simplification.
    pub ops_before_simplify: usize,
    /// What simplification did, if it ran.
    pub simplify: Option<SimplifyReport>,
    /// Time spent differentiating, simplification included.
    pub elapsed: Duration,
}

/// Differentiates `program` the default way.
///
/// # Errors
/// [`Error::InvalidKernel`] for a hand-built program whose outputs read an
/// input it does not declare.
pub fn differentiate(program: &Program, options: &Options) -> Result<Differentiated, Error> {
    Ok(differentiate_alongside(program, options, |_| ())?.0)
}

/// [`differentiate`], running `alongside` on the Jacobian before
/// simplification while simplification runs ([`Jacobian::simplify_alongside`]).
pub(crate) fn differentiate_alongside<R: Send>(
    program: &Program,
    options: &Options,
    alongside: impl FnOnce(&Jacobian) -> R + Send,
) -> Result<(Differentiated, R), Error> {
    let start = Instant::now();
    options.check_stop()?;
    let mut jacobian = factor::jacobian(program.kernel()?);
    options.check_stop()?;
    let ops_before_simplify = jacobian.jacobian_ops();
    let (simplify, along) = if options.simplify {
        let (report, along) = jacobian.simplify_alongside(&factor::plan::simplifier(), alongside);
        (Some(report), along)
    } else {
        (None, alongside(&jacobian))
    };
    let differentiated = Differentiated { jacobian, ops_before_simplify, simplify, elapsed: start.elapsed() };
    Ok((differentiated, along))
}
