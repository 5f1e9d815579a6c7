//! What the C and Rust emitters write: a kernel written out, or a map
//! kernel as loops.

use frontend::map::MapKernel;
use frontend::Kernel;

/// A kernel to emit as source ([`emit_c`](crate::emit_c()),
/// [`emit_rust`](crate::emit_rust()), [`emit_c_header`](crate::emit_c_header())):
/// either kind comes in as a reference, `&Kernel` or `&MapKernel`, and the
/// emitted function has the same signature for both.
#[derive(Clone, Copy, Debug)]
pub enum SourceKernel<'a> {
    /// Every operation written out, each function of the program once.
    Whole(&'a Kernel),
    /// Each map's body written once and run in a `for` loop over its
    /// instances (`frontend::map`).
    Mapped(&'a MapKernel),
}

impl SourceKernel<'_> {
    /// Length of the input.
    pub fn num_inputs(self) -> usize {
        match self {
            SourceKernel::Whole(kernel) => kernel.num_inputs(),
            SourceKernel::Mapped(kernel) => kernel.num_inputs(),
        }
    }

    /// Length of the output.
    pub fn num_outputs(self) -> usize {
        match self {
            SourceKernel::Whole(kernel) => kernel.num_outputs(),
            SourceKernel::Mapped(kernel) => kernel.num_outputs,
        }
    }
}

impl<'a> From<&'a Kernel> for SourceKernel<'a> {
    fn from(kernel: &'a Kernel) -> Self {
        SourceKernel::Whole(kernel)
    }
}

impl<'a> From<&'a MapKernel> for SourceKernel<'a> {
    fn from(kernel: &'a MapKernel) -> Self {
        SourceKernel::Mapped(kernel)
    }
}
