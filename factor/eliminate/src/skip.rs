//! Why a strategy was not run on a graph: a size guard or a precondition.

use std::fmt;

/// The reason a strategy was skipped. Not an error: the other strategies
/// still run, and the report lists this one with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Exact vertex elimination is exponential in the intermediates.
    TooManyIntermediates {
        /// Intermediates of the graph.
        count: usize,
        /// The guard.
        limit: usize,
    },
    /// The edge-elimination metagraph grew past its state budget.
    TooManyStates {
        /// The guard.
        limit: usize,
    },
    /// The graph is too large for this heuristic's budget.
    TooManyEdges {
        /// Edges of the graph.
        count: usize,
        /// The guard.
        limit: usize,
    },
    /// The function is too large to build its linearized graph for this.
    TooManyOps {
        /// Operations of the function.
        count: usize,
        /// The guard.
        limit: usize,
    },
    /// The SEU planner's reach sets and ordering constraints grew past their budget.
    TooManyReachEntries {
        /// The guard.
        limit: usize,
    },
    /// Some intermediate has more than one use.
    NotSingleExpressionUse,
    /// The sweeps of this order carry more components (edges times the
    /// inputs or outputs they reach) than the guard: its fill alone would
    /// cost that much work.
    TooManyComponents {
        /// The guard.
        limit: u64,
    },
    /// The strategy's own work (counted in its steps, never in time) went
    /// past its budget for a graph of this size.
    OverBudget {
        /// The budget, in the strategy's steps.
        limit: u64,
    },
}

impl std::error::Error for Skip {}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::TooManyIntermediates { count, limit } => {
                write!(f, "{count} intermediates exceed the limit of {limit}")
            }
            Skip::TooManyStates { limit } => write!(f, "metagraph exceeds {limit} states"),
            Skip::TooManyEdges { count, limit } => write!(f, "{count} edges exceed the limit of {limit}"),
            Skip::TooManyOps { count, limit } => write!(f, "{count} operations exceed the limit of {limit}"),
            Skip::TooManyReachEntries { limit } => write!(f, "SEU reach sets exceed {limit} entries"),
            Skip::NotSingleExpressionUse => write!(f, "not a single-expression-use graph"),
            Skip::TooManyComponents { limit } => write!(f, "its sweeps carry over {limit} components"),
            Skip::OverBudget { limit } => {
                write!(f, "its work exceeds its budget of {limit} steps for this graph")
            }
        }
    }
}
