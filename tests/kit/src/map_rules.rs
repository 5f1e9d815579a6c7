//! Rules for [`frontend::map::decompose`] with low thresholds, so that
//! small programs have maps: the plan's searches (`factor::plan`) at test
//! sizes, shared by the tests of maps and of their emitted loops.

use frontend::map::MapRules;

/// Instances of at least two, outputs split from four terms, nothing
/// computed once, no constants taken out.
pub const RULES: MapRules = MapRules {
    split_terms: 4,
    min_instances: 2,
    copy_uses: 16,
    copy_ops: 16,
    compute_common: false,
    lift_constants: false,
    work: 1 << 24,
};

/// The plan's first search: values 16 operations read computed once
/// (`pre` and `post`).
pub const COMPUTING: MapRules = MapRules { compute_common: true, ..RULES };

/// The plan's second search: every value of at most 64 operations copied
/// into each instance reading it.
pub const COPYING: MapRules = MapRules { copy_uses: 2, copy_ops: 64, ..RULES };

/// The plan's third search: the first with constants taken out of the
/// bodies (data written as numbers).
pub const LIFTING: MapRules = MapRules { lift_constants: true, ..COMPUTING };
