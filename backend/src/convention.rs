//! The calling convention of compiled chunks, in one place: how a kernel's
//! input is cut into parts, the Cranelift signatures the compiler declares,
//! the Rust function types the kernels call them through, and which
//! parameter is which.
//!
//! A kernel's input comes as up to [`MAX_PARTS`] arrays (the argument
//! blocks `x`, `p`, `w`, `v`), each by its own pointer, so that callers
//! with the arrays apart need not copy them into one buffer per call.
//!
//! - One point: `(x0, x1, x2, x3, out, scratch)`: six pointers, the six
//!   integer argument registers of the System V ABI.
//! - Two points, one per lane of `f64x2`: `(x0, x1, out0, out1, scratch)`,
//!   then the other input parts of the two points, `(x0_1, x1_1, x0_2,
//!   x1_2, x0_3, x1_3)`: eleven pointers, of which a kernel of one input
//!   array uses the first five, all in registers. The scratch holds two
//!   values per slot, point 0's first.
//!
//! - A map's body with its loop ([`crate::looped`]): `(input, out, sums,
//!   tables, start, end)`: the input in one array, where the outputs and
//!   the sums are added, the addresses of the tables, and the instances.
//!
//! Parts a kernel does not have are passed as null and never read; the
//! scratch is null for a kernel of one chunk that hands nothing on.

use crate::module::{finalized, OwnedModule};
use cranelift_codegen::ir::{AbiParam, Signature, Value};
use cranelift_module::{FuncId, Module};

/// Most input arrays a kernel takes, one per argument block
/// ([`frontend::ARG_BLOCKS`]): with the output and the scratch, the
/// pointers fill the six integer argument registers of the System V ABI.
pub const MAX_PARTS: usize = frontend::ARG_BLOCKS.len();

/// A point's input parts: one pointer per part, null past the kernel's parts.
pub(crate) type Parts = [*const f64; MAX_PARTS];

/// A one-point chunk as the JIT emitted it: `(x0, x1, x2, x3, out, scratch)`.
pub(crate) type OnePointFn =
    unsafe extern "C" fn(*const f64, *const f64, *const f64, *const f64, *mut f64, *mut f64);

/// A two-point chunk: `(x0, x1, out0, out1, scratch)`, then the other input
/// parts of the two points, `(x0_1, x1_1, x0_2, x1_2, x0_3, x1_3)`.
pub(crate) type TwoPointsFn = unsafe extern "C" fn(
    *const f64,
    *const f64,
    *mut f64,
    *mut f64,
    *mut f64,
    *const f64,
    *const f64,
    *const f64,
    *const f64,
    *const f64,
    *const f64,
);

/// A map's body with its loop: `(input, out, sums, tables, start, end)`.
pub(crate) type LoopedFn = unsafe extern "C" fn(*const f64, *mut f64, *mut f64, *const u64, usize, usize);

/// The signature of [`OnePointFn`]: [`MAX_PARTS`] + 2 pointers, no result.
pub(crate) fn one_point_signature<M: Module>(module: &M) -> Signature {
    pointers(module, MAX_PARTS + 2)
}

/// The signature of [`TwoPointsFn`]: 3 + 2 × [`MAX_PARTS`] pointers, no result.
pub(crate) fn two_points_signature<M: Module>(module: &M) -> Signature {
    pointers(module, 3 + 2 * MAX_PARTS)
}

/// The signature of [`LoopedFn`]: six pointer-sized parameters, no result.
pub(crate) fn looped_signature<M: Module>(module: &M) -> Signature {
    pointers(module, 6)
}

/// `count` pointer parameters and no result, in the default convention.
fn pointers<M: Module>(module: &M, count: usize) -> Signature {
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.extend(std::iter::repeat_n(AbiParam::new(ptr), count));
    sig
}

/// The parameters of a one-point chunk, by role.
pub(crate) struct OnePointParams {
    /// The input's parts.
    pub(crate) x: [Value; MAX_PARTS],
    pub(crate) out: Value,
    pub(crate) scratch: Value,
}

impl OnePointParams {
    /// The roles of `params`, a chunk of [`one_point_signature`]'s.
    pub(crate) fn new(params: &[Value]) -> OnePointParams {
        OnePointParams {
            x: std::array::from_fn(|p| params[p]),
            out: params[MAX_PARTS],
            scratch: params[MAX_PARTS + 1],
        }
    }
}

/// The parameters of a two-point chunk, by role.
pub(crate) struct TwoPointsParams {
    /// Each point's input parts.
    pub(crate) x: [[Value; MAX_PARTS]; 2],
    pub(crate) out: [Value; 2],
    pub(crate) scratch: Value,
}

impl TwoPointsParams {
    /// The roles of `params`, a chunk of [`two_points_signature`]'s.
    pub(crate) fn new(params: &[Value]) -> TwoPointsParams {
        let x = [0, 1].map(|point| {
            std::array::from_fn(|part| if part == 0 { params[point] } else { params[3 + 2 * part + point] })
        });
        TwoPointsParams { x, out: [params[2], params[3]], scratch: params[4] }
    }
}

