//! Products with `k` directions per call. The facade's kernels take a fixed
//! number of directions (their width); here widths are powers of two up to
//! a product's widest, each compiled when first needed, and `k` directions
//! run as calls of the widest width that fits, then narrower ones: `k = 13`
//! with widest 8 is 8 + 4 + 1. So a product has at most six kernels,
//! whatever `k` callers use.
//!
//! A kernel of width `w` evaluates the function and its partials once and
//! then sweeps `w` times, so wide kernels pay for the shared part once; its
//! code, and compile time, grow linearly in `w`. Per direction on
//! cartpole_20 (104 inputs, 89 outputs): `J v` 4.5 us at width 1, 0.76 us
//! at 8, 0.38 us at 32 (the partials dominate); `w J` 3.4, 1.4, 1.3 us and
//! `H v` 5.2, ~3.8, 3.4 us (the sweeps dominate), while compiling `w J` for
//! a 160k-operation function took 0.6 s at width 1, 4 s at 8 and 15 s at 32.
//! Hence [`WIDEST_JVP`] and [`WIDEST_SWEEPS`].

use crate::function::compiled;
use pyo3::prelude::*;
use std::sync::OnceLock;

/// Widest `J v` kernel.
pub(crate) const WIDEST_JVP: usize = 32;
/// Widest `w J` and `H v` kernel.
pub(crate) const WIDEST_SWEEPS: usize = 8;

/// Widths `1, 2, 4, ..., 32`.
const LEVELS: usize = 6;

/// One product's kernels by width (powers of two up to `widest`), each
/// compiled when first used.
pub(crate) struct ByWidth<T> {
    widest: usize,
    kernels: [OnceLock<T>; LEVELS],
}

impl<T> ByWidth<T> {
    /// No kernel compiled yet; none will be wider than `widest`.
    pub(crate) fn new(widest: usize) -> Self {
        assert!(widest.is_power_of_two() && widest < 1 << LEVELS, "widths are powers of two up to 32");
        ByWidth { widest, kernels: std::array::from_fn(|_| OnceLock::new()) }
    }

    /// The runs `(first, width)` covering directions `0..k`, in order: the
    /// widest width that fits the directions left, each time.
    fn runs(&self, k: usize) -> impl Iterator<Item = (usize, usize)> {
        let widest = self.widest;
        let mut first = 0;
        std::iter::from_fn(move || {
            let left = k - first;
            (left > 0).then(|| {
                let width = 1 << left.min(widest).ilog2();
                first += width;
                (first - width, width)
            })
        })
    }
}

/// The kernels for `k` directions, all compiled.
pub(crate) struct Plan<'a, T> {
    k: usize,
    widths: &'a ByWidth<T>,
}

impl<T: Send + Sync> ByWidth<T> {
    /// The kernels covering `k` directions, compiling by `build(width,
    /// options)` the ones not compiled yet (see [`compiled`]).
    pub(crate) fn plan(
        &self,
        py: Python<'_>,
        k: usize,
        options: &dstar::Options,
        build: impl Fn(usize, &dstar::Options) -> Result<T, dstar::Error> + Sync,
    ) -> PyResult<Plan<'_, T>> {
        for (_, width) in self.runs(k) {
            compiled(py, &self.kernels[width.ilog2() as usize], options, |options| build(width, options))?;
        }
        Ok(Plan { k, widths: self })
    }
}

impl<T> Plan<'_, T> {
    /// Calls `eval(kernel, first, width)` for the runs of directions
    /// `first..first + width` covering `0..k`, in order.
    pub(crate) fn for_each(
        &self,
        mut eval: impl FnMut(&T, usize, usize) -> Result<(), dstar::Error>,
    ) -> Result<(), dstar::Error> {
        for (first, width) in self.widths.runs(self.k) {
            let kernel = self.widths.kernels[width.ilog2() as usize].get().expect("compiled by plan");
            eval(kernel, first, width)?;
        }
        Ok(())
    }
}
