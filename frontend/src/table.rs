//! Tables: one name for many entries. `in x[3]` declares the inputs
//! `x[0]`, `x[1]`, `x[2]`; `param d[100, 10]` a hundred rows of ten
//! parameters, row by row; `s[i] = ...` binds entry `i` of the table `s`.
//! Each entry is an input, a parameter or an intermediate like any other
//! (a program's inputs are its entries, named as written: `x[0]`, `d[3,7]`).
//! The parser keeps its tables here, beside its symbol table of names; the
//! printer groups declared entries back into tables ([`declarations`]).

use crate::dag::NodeId;

/// The most entries a table has, and the most values a run takes: a
/// declaration or a run past it is an error, not gigabytes of nodes.
pub const MAX_ENTRIES: usize = 10_000_000;

/// The most tokens a program's runs read, all values of every run
/// counted (a written-out file of about 800 MB, half a minute of
/// parsing): a short file cannot make the parser work for hours.
pub const MAX_RUN_TOKENS: u64 = 100_000_000;

/// What a table's entries are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Declared by `in`: every entry an input.
    Input,
    /// Declared by `param`: every entry a parameter.
    Param,
    /// Bound entry by entry (`s[i] = ...`): one index, entries bound once,
    /// in any order.
    Bound,
}

/// A table: its kind, its shape, and each entry's node and where it was
/// bound.
#[derive(Clone, Debug)]
pub struct Table {
    /// Inputs, parameters or bound entries.
    pub kind: Kind,
    /// Entries along each index; a bound table's one length grows with its
    /// highest bound entry.
    pub dims: Vec<usize>,
    /// Each entry's node, row by row; `NodeId::NONE` where not bound.
    pub nodes: Vec<NodeId>,
    /// Byte offset of each entry's binding (of the declaration for
    /// declared tables).
    pub offsets: Vec<u32>,
    /// Byte offset of the table's name where it first appears.
    pub offset: u32,
}

impl Table {
    /// A declared table of inputs or parameters over `nodes`.
    pub fn declared(kind: Kind, dims: Vec<usize>, nodes: Vec<NodeId>, offset: u32) -> Table {
        let offsets = vec![offset; nodes.len()];
        Table { kind, dims, nodes, offsets, offset }
    }

    /// A table of bound entries, none bound yet.
    pub fn bound(offset: u32) -> Table {
        Table { kind: Kind::Bound, dims: vec![0], nodes: vec![], offsets: vec![], offset }
    }

    /// The position of entry `index` row by row, or `None` outside the
    /// table. A bound table takes any index below [`MAX_ENTRIES`].
    pub fn position(&self, index: &[i64]) -> Option<usize> {
        if self.kind == Kind::Bound {
            return usize::try_from(index[0]).ok().filter(|&k| k < MAX_ENTRIES);
        }
        let mut at = 0usize;
        for (&i, &n) in index.iter().zip(&self.dims) {
            let i = usize::try_from(i).ok().filter(|&i| i < n)?;
            at = at * n + i;
        }
        Some(at)
    }

    /// The node of the entry at `at`, if bound.
    pub fn node(&self, at: usize) -> Option<NodeId> {
        self.nodes.get(at).copied().filter(|&n| n != NodeId::NONE)
    }

    /// Binds entry `at` of a bound table to `node`, made at byte `offset`.
    pub fn bind(&mut self, at: usize, node: NodeId, offset: u32) {
        if at >= self.nodes.len() {
            self.nodes.resize(at + 1, NodeId::NONE);
            self.offsets.resize(at + 1, 0);
            self.dims[0] = at + 1;
        }
        self.nodes[at] = node;
        self.offsets[at] = offset;
    }

    /// Its shape for a message: `10 entries`, `10 × 3 entries`.
    pub fn shape(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(usize::to_string).collect();
        let one = self.dims == [1];
        format!("{} entr{}", dims.join(" × "), if one { "y" } else { "ies" })
    }
}

/// The name of entry `index` of table `name`: `x[3]`, `d[3,7]`.
pub fn entry_name(name: &str, index: &[i64]) -> String {
    let index: Vec<String> = index.iter().map(i64::to_string).collect();
    format!("{name}[{}]", index.join(","))
}

