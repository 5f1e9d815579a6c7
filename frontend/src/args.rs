//! The argument blocks every compiled kernel takes, in call order: the one
//! table of their names, which the kernels' calling convention, the C and
//! Rust signatures the back end emits and the messages about arguments read.

/// An argument block: its name (in signatures and messages, and the field
/// of the facade's `Args`) and what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgBlock {
    /// `x`, `p`, `w` or `v`.
    pub name: &'static str,
    /// What its values are, for messages: `"inputs"`, ...
    pub holds: &'static str,
}

/// The blocks in call order: inputs, parameters, weights, directions.
///
/// ```
/// let names: Vec<&str> = frontend::ARG_BLOCKS.iter().map(|b| b.name).collect();
/// assert_eq!(names, ["x", "p", "w", "v"]);
/// ```
pub const ARG_BLOCKS: [ArgBlock; 4] = [
    ArgBlock { name: "x", holds: "inputs" },
    ArgBlock { name: "p", holds: "parameters" },
    ArgBlock { name: "w", holds: "weights" },
    ArgBlock { name: "v", holds: "direction values" },
];
