//! The argument blocks of an emitted kernel: its input is `x`, `p`, `w`
//! and `v` one after another ([`ARG_BLOCKS`]), each its own pointer, so
//! that the C and Rust emitters write the calling convention of the
//! compiled kernels.

use crate::error::CodegenError;
use frontend::ARG_BLOCKS;

/// The blocks of a kernel of `num_inputs` inputs with block `lengths`
/// (`x` first, at most four), and where each input is.
pub(crate) struct Blocks {
    /// `(name, length)` of the blocks the signature lists: `x`, and every
    /// other one that is not empty.
    pub(crate) listed: Vec<(&'static str, usize)>,
    /// Per input, `(block name, index in it)`.
    pub(crate) of_input: Vec<(&'static str, usize)>,
}

impl Blocks {
    /// Checks that `lengths` cover `num_inputs`.
    pub(crate) fn new(lengths: &[usize], num_inputs: usize) -> Result<Blocks, CodegenError> {
        if lengths.is_empty()
            || lengths.len() > ARG_BLOCKS.len()
            || lengths.iter().sum::<usize>() != num_inputs
        {
            return Err(CodegenError::InputParts { lengths: lengths.to_vec(), num_inputs });
        }
        let mut of_input = Vec::with_capacity(num_inputs);
        let mut listed = Vec::new();
        for (b, &len) in lengths.iter().enumerate() {
            if b == 0 || len > 0 {
                listed.push((ARG_BLOCKS[b].name, len));
            }
            of_input.extend((0..len).map(|i| (ARG_BLOCKS[b].name, i)));
        }
        Ok(Blocks { listed, of_input })
    }

    /// `x = n values, p = q values, ...`, for a comment.
    pub(crate) fn described(&self) -> String {
        let parts: Vec<String> = self.listed.iter().map(|(name, len)| format!("{name}: {len}")).collect();
        parts.join(", ")
    }
}
