//! The price of an accumulation: multiplications and additions.

use std::cmp::Ordering;
use std::ops::{Add, AddAssign};

/// Multiplications and additions spent by an elimination. A multiplication
/// by a unit edge (`±1`) is free and not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cost {
    /// Multiplications of two nonunit values.
    pub mults: usize,
    /// Additions (a product merged into an existing edge).
    pub adds: usize,
}

impl Cost {
    /// No work.
    pub const ZERO: Cost = Cost { mults: 0, adds: 0 };

    /// Floating-point operations: multiplications plus additions.
    pub fn total(self) -> usize {
        self.mults + self.adds
    }
}

impl Add for Cost {
    type Output = Cost;
    fn add(self, other: Cost) -> Cost {
        Cost { mults: self.mults + other.mults, adds: self.adds + other.adds }
    }
}

impl AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        *self = *self + other;
    }
}

/// Ordered by total operations, then by multiplications: the objective every
/// optimizer here minimizes, so "optimal" and "cheapest" agree.
impl Ord for Cost {
    fn cmp(&self, other: &Cost) -> Ordering {
        (self.total(), self.mults).cmp(&(other.total(), other.mults))
    }
}

impl PartialOrd for Cost {
    fn partial_cmp(&self, other: &Cost) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
