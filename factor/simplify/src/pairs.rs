//! The D* paper's most-frequent-pair heuristic, for commutative chains: while
//! some pair of elements occurs in two or more bags (the factors of products,
//! or the terms of sums), replace the most frequent pair, everywhere it
//! occurs, by one new element computed once.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Repeatedly replaces the most frequent pair in `bags` by the element
/// `combine(pair)` returns, until no pair occurs in two bags. Pairs are
/// unordered and canonicalized by `canonical`, which may flip them into a
/// key plus a marker applied to the combined element (`combine` receives the
/// key and returns the element that replaces the pair as it occurs, for
/// both markers). Ties go to the smallest key, so the result is
/// deterministic. Stops early, with every bag still valid, once it has
/// spent `budget` units of work (one per pair count it updates), and returns
/// the work left: the result depends on the input alone, never on time.
pub fn most_frequent_pairs<E, K>(
    bags: &mut [Vec<E>],
    budget: u64,
    canonical: impl Fn(E, E) -> (K, bool),
    mut combine: impl FnMut(K, bool) -> E,
) -> u64
where
    E: Copy + Eq,
    K: Copy + Eq + Hash + Ord,
{
    let mut work = 0u64;
    // Pairs are counted per pair of positions, so an update touches only the
    // pairs of the elements it removes and adds: O(bag) rather than O(bag²).
    let mut pairs: FxHashMap<K, Pair> = FxHashMap::default();
    for (b, bag) in bags.iter().enumerate() {
        for i in 0..bag.len() {
            for j in i + 1..bag.len() {
                pairs.entry(canonical(bag[i], bag[j]).0).or_default().add(b as u32);
            }
        }
    }
    // The heap holds, for every pair occurring twice or more, an entry at
    // its count or above, so the entry on top whose count is current is the
    // most frequent pair. Pairs whose count rose are queued once, before the
    // next pop, rather than at every increment.
    let mut heap: BinaryHeap<(u32, Reverse<K>)> =
        pairs.iter().filter(|(_, p)| p.count >= 2).map(|(&k, p)| (p.count, Reverse(k))).collect();
    let mut risen: Vec<K> = Vec::new();
    loop {
        for k in risen.drain(..) {
            let pair = pairs.get_mut(&k).expect("a risen pair is counted");
            pair.risen = false;
            if pair.count >= 2 {
                heap.push((pair.count, Reverse(k)));
            }
        }
        let Some((count, Reverse(key))) = heap.pop() else { break };
        match pairs.get(&key).map(|p| p.count) {
            Some(c) if c == count => {}
            // Stale: the count fell since. Queued again at its count now,
            // it competes with the pairs still at that count.
            Some(c) if c >= 2 && c < count => {
                heap.push((c, Reverse(key)));
                continue;
            }
            _ => continue,
        }
        if work >= budget {
            return 0;
        }
        let mut replaced: [Option<E>; 2] = [None; 2];
        let mut list = pairs.get_mut(&key).expect("counted above").take_holders();
        list.dedup();
        for b in list {
            let bag = &mut bags[b as usize];
            while let Some((i, j, flip)) = find_pair(bag, key, &canonical) {
                work += 2 * bag.len() as u64 + 1;
                let element = *replaced[usize::from(flip)].get_or_insert_with(|| combine(key, flip));
                for (x, &e) in bag.iter().enumerate() {
                    for (y, k) in [(i, canonical(e, bag[i]).0), (j, canonical(e, bag[j]).0)] {
                        // The pair (i, j) itself is seen from both ends.
                        if x != y && !(x == i && y == j) {
                            if let Some(pair) = pairs.get_mut(&k) {
                                pair.count = pair.count.saturating_sub(1);
                            }
                        }
                    }
                }
                bag.swap_remove(j);
                bag.swap_remove(i);
                for &e in bag.iter() {
                    let k = canonical(e, element).0;
                    let pair = pairs.entry(k).or_default();
                    pair.add(b);
                    if pair.count >= 2 && !pair.risen {
                        pair.risen = true;
                        risen.push(k);
                    }
                }
                bag.push(element);
            }
        }
        // Combined everywhere: it never counts again (a count of 0 is
        // skipped like a missing one), but bags that form it anew are kept.
        pairs.get_mut(&key).expect("counted above").count = 0;
    }
    budget - work.min(budget)
}

