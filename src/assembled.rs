//! A compiled kernel whose input is several arrays given separately (the
//! point, weights, directions): they are copied, one after another, into a
//! per-thread buffer, so a call allocates nothing after a thread's first.

use crate::Error;
use backend::{JitKernel, KernelError};
use std::cell::RefCell;

thread_local! {
    /// The concatenated input of the current call, grown once per thread.
    static INPUT: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// A [`JitKernel`] over the concatenation of input arrays of fixed lengths.
#[derive(Debug)]
pub(crate) struct Assembled {
    jit: JitKernel,
    lengths: Vec<usize>,
}

impl Assembled {
    /// `jit`, whose input is arrays of `lengths`, in order.
    pub(crate) fn new(jit: JitKernel, lengths: Vec<usize>) -> Assembled {
        debug_assert_eq!(lengths.iter().sum::<usize>(), jit.num_inputs());
        Assembled { jit, lengths }
    }

    /// Number of outputs.
    pub(crate) fn out_len(&self) -> usize {
        self.jit.num_outputs()
    }

    /// Evaluates with the input arrays `parts` (one per length) into `out`.
    pub(crate) fn eval(&self, parts: &[&[f64]], out: &mut [f64]) -> Result<(), Error> {
        for (part, &len) in parts.iter().zip(&self.lengths) {
            if part.len() != len {
                return Err(KernelError::InputLength { expected: len, found: part.len() }.into());
            }
        }
        assert_eq!(parts.len(), self.lengths.len(), "one slice per input array");
        if let [only] = parts {
            return Ok(self.jit.eval(only, out)?);
        }
        INPUT.with(|input| {
            let mut input = input.borrow_mut();
            input.clear();
            parts.iter().for_each(|p| input.extend_from_slice(p));
            Ok(self.jit.eval(&input, out)?)
        })
    }
}
