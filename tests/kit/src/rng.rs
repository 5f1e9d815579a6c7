//! The one random generator of the tests: SplitMix64, seedable and
//! reproducible, with no dependency.
//!
//! It is the generator of the D* differential test, so its 100,000-program
//! long run is the same corpus as before the kit. The library keeps its own
//! (`eliminate::rng`) for the scarcity heuristics: tests never share it.

/// SplitMix64 (Steele, Lea and Flood): a 64-bit state, every seed valid.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`; nearby seeds give unrelated streams.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is below 2^-40 for the
    /// sizes tests use).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform(0.0, 1.0) < p
    }

    /// A point of `n` coordinates, each uniform in `[lo, hi)`.
    pub fn point(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }

    /// One of `items`, uniformly.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A second generator, derived from this one's state without advancing
    /// it: draws from it leave this stream as it was.
    pub fn fork(&self) -> Rng {
        Rng(self.0.rotate_left(29) ^ 0x6A09_E667_F3BC_C909)
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn streams_are_reproducible_and_bounded() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            let k = a.below(13);
            assert!(k < 13);
            let u = a.uniform(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&u));
            b.below(13);
            b.uniform(-2.0, 3.0);
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn a_fork_leaves_the_stream_alone() {
        let mut a = Rng::new(3);
        let mut b = a.clone();
        let mut fork = a.fork();
        fork.next_u64();
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(a.fork().next_u64(), a.next_u64());
    }

    #[test]
    fn below_covers_its_range_evenly() {
        let mut rng = Rng::new(11);
        let mut counts = [0usize; 6];
        for _ in 0..60_000 {
            counts[rng.below(6)] += 1;
        }
        assert!(counts.iter().all(|&c| (9_000..11_000).contains(&c)), "{counts:?}");
    }
}
