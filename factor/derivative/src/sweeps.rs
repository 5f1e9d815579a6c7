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

/// Like [`sweep_components`], but exact for any number of inputs and
/// outputs: the masks are taken 64 indices at a time, so the cost is the
/// edges times the batches that hold an end (at most `(inputs + outputs) /
/// 64`), never the node bound times the batches: a graph of a few edges
/// in a large DAG, with ends numbered up to a large index, costs a few
/// edges per batch. Counting stops once a direction passes `limit`, and
/// reports `limit + 1` for it.
pub fn exact_sweep_components<E>(
    size: usize,
    sources: &[(usize, usize)],
    sinks: &[(usize, usize)],
    edges: E,
    limit: u64,
) -> (u64, u64)
where
    E: DoubleEndedIterator<Item = (usize, usize)> + Clone,
{
    let mut mask = vec![0u64; size];
    let mut count = |ends: &[(usize, usize)], forward: bool| {
        let mut ends = ends.to_vec();
        ends.sort_unstable_by_key(|&(_, k)| k / 64);
        let mut total = 0u64;
        for batch in ends.chunk_by(|a, b| a.1 / 64 == b.1 / 64) {
            for &(node, k) in batch {
                mask[node] |= 1 << (k % 64);
            }
            let mut step = |from: usize, to: usize| {
                mask[to] |= mask[from];
                total += u64::from(mask[from].count_ones());
            };
            if forward {
                edges.clone().for_each(|(tail, head)| step(tail, head));
            } else {
                edges.clone().rev().for_each(|(tail, head)| step(head, tail));
            }
            // Every mask set is at an end or an edge's end.
            batch.iter().for_each(|&(node, _)| mask[node] = 0);
            edges.clone().for_each(|(tail, head)| (mask[tail], mask[head]) = (0, 0));
            if total > limit {
                return limit + 1;
            }
        }
        total
    };
    let forward = count(sources, true);
    (forward, count(sinks, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_counts_agree_below_64_and_keep_counting_past_it() {
        // A chain 0 -> 1 -> ... -> 199 with every node an input (source).
        let n = 200;
        let sources: Vec<(usize, usize)> = (0..n).map(|v| (v, v)).collect();
        let sinks = [(n - 1, 0)];
        let edges = (1..n).map(|v| (v - 1, v));
        let (forward, reverse) = exact_sweep_components(n, &sources, &sinks, edges.clone(), u64::MAX);
        // Edge (v-1, v) carries the v inputs 0..v.
        assert_eq!(forward, (1..n as u64).sum::<u64>());
        assert_eq!(reverse, (n - 1) as u64);
        let (estimate, _) =
            sweep_components(n, sources.iter().copied(), sinks.iter().copied(), edges.clone());
        assert!(estimate < forward, "the 64-bit masks alias past 64 inputs");
        assert_eq!(exact_sweep_components(n, &sources, &sinks, edges, 100).0, 101);
    }

    #[test]
    fn exact_counts_depend_on_the_ends_not_on_their_numbers() {
        // Two chains 0 -> 1 -> 2 and 3 -> 4 -> 5 in a bound of 10,000 nodes,
        // with inputs numbered far apart (batches 0 and 150, none between).
        let edges = [(0, 1), (3, 4), (1, 2), (4, 5)];
        let near = exact_sweep_components(
            10_000,
            &[(0, 0), (3, 1)],
            &[(2, 0), (5, 1)],
            edges.iter().copied(),
            u64::MAX,
        );
        let far = exact_sweep_components(
            10_000,
            &[(0, 0), (3, 9_600)],
            &[(2, 7), (5, 9_999)],
            edges.iter().copied(),
            u64::MAX,
        );
        assert_eq!(near, (4, 4));
        assert_eq!(far, near);
        // Two inputs reaching one node count twice on its edge.
        let joined = [(0, 2), (1, 2), (2, 3)];
        assert_eq!(
            exact_sweep_components(4, &[(0, 0), (1, 640)], &[(3, 0)], joined.iter().copied(), u64::MAX),
            (4, 3)
        );
    }
}
