//! Errors of compiling a kernel ([`CodegenError`]) and of calling one ([`KernelError`]).

use crate::self_check::SelfCheckFailure;
use cranelift_codegen::settings::SetError;
use cranelift_module::ModuleError;

/// Why a set of outputs could not be compiled.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    /// Cranelift has no back end for the machine this runs on.
    #[error("the host machine is not supported by Cranelift: {0}")]
    UnsupportedHost(String),
    /// A function name for emitted source that is not an identifier of
    /// the target language (or is one of its keywords).
    #[error("'{name}' cannot name a {language} function: {reason}")]
    InvalidName {
        /// The name given.
        name: String,
        /// `C` or `Rust`.
        language: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Input parts that are none, more than [`MAX_PARTS`](crate::MAX_PARTS),
    /// or do not add up to the kernel's inputs.
    #[error("a kernel of {num_inputs} inputs cannot take them as parts of lengths {lengths:?}")]
    InputParts {
        /// The lengths given.
        lengths: Vec<usize>,
        /// The kernel's number of inputs.
        num_inputs: usize,
    },
    /// Output parts (of an emitted header) that do not add up to the
    /// kernel's outputs.
    #[error("a kernel of {num_outputs} outputs cannot write them as parts of lengths {lengths:?}")]
    OutputParts {
        /// The lengths of the parts given.
        lengths: Vec<usize>,
        /// The kernel's number of outputs.
        num_outputs: usize,
    },
    /// Cranelift rejected a setting.
    #[error("cranelift rejected a setting: {0}")]
    Setting(#[from] SetError),
    /// Cranelift failed to compile, link or map a function.
    #[error("cranelift failed: {0}")]
    Module(Box<ModuleError>),
    /// The compiled kernel disagreed with the interpreter at the check point.
    #[error(transparent)]
    SelfCheck(#[from] SelfCheckFailure),
    /// The caller asked to stop ([`JitCompiler::with_stop`](crate::JitCompiler::with_stop)).
    #[error("stopped")]
    Stopped,
}

impl From<ModuleError> for CodegenError {
    fn from(err: ModuleError) -> CodegenError {
        CodegenError::Module(Box::new(err))
    }
}

/// Why a kernel call was refused. A refused call writes nothing, except
/// a stopped batch ([`KernelError::Stopped`]).
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum KernelError {
    /// `x` does not hold one value per input.
    #[error("the kernel takes {expected} inputs, got {found}")]
    InputLength {
        /// `num_inputs()`.
        expected: usize,
        /// `x.len()`.
        found: usize,
    },
    /// Not one input array per part of the kernel.
    #[error("the kernel takes {expected} input arrays, got {found}")]
    PartCount {
        /// Number of parts the kernel was compiled for.
        expected: usize,
        /// Number of arrays given.
        found: usize,
    },
    /// An input array of the wrong length.
    #[error("input array {part} of the kernel holds {expected} values, got {found}")]
    PartLength {
        /// Which array, from 0.
        part: usize,
        /// Its length in the kernel.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// `out` does not hold one slot per output.
    #[error("the kernel writes {expected} outputs, got room for {found}")]
    OutputLength {
        /// `num_outputs()`.
        expected: usize,
        /// `out.len()`.
        found: usize,
    },
    /// The batch buffers are not whole rows of the same number of points.
    #[error(
        "a batch needs {num_inputs} inputs and {num_outputs} outputs per point, \
         got {inputs_len} input and {outputs_len} output values"
    )]
    BatchShape {
        /// `num_inputs()`.
        num_inputs: usize,
        /// `num_outputs()`.
        num_outputs: usize,
        /// `xs.len()`.
        inputs_len: usize,
        /// `outs.len()`.
        outputs_len: usize,
    },
    /// A batch was stopped ([`JitKernel::eval_batch_parts_until`](crate::JitKernel::eval_batch_parts_until)):
    /// the one refusal after which the outputs are partly written.
    #[error("stopped")]
    Stopped,
}
