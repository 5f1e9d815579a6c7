//! The one error type of the facade, wrapping each stage's error.

/// Anything that can go wrong between source text and a compiled kernel.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The source text does not parse.
    #[error(transparent)]
    Parse(#[from] frontend::ParseError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// Outputs that read an input the function does not declare.
    #[error(transparent)]
    InvalidKernel(#[from] frontend::InvalidKernel),
    /// Code generation failed.
    #[error(transparent)]
    Codegen(backend::CodegenError),
    /// A compiled kernel disagreed with the interpreter when it checked
    /// itself ([`Options::self_check`](crate::Options::self_check)): a bug
    /// of dstar, reported instead of a wrong number. It names the first
    /// output that differs and both values.
    #[error(transparent)]
    SelfCheck(backend::SelfCheckFailure),
    /// A kernel was called with buffers of the wrong length.
    #[error(transparent)]
    Kernel(backend::KernelError),
    /// A compiled kernel was called with an argument block of the wrong
    /// length: `x`, `p`, `w` or `v`.
    #[error("{message}")]
    Argument {
        /// The block: `"x"`, `"p"`, `"w"` or `"v"`.
        block: &'static str,
        /// What is wrong, and what the kernel takes.
        message: String,
    },
    /// A higher derivative needs more than its budget, or was stopped.
    #[error(transparent)]
    Derivative(#[from] factor::higher::HigherError),
    /// The caller asked to stop ([`Options::stop`](crate::Options::stop)).
    #[error("stopped")]
    Stopped,
    /// A request that does not fit the function (a wrong point length, a
    /// Hessian of a vector function, an unknown variable...).
    #[error("{0}")]
    Usage(String),
}

impl Error {
    /// The message, with the offending source line and a caret for parse
    /// errors.
    pub fn render(&self, source: &str) -> String {
        match self {
            Error::Parse(e) => e.render(source),
            other => format!("{other}\n"),
        }
    }
}

impl From<backend::CodegenError> for Error {
    fn from(error: backend::CodegenError) -> Error {
        match error {
            backend::CodegenError::SelfCheck(failure) => Error::SelfCheck(failure),
            backend::CodegenError::Stopped => Error::Stopped,
            other => Error::Codegen(other),
        }
    }
}

impl From<backend::KernelError> for Error {
    fn from(error: backend::KernelError) -> Error {
        match error {
            backend::KernelError::Stopped => Error::Stopped,
            other => Error::Kernel(other),
        }
    }
}
