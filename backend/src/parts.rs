//! A kernel's input as up to [`MAX_PARTS`] arrays passed by separate
//! pointers (the point, the weights, the directions), so that callers with
//! the arrays apart need not copy them into one buffer per call.

/// Most input arrays a kernel takes: with the output and the scratch, the
/// pointers fill the six integer argument registers of the System V ABI.
pub const MAX_PARTS: usize = 4;

/// Lengths of a kernel's input arrays; input `k` of the kernel is element
/// `k - start(p)` of the part `p` whose range holds `k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InputParts {
    lengths: Vec<usize>,
    starts: Vec<usize>,
}

impl InputParts {
    /// Parts of `lengths`; the caller checks `1 <= lengths.len() <= MAX_PARTS`.
    pub(crate) fn new(lengths: &[usize]) -> InputParts {
        debug_assert!((1..=MAX_PARTS).contains(&lengths.len()));
        let starts = lengths
            .iter()
            .scan(0, |start, &len| {
                let here = *start;
                *start += len;
                Some(here)
            })
            .collect();
        InputParts { lengths: lengths.to_vec(), starts }
    }

    /// The lengths, one per part.
    pub(crate) fn lengths(&self) -> &[usize] {
        &self.lengths
    }

    /// `(part, index within it)` of input `k`.
    pub(crate) fn locate(&self, k: usize) -> (usize, usize) {
        // The last part starting at or before k: empty parts share their start with the next.
        let p = self.starts.partition_point(|&s| s <= k) - 1;
        debug_assert!(k < self.starts[p] + self.lengths[p], "input {k} is in range");
        (p, k - self.starts[p])
    }

    /// Where part `p` starts in the concatenated input.
    pub(crate) fn start(&self, p: usize) -> usize {
        self.starts[p]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_found_in_their_part_past_empty_ones() {
        let parts = InputParts::new(&[2, 0, 3]);
        let found: Vec<_> = (0..5).map(|k| parts.locate(k)).collect();
        assert_eq!(found, [(0, 0), (0, 1), (2, 0), (2, 1), (2, 2)]);
        assert_eq!((parts.start(1), parts.start(2)), (2, 2));
        let leading_empty = InputParts::new(&[0, 1]);
        assert_eq!(leading_empty.locate(0), (1, 0));
    }
}
