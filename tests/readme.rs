//! The README's list of functions is the table of operations' list.

use dstar::frontend::Op;
use std::collections::BTreeSet;

#[test]
fn readme_lists_every_function_of_the_table() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("the functions `").expect("the problem format lists the functions")
        + "the functions `".len();
    let end = start + readme[start..].find('`').expect("a closing backtick");
    let listed: BTreeSet<&str> = readme[start..end].split_whitespace().collect();
    let table: BTreeSet<&str> = Op::function_names().filter(|&f| f != "ifelse").collect();
    assert_eq!(listed, table, "README.md's functions (left) against the table's (right)");
}
