//! `docs/format.md` against the parser: every `dstar` block parses, every
//! `dstar-error` block fails with the message its first line names
//! (`# error: <substring>`), and the table of functions is the table of
//! operations' list, each with its arity.

use dstar::frontend::{parse_program, Op};
use std::collections::BTreeMap;

fn document() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/format.md")).unwrap()
}

/// A fenced block: its info string, its text and the line of its fence.
struct Block {
    info: String,
    text: String,
    line: usize,
}

/// Every fenced block of `markdown` (fences of three backticks at the
/// start of a line).
fn blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = vec![];
    let mut open: Option<Block> = None;
    for (i, line) in markdown.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block { info: info.trim().into(), text: String::new(), line: i + 1 })
            }
            (Some(_), Some("")) => blocks.extend(open.take()),
            (Some(block), _) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "docs/format.md: a block is never closed");
    blocks
}

#[test]
fn every_dstar_block_parses_and_every_error_block_fails_as_it_says() {
    let blocks = blocks(&document());
    let (mut valid, mut failing) = (0, 0);
    for block in &blocks {
        let at = format!("docs/format.md:{}", block.line);
        match block.info.as_str() {
            "dstar" => {
                if let Err(e) = parse_program(&block.text) {
                    panic!("{at}: a `dstar` block does not parse: {e}\n{}", block.text);
                }
                valid += 1;
            }
            "dstar-error" => {
                let first = block.text.lines().next().unwrap_or("");
                let expected = first.strip_prefix("# error: ").unwrap_or_else(|| {
                    panic!("{at}: a `dstar-error` block starts with '# error: <message>'")
                });
                match parse_program(&block.text) {
                    Ok(_) => panic!("{at}: a `dstar-error` block parses:\n{}", block.text),
                    Err(e) => assert!(
                        e.to_string().contains(expected),
                        "{at}:\n  got      {e}\n  expected {expected}\n{}",
                        block.text
                    ),
                }
                failing += 1;
            }
            info => assert!(!info.starts_with("dstar"), "{at}: unknown info string '{info}'"),
        }
    }
    // A guard against a change of fences that would leave nothing checked.
    assert!(valid >= 5 && failing >= 20, "{valid} `dstar` and {failing} `dstar-error` blocks");
}

#[test]
fn the_function_table_is_the_table_of_operations() {
    let document = document();
    // Rows such as "| `atan2(a, b)` | 2 | ...": the name and the arity column.
    let mut listed = BTreeMap::new();
    for row in document.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let Some(signature) = cells[1].strip_prefix('`').and_then(|c| c.strip_suffix('`')) else { continue };
        let Some((name, _)) = signature.split_once('(') else { continue };
        if !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let arity: usize = cells[2].parse().unwrap_or_else(|_| panic!("an arity in '{row}'"));
        let arguments = signature.matches(',').count() + 1;
        assert_eq!(arity, arguments, "'{row}': the arity column against the signature");
        assert!(listed.insert(name.to_string(), arity).is_none(), "'{name}' is listed twice");
    }
    let table: BTreeMap<String, usize> = Op::function_names()
        .map(|name| (name.to_string(), Op::from_function_name(name).map_or(3, Op::arity)))
        .collect();
    assert_eq!(listed, table, "docs/format.md's functions (left) against the table's (right)");
}