/// A pair's count and the bags it was formed in (each time, so with
/// repeats, and bags it has left since).
#[derive(Default)]
struct Pair {
    count: u32,
    /// Queued in `risen` since the last pop.
    risen: bool,
    /// The first holder, inline: most pairs occur once.
    first: Option<u32>,
    more: Vec<u32>,
}

impl Pair {
    fn add(&mut self, bag: u32) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(bag);
        } else {
            self.more.push(bag);
        }
    }

    /// The holders in the order they were added; none are left.
    fn take_holders(&mut self) -> Vec<u32> {
        let mut list: Vec<u32> = self.first.take().into_iter().collect();
        list.append(&mut self.more);
        list
    }
}

/// Positions of a pair with key `key` in `bag`, and its marker.
fn find_pair<E: Copy, K: Copy + Eq>(
    bag: &[E],
    key: K,
    canonical: &impl Fn(E, E) -> (K, bool),
) -> Option<(usize, usize, bool)> {
    for i in 0..bag.len() {
        for j in i + 1..bag.len() {
            let (k, flip) = canonical(bag[i], bag[j]);
            if k == key {
                return Some((i, j, flip));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Combines unordered pairs in `bags` without a budget: the first pair
    /// combined becomes element 101, the next 102, and so on. Returns the
    /// pairs in that order.
    fn combine_all(bags: &mut [Vec<u32>]) -> Vec<(u32, u32)> {
        let mut made = Vec::new();
        most_frequent_pairs(
            bags,
            u64::MAX,
            |a, b| ((a.min(b), a.max(b)), false),
            |k, _| {
                made.push(k);
                100 + made.len() as u32
            },
        );
        made
    }

    /// The previous implementation, one heap entry per count increment and
    /// a map each for counts and holders: the oracle for the current one.
    fn reference<E, K>(
        bags: &mut [Vec<E>],
        budget: u64,
        canonical: impl Fn(E, E) -> (K, bool),
        mut combine: impl FnMut(K, bool) -> E,
    ) -> u64
    where
        E: Copy + Eq,
        K: Copy + Eq + Hash + Ord,
    {
        let mut work = 0u64;
        let mut counts: FxHashMap<K, u32> = FxHashMap::default();
        let mut holders: FxHashMap<K, Vec<u32>> = FxHashMap::default();
        for (b, bag) in bags.iter().enumerate() {
            for i in 0..bag.len() {
                for j in i + 1..bag.len() {
                    let k = canonical(bag[i], bag[j]).0;
                    *counts.entry(k).or_default() += 1;
                    holders.entry(k).or_default().push(b as u32);
                }
            }
        }
        let mut heap: BinaryHeap<(u32, Reverse<K>)> =
            counts.iter().filter(|(_, &c)| c >= 2).map(|(&k, &c)| (c, Reverse(k))).collect();
        while let Some((count, Reverse(key))) = heap.pop() {
            match counts.get(&key) {
                Some(&c) if c == count => {}
                Some(&c) if c >= 2 && c < count => {
                    heap.push((c, Reverse(key)));
                    continue;
                }
                _ => continue,
            }
            if work >= budget {
                return 0;
            }
            let mut replaced: FxHashMap<bool, E> = FxHashMap::default();
            let mut list = holders.remove(&key).unwrap_or_default();
            list.dedup();
            for b in list {
                let bag = &mut bags[b as usize];
                while let Some((i, j, flip)) = find_pair(bag, key, &canonical) {
                    work += 2 * bag.len() as u64 + 1;
                    let element = *replaced.entry(flip).or_insert_with(|| combine(key, flip));
                    for (x, &e) in bag.iter().enumerate() {
                        for (y, k) in [(i, canonical(e, bag[i]).0), (j, canonical(e, bag[j]).0)] {
                            if x != y && !(x == i && y == j) {
                                if let Some(c) = counts.get_mut(&k) {
                                    *c = c.saturating_sub(1);
                                }
                            }
                        }
                    }
                    bag.swap_remove(j);
                    bag.swap_remove(i);
                    for &e in bag.iter() {
                        let k = canonical(e, element).0;
                        let c = counts.entry(k).or_default();
                        *c += 1;
                        holders.entry(k).or_default().push(b);
                        if *c >= 2 {
                            heap.push((*c, Reverse(k)));
                        }
                    }
                    bag.push(element);
                }
            }
            counts.remove(&key);
        }
        budget - work.min(budget)
    }

    /// Signed elements as the sums pass pairs them: a pair and its negation
    /// share a key, the first element's sign the marker.
    fn signed(a: (u32, bool), b: (u32, bool)) -> ((u32, u32, bool), bool) {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        ((a.0, b.0, a.1 != b.1), a.1)
    }

    /// Random bags of a few distinct elements each, from a small alphabet
    /// so that pairs repeat, and a budget that is sometimes hit.
    #[test]
    fn generated_bags_combine_as_the_reference_does() {
        let cases = if std::env::var_os("DSTAR_LONG").is_some() { 20_000 } else { 1_000 };
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for case in 0..cases {
            let alphabet = 2 + next(12) as u32;
            let mut bags: Vec<Vec<(u32, bool)>> = (0..1 + next(30))
                .map(|_| {
                    let mut bag: Vec<(u32, bool)> = Vec::new();
                    for _ in 0..next(9) {
                        let e = (next(u64::from(alphabet)) as u32, next(3) == 0);
                        if !bag.iter().any(|f| f.0 == e.0) {
                            bag.push(e);
                        }
                    }
                    bag
                })
                .collect();
            let budget = if next(4) == 0 { next(200) } else { u64::MAX };
            let mut expected = bags.clone();
            let (mut made, mut made_ref) = (Vec::new(), Vec::new());
            // Combined elements are numbered from 1000 on, in order made.
            let left = most_frequent_pairs(&mut bags, budget, signed, |k, flip| {
                made.push((k, flip));
                (1000 + made.len() as u32, flip)
            });
            let left_ref = reference(&mut expected, budget, signed, |k, flip| {
                made_ref.push((k, flip));
                (1000 + made_ref.len() as u32, flip)
            });
            assert_eq!((left, &made, &bags), (left_ref, &made_ref, &expected), "case {case}");
        }
    }

    #[test]
    fn shared_pair_is_combined_once() {
        // abc, abd, ab: (a, b) occurs three times.
        let mut bags = vec![vec![0u32, 1, 2], vec![0, 1, 3], vec![1, 0]];
        assert_eq!(combine_all(&mut bags), vec![(0, 1)]);
        assert!(bags.iter().all(|b| b.contains(&101)));
        assert_eq!(bags[2], vec![101]);
    }

    #[test]
    fn a_pair_whose_count_fell_is_still_combined() {
        // (2, 3) and (2, 4) both occur three times; (2, 3) goes first (the
        // smaller key) and takes one (2, 4) with it, which still occurs
        // twice afterwards and must be combined at that count.
        let mut bags = vec![vec![2u32, 3, 4], vec![2, 3], vec![2, 3], vec![0, 2, 4], vec![1, 2, 4]];
        assert_eq!(combine_all(&mut bags), vec![(2, 3), (2, 4)]);
        assert!(bags[3].contains(&102) && bags[4].contains(&102));
    }
}
