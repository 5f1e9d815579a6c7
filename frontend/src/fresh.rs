//! Fresh names: `base`, else `base_2`, `base_3`, ..., the first one that no
//! name in use has; the one suffix style of dstar's generated names.

use std::collections::HashMap;

/// Hands out fresh names, keeping each base's next suffix, so that `k`
/// names made from one base cost `O(k)` checks in all, not `O(k²)`.
#[derive(Debug, Default)]
pub struct FreshNames {
    next: HashMap<String, usize>,
}

impl FreshNames {
    /// `base` if `taken` refuses it, else `base_k` for the least `k >= 2`,
    /// past the suffixes handed out for `base` before, that `taken`
    /// refuses. The caller marks the name taken.
    pub fn name(&mut self, base: &str, taken: impl Fn(&str) -> bool) -> String {
        if !taken(base) {
            return base.to_string();
        }
        let k = self.next.entry(base.to_string()).or_insert(2);
        loop {
            let name = format!("{base}_{k}");
            *k += 1;
            if !taken(&name) {
                return name;
            }
        }
    }
}

/// One fresh name ([`FreshNames::name`]).
///
/// ```
/// let taken = ["x", "x_2"];
/// assert_eq!(frontend::fresh::fresh_name("x", |n| taken.contains(&n)), "x_3");
/// assert_eq!(frontend::fresh::fresh_name("y", |n| taken.contains(&n)), "y");
/// ```
pub fn fresh_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    FreshNames::default().name(base, taken)
}
