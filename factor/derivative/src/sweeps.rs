//! How many nonzero components forward and reverse sweeps carry over a
//! graph: the estimate by which D* picks its orientations and the default
//! Jacobian skips vertex orders not worth planning.

/// Forward mode carries, along each edge, one component per input reaching
/// its tail; reverse mode one per output its head reaches. Counted with
/// 64-bit masks (input and output indices taken mod 64, so an estimate past
/// 64 of them), in one pass over the edges each way.
///
/// `sources` and `sinks` are `(node, input or output index)`; `edges` are
/// `(tail, head)` node indices below `size`, sorted by head, with every
/// tail below its head. So a tail's mask is complete before it flows up,
/// and a head's before it flows down, walking backwards.
pub fn sweep_components<E>(
    size: usize,
    sources: impl IntoIterator<Item = (usize, usize)>,
    sinks: impl IntoIterator<Item = (usize, usize)>,
    edges: E,
) -> (u64, u64)
where
    E: DoubleEndedIterator<Item = (usize, usize)> + Clone,
{
    let mut inputs = vec![0u64; size];
    for (node, k) in sources {
        inputs[node] |= 1 << (k % 64);
    }
    let mut outputs = vec![0u64; size];
    for (node, k) in sinks {
        outputs[node] |= 1 << (k % 64);
    }
    let mut forward = 0u64;
    for (tail, head) in edges.clone() {
        inputs[head] |= inputs[tail];
        forward += u64::from(inputs[tail].count_ones());
    }
    let mut reverse = 0u64;
    for (tail, head) in edges.rev() {
        outputs[tail] |= outputs[head];
        reverse += u64::from(outputs[head].count_ones());
    }
    (forward, reverse)
}