/// `name` as a part of a plain name: an entry's brackets and commas
/// become `_` (`d[2,1]` is `d_2_1`), any other name stays. Names made
/// from others (`d_<output>_d_<input>`) use it.
///
/// ```
/// assert_eq!(frontend::table::plain("d[2,1]"), "d_2_1");
/// assert_eq!(frontend::table::plain("x"), "x");
/// ```
pub fn plain(name: &str) -> String {
    match name.strip_suffix(']') {
        Some(entry) => entry.replace(['[', ','], "_"),
        None => name.to_string(),
    }
}

/// Steps `index` to the next entry of a table of shape `dims`, row by row
/// (the last index fastest); past the last entry it wraps to all zeros.
pub fn next_index(index: &mut [usize], dims: &[usize]) {
    for axis in (0..dims.len()).rev() {
        index[axis] += 1;
        if index[axis] < dims[axis] {
            return;
        }
        index[axis] = 0;
    }
}

/// The number of entries of a table of shape `dims`, if at most
/// [`MAX_ENTRIES`].
pub fn entries(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).filter(|&n| n <= MAX_ENTRIES)
}

/// The declarations of an `in` or `param` line for `names`: each run of
/// entries of one table that is whole and row by row (`x[0,0]`, `x[0,1]`,
/// ..., `x[2,1]`) becomes its table (`x[3,2]`); any other name stays as
/// it is.
///
/// ```
/// let names: Vec<String> = ["a", "x[0]", "x[1]", "b"].map(String::from).into();
/// assert_eq!(frontend::table::declarations(&names), ["a", "x[2]", "b"]);
/// ```
pub fn declarations(names: &[String]) -> Vec<String> {
    let mut out = vec![];
    let mut k = 0;
    while k < names.len() {
        let Some((base, _)) = split_entry(&names[k]) else {
            out.push(names[k].clone());
            k += 1;
            continue;
        };
        let run = names[k..].iter().take_while(|n| split_entry(n).is_some_and(|(b, _)| b == base)).count();
        let group = &names[k..k + run];
        match whole_table(group) {
            Some(dims) => {
                let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
                out.push(format!("{base}[{}]", dims.join(",")));
            }
            None => out.extend(group.iter().cloned()),
        }
        k += run;
    }
    out
}

/// The table's name and indices of an entry's name.
fn split_entry(name: &str) -> Option<(&str, Vec<usize>)> {
    let (base, rest) = name.split_once('[')?;
    let index = rest.strip_suffix(']')?.split(',').map(|i| i.parse().ok()).collect::<Option<Vec<_>>>()?;
    Some((base, index))
}

/// The shape of a table whose entries, row by row, are `group`.
fn whole_table(group: &[String]) -> Option<Vec<usize>> {
    let indices: Vec<Vec<usize>> =
        group.iter().map(|n| split_entry(n).map(|(_, i)| i)).collect::<Option<_>>()?;
    let dims: Vec<usize> = indices.last()?.iter().map(|&i| i + 1).collect();
    if entries(&dims) != Some(group.len()) {
        return None;
    }
    let mut expected = vec![0; dims.len()];
    for index in &indices {
        if *index != expected {
            return None;
        }
        next_index(&mut expected, &dims);
    }
    Some(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_group_into_whole_tables_only() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let grouped = declarations(&names(&["x[0,0]", "x[0,1]", "x[1,0]", "x[1,1]", "y"]));
        assert_eq!(grouped, ["x[2,2]", "y"]);
        // Out of order, or with a hole, the names stay as they are.
        let odd = names(&["x[0]", "x[2]"]);
        assert_eq!(declarations(&odd), odd);
        let swapped = names(&["x[1]", "x[0]"]);
        assert_eq!(declarations(&swapped), swapped);
    }

    #[test]
    fn positions_are_row_by_row_and_checked() {
        let t = Table::declared(Kind::Input, vec![3, 2], vec![NodeId::NONE; 6], 0);
        assert_eq!(t.position(&[2, 1]), Some(5));
        assert_eq!(t.position(&[3, 0]), None);
        assert_eq!(t.position(&[0, -1]), None);
        assert_eq!(entries(&[usize::MAX, 2]), None);
    }
}