/// The parameters of a map's body with its loop, by role.
pub(crate) struct LoopedParams {
    pub(crate) input: Value,
    pub(crate) out: Value,
    pub(crate) sums: Value,
    pub(crate) tables: Value,
    pub(crate) start: Value,
    pub(crate) end: Value,
}

impl LoopedParams {
    /// The roles of `params`, a function of [`looped_signature`]'s.
    pub(crate) fn new(params: &[Value]) -> LoopedParams {
        let [input, out, sums, tables, start, end] = params[..] else {
            panic!("a looped body takes six parameters")
        };
        LoopedParams { input, out, sums, tables, start, end }
    }
}

/// The arguments of a call of a map's body with its loop.
pub(crate) struct LoopedArgs {
    pub(crate) input: *const f64,
    pub(crate) out: *mut f64,
    pub(crate) sums: *mut f64,
    pub(crate) tables: *const u64,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The one-point `chunks` of `code`, finalized. Panics if one is not a
/// function of [`one_point_signature`]: the calls rely on it.
pub(crate) fn one_point_chunks(code: &mut OwnedModule, chunks: &[FuncId]) -> Vec<OnePointFn> {
    let module = code.module_mut();
    let signature = one_point_signature(module);
    finalized(module, chunks, &signature)
        .into_iter()
        // SAFETY: `ptr` is the entry of a finalized function of `module` whose
        // signature (checked by `finalized`) is six pointer parameters and no
        // result in the platform's default calling convention, i.e. `OnePointFn`.
        .map(|ptr| unsafe { std::mem::transmute::<*const u8, OnePointFn>(ptr) })
        .collect()
}

/// The two-point `chunks` of `code`, finalized. Panics if one is not a
/// function of [`two_points_signature`]: the calls rely on it.
pub(crate) fn two_points_chunks(code: &mut OwnedModule, chunks: &[FuncId]) -> Vec<TwoPointsFn> {
    let module = code.module_mut();
    let signature = two_points_signature(module);
    finalized(module, chunks, &signature)
        .into_iter()
        // SAFETY: `ptr` is the entry of a finalized function of `module` whose
        // signature (checked by `finalized`) is eleven pointer parameters and no
        // result in the platform's default calling convention, i.e. `TwoPointsFn`.
        .map(|ptr| unsafe { std::mem::transmute::<*const u8, TwoPointsFn>(ptr) })
        .collect()
}

/// The looped body `chunk` of `code`, finalized. Panics if it is not a
/// function of [`looped_signature`]: the calls rely on it.
pub(crate) fn looped_chunk(code: &mut OwnedModule, chunk: FuncId) -> LoopedFn {
    let module = code.module_mut();
    let signature = looped_signature(module);
    let [ptr] = finalized(module, &[chunk], &signature)[..] else { unreachable!("one chunk asked") };
    // SAFETY: `ptr` is the entry of a finalized function of `module` whose
    // signature (checked by `finalized`) is six pointer-sized parameters and
    // no result in the platform's default calling convention, i.e. `LoopedFn`.
    unsafe { std::mem::transmute::<*const u8, LoopedFn>(ptr) }
}

/// Calls a map's body with its loop.
///
/// # Safety
/// The loop reads `input` and the tables and adds into `out` and `sums`
/// at the entries of instances `start..end`: each must be valid there, the
/// tables at their addresses in `tables`, and the code alive.
#[inline]
pub(crate) unsafe fn call_looped(function: LoopedFn, args: LoopedArgs) {
    let LoopedArgs { input, out, sums, tables, start, end } = args;
    // SAFETY: as the caller promised.
    unsafe { function(input, out, sums, tables, start, end) }
}

/// Calls a one-point chunk on point `x` into `out`.
///
/// # Safety
/// `x[p]` points at part `p`'s values for every part the chunk's kernel
/// has, `out` at its `num_outputs` values, `scratch` at its `scratch_len`
/// values (this thread's alone, or null if that is 0), and the chunk's code
/// is alive.
#[inline]
pub(crate) unsafe fn call_one_point(chunk: OnePointFn, x: Parts, out: *mut f64, scratch: *mut f64) {
    let [x0, x1, x2, x3] = x;
    // SAFETY: as the caller promised.
    unsafe { chunk(x0, x1, x2, x3, out, scratch) }
}

/// Calls a two-point chunk on the points `x0` and `x1` into `out0` and `out1`.
///
/// # Safety
/// As [`call_one_point`], for each point and its output; the scratch holds
/// the chunk's `scratch_len` values (two per slot).
#[inline]
pub(crate) unsafe fn call_two_points(
    chunk: TwoPointsFn,
    x0: Parts,
    x1: Parts,
    out: [*mut f64; 2],
    scratch: *mut f64,
) {
    // SAFETY: as the caller promised.
    unsafe { chunk(x0[0], x1[0], out[0], out[1], scratch, x0[1], x1[1], x0[2], x1[2], x0[3], x1[3]) }
}

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

    /// The parts of the concatenated input `x`, null past the kernel's.
    pub(crate) fn split(&self, x: &[f64]) -> Parts {
        std::array::from_fn(|p| match self.lengths.get(p) {
            Some(_) => x[self.start(p)..].as_ptr(),
            None => std::ptr::null(),
        })
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
