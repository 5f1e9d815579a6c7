//! The hand-written parser for problem files and single expressions.
//!
//! Expressions are parsed by operator precedence with explicit stacks (a
//! shunting-yard), so nesting depth is bounded by memory, not by the call
//! stack: 100,000 nested parentheses parse like any other input.

use crate::builder::{renumber, PARAM_BASE};
use crate::call::FunctionDef;
use crate::dag::{spread, ExprDag, NodeId};
use crate::error::{DidYouMean, ParseError, ParseErrorKind};
use crate::kernel::Kernel;
use crate::lexer::{Lexer, Token, TokenStream};
pub use crate::name::{check_name, reserved, NameError};
use crate::op::{Cmp, Op};
use crate::program::{Output, Program, SpanMap};
use crate::span::Span;
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;
use std::sync::Arc;

mod tables;

/// Parses a problem file (the format: `docs/format.md`).
///
/// ```
/// let p = frontend::parse_program("in x, y\nt = x*y\nout f = sin(t) + t")?;
/// assert_eq!(p.inputs, ["x", "y"]);
/// assert_eq!(p.outputs[0].name, "f");
/// # Ok::<(), frontend::ParseError>(())
/// ```
pub fn parse_program(source: &str) -> Result<Program, ParseError> {
    parse_program_deferring(source, None)
}

/// [`parse_program`], with names claimed and put in the table later
/// ([`Names`]) as `defer` says, or as the program's size says; deferring,
/// with a cache of as many recent names as `defer` says (tests make it
/// small, so that names are evicted and read from the table).
fn parse_program_deferring(source: &str, defer: Option<(bool, usize)>) -> Result<Program, ParseError> {
    let mut parser = Parser::new(source, Mode::Program);
    // Sized from the source, so big programs rarely grow: a name per line,
    // a node per 12 bytes in the arrays (the bench's programs have 14; room
    // not used is never touched), a node per 16 bytes in the hash table but
    // at most one a line. The table holds only nodes whose arguments are
    // all read twice or more (`ExprDag::readers`): none of cart-pole's
    // 1.5 M at 10^5 intervals, 1.4 a line written out, 1.7 on gmm 10^4. A
    // low guess for the table costs a growth, from stored hashes; a high one
    // touches every page of it (inserts land anywhere) and spreads the
    // lookups. A low guess for the arrays copies them, and the copy touches
    // fresh memory: a sixth of parsing a written-out model.
    let lines = memchr::memchr_iter(b'\n', source.as_bytes()).count();
    parser.names.reserve(lines);
    if let Some((defer, recent)) = defer {
        parser.names.defer = defer;
        if defer {
            parser.names.recent.enable(recent);
            parser.names.bound.enable(recent);
        }
    }
    parser.dag.reserve_split(source.len() / 12, (source.len() / 16).min(lines));
    parser.spans.reserve(source.len() / 12);
    let read = parser.statements();
    parser.bound_twice()?;
    read?;
    let span = parser.first_statement.unwrap_or_else(|| parser.peek_span());
    if parser.inputs.is_empty() {
        return Err(ParseError { kind: ParseErrorKind::NoInputs, span });
    }
    if parser.outputs.is_empty() {
        return Err(ParseError { kind: ParseErrorKind::NoOutputs, span });
    }
    let point = parse_numbers(source, "@point", parser.inputs.len())?;
    let param_values = parse_numbers(source, "@params", parser.params.len())?;
    Ok(parser.finish(point, param_values))
}

/// Parses one expression; its variables become inputs in order of first
/// appearance. The output is named `f`.
///
/// ```
/// let p = frontend::parse_expr("sin(x*y) + x^2")?;
/// assert_eq!(p.inputs, ["x", "y"]);
/// # Ok::<(), frontend::ParseError>(())
/// ```
pub fn parse_expr(source: &str) -> Result<Program, ParseError> {
    let mut parser = Parser::new(source, Mode::Discover);
    parser.single_expression()?;
    Ok(parser.finish(None, None))
}

/// Parses one expression over the given variables, which become the inputs
/// in that order (also those the expression does not use).
pub fn parse_expr_with_inputs(source: &str, inputs: &[&str]) -> Result<Program, ParseError> {
    parse_expr_in(source, Some(inputs), &NoFunctions)
}

/// No functions besides the built-in ones.
#[derive(Debug)]
pub struct NoFunctions;

impl Functions for NoFunctions {
    fn function(&self, _: &str) -> Option<&Program> {
        None
    }
}

/// Functions defined outside the source (the REPL's definitions), callable by
/// name from an expression: `f(x, 2*x)` inlines `f`'s body with its inputs
/// bound to the arguments, and a bare `g` inlines `g` with its inputs bound to
/// the variables of the same names. A function's parameters stay parameters
/// of the expression, by name.
pub trait Functions {
    /// The function `name`: its inputs are its arguments, its parameters
    /// parameters, and its first output its value.
    fn function(&self, name: &str) -> Option<&Program>;

    /// Whether `name`, when the expression does not bind it, is a parameter
    /// (the REPL's `param a`): it becomes a parameter of the expression, never
    /// a variable. Parameters are numbered in order of first appearance,
    /// after the inputs, as a file's are.
    fn is_parameter(&self, name: &str) -> bool {
        let _ = name;
        false
    }

    /// A part of the source that the caller has already turned into a
    /// function (the REPL's `diff(f, x)`), if one starts at byte `offset`:
    /// the byte offset where it ends, and the function. The parser skips that
    /// text and inlines the function as it does a bare function name, its
    /// inputs bound to the variables of the same names.
    fn prebuilt(&self, offset: u32) -> Option<(u32, &Program)> {
        let _ = offset;
        None
    }
}

/// Parses one expression that may call `functions`. With `inputs`, the
/// variables are exactly those (in that order); without, they are discovered
/// in order of first appearance.
pub fn parse_expr_in(
    source: &str,
    inputs: Option<&[&str]>,
    functions: &dyn Functions,
) -> Result<Program, ParseError> {
    let mode = if inputs.is_some() { Mode::Given } else { Mode::Discover };
    let mut parser = Parser::new(source, mode);
    parser.functions = Some(functions);
    parser.declare_inputs(inputs.unwrap_or(&[]))?;
    parser.single_expression()?;
    Ok(parser.finish(None, None))
}

/// Like [`parse_expr_in`], for the expression that `span` covers in
/// `source` (a part of a longer text, such as a REPL line): the spans of the
/// result and of its errors are spans of `source`. The text after `span` is
/// not read.
///
/// ```
/// use frontend::{parse_expr_at, parser::NoFunctions, Pos, Span};
/// let line = "f(x) = sine(x)";
/// // What follows '=': bytes 7..14, columns 8..15.
/// let rhs = Span { start: Pos { offset: 7, line: 1, column: 8 }, end: Pos { offset: 14, line: 1, column: 15 } };
/// let e = parse_expr_at(line, rhs, Some(&["x"]), &NoFunctions).unwrap_err();
/// assert_eq!(e.to_string(), "1:8: unknown function 'sine'; did you mean 'sin'?");
/// ```
///
/// # Panics
/// If `span` is not a span of `source` (its offsets out of range or not on
/// char boundaries).
pub fn parse_expr_at(
    source: &str,
    span: Span,
    inputs: Option<&[&str]>,
    functions: &dyn Functions,
) -> Result<Program, ParseError> {
    let text = &source[..span.end.offset as usize];
    let mode = if inputs.is_some() { Mode::Given } else { Mode::Discover };
    let mut parser = Parser::new(text, mode);
    parser.tokens = TokenStream::from_lexer(Lexer::starting_at(text, span.start));
    parser.functions = Some(functions);
    parser.declare_inputs(inputs.unwrap_or(&[]))?;
    parser.single_expression()?;
    Ok(parser.finish(None, None))
}

/// Reads the `# @point v1, v2, ...` comment (`tag` `"@point"`, one number per
/// input) or the `# @params v1, v2, ...` one (`"@params"`, one per
/// parameter), if any, values separated by commas, blanks or both
/// ([`crate::value::parse_list`]); a file gives at most one of each.
fn parse_numbers(source: &str, tag: &'static str, count: usize) -> Result<Option<Vec<f64>>, ParseError> {
    let params = tag == "@params";
    let mut point: Option<(u32, Vec<f64>)> = None;
    for (line_no, line) in lines_with(source, tag) {
        let Some(rest) = line.trim_start().strip_prefix("# ").and_then(|l| l.strip_prefix(tag)) else {
            continue;
        };
        if rest.starts_with(|c: char| !c.is_whitespace()) {
            continue; // `# @pointer`, not the comment
        }
        let pos = |column| crate::span::Pos { offset: 0, line: line_no, column };
        let span = Span { start: pos(1), end: pos(line.chars().count() as u32 + 1) };
        let fail = |kind| Err(ParseError { kind, span });
        if let Some((first, _)) = point {
            return fail(if params {
                ParseErrorKind::SecondParams { first }
            } else {
                ParseErrorKind::SecondPoint { first }
            });
        }
        // Values as everywhere a point is read (`nan`, `inf`, `-inf`; `1e400` is an error).
        let values = crate::value::parse_list(rest);
        match values {
            Ok(v) if v.len() == count => point = Some((line_no, v)),
            Ok(v) if params => return fail(ParseErrorKind::BadParams { expected: count, found: v.len() }),
            Ok(v) => return fail(ParseErrorKind::BadPoint { expected: count, found: v.len() }),
            Err(e @ ParseErrorKind::NumberOutOfRange(_)) => return fail(e),
            Err(_) => {
                return fail(ParseErrorKind::Expected {
                    expected: if params { "numbers after '# @params'" } else { "numbers after '# @point'" },
                    found: rest.trim().into(),
                })
            }
        }
    }
    Ok(point.map(|(_, v)| v))
}

/// The lines of `source` (as [`crate::source::source_lines`] splits them)
/// that hold `needle`, each with its number from 1, in order: found by a
/// substring search, not by reading every line (the point of a 10^5-interval
/// model is one line of 8 MB among 500,000).
fn lines_with<'s>(source: &'s str, needle: &'s str) -> impl Iterator<Item = (u32, &'s str)> {
    let bytes = source.as_bytes();
    let body = if source.starts_with(crate::source::BOM) { crate::source::BOM.len_utf8() } else { 0 };
    // Line breaks before `counted`: `\n`, `\r\n` and a lone `\r` each end a line.
    let (mut counted, mut breaks) = (body, 0usize);
    let mut next = 0;
    memchr::memmem::find_iter(bytes, needle.as_bytes()).filter_map(move |at| {
        if at < next {
            return None; // a second match on a line already given
        }
        let start = memchr::memrchr2(b'\n', b'\r', &bytes[..at]).map_or(body, |i| i + 1);
        let end = at + memchr::memchr2(b'\n', b'\r', &bytes[at..]).unwrap_or(bytes.len() - at);
        let before = &bytes[counted..start];
        breaks += memchr::memchr_iter(b'\n', before).count() + memchr::memchr_iter(b'\r', before).count()
            - memchr::memmem::find_iter(before, b"\r\n").count();
        // `counted` is always just past a break (or at the start), so no
        // `\r\n` is split between two counts.
        counted = start;
        next = end;
        Some((breaks as u32 + 1, &source[start..end]))
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Program,
    /// A single expression whose unknown names become inputs.
    Discover,
    /// A single expression over declared inputs.
    Given,
}

#[derive(Clone, Copy)]
struct Binding {
    node: NodeId,
    /// Byte offset of the binding's name; its span is rebuilt only for an
    /// error, which keeps the symbol table small on million-line programs.
    offset: u32,
    is_input: bool,
}

/// The symbol table: the bindings in the order they were made, and a hash
/// table of slots. A slot holds what a lookup compares and what it
/// returns: 32 bits of the name's hash (as the DAG's table: growing never
/// reads a name again), its length and first 8 bytes, and its node. A name
/// of at most 8 bytes is found without reading the bindings or the source,
/// in one probe: on programs with many names each of those reads missed
/// the cache.
///
/// In front of the table, a small cache of recently read short names keeps
/// the names a program reads again and again (the shared arguments of a
/// run of calls) in 64 KiB: the table's slots are spread over megabytes,
/// and on gmm 10^4 (160 K names) reading them stalled on most lookups.
/// Names are bound once (a name bound twice fails the parse), so a cached
/// node stays right.
///
/// Behind the cache, before the table, the binding after the last one read
/// of the name's class ([`Follow`]): a generated program reads its names in
/// the order it bound them (`x5_0, x5_1, …, x6_0` of a run of calls, the
/// defects' `n5_0 - x6_0` after them), so that binding is usually the one
/// asked for. Read in order, the bindings and the source stream through
/// the cache, where a probe of the table misses: on cart-pole at 10^5
/// intervals (1.3 M names) probes were a fifth of the parse.
///
/// Behind the guess, a second cache holds the short names a large program
/// bound last ([`Names::bound`]): written-out code reads most names a few
/// lines after binding them (`t5 = t3 * t4`), in no order the guess
/// follows. Kept apart from the names read, so that a flood of new names
/// does not evict the shared ones a run of calls reads again and again.
///
/// A large program's names are claimed before they are bound
/// ([`Names::claim`]) and put in the table later, all together
/// ([`Names::index`]): when a read needs the table, when something asks
/// whether a name is bound, and at the end. A name bound twice is then
/// found in the table ([`Names::twice`]) rather than when it is bound, and
/// the parser reports it before any later error: on cart-pole at 10^6
/// intervals, checking and binding each name in turn missed the cache
/// twice a name, a third of the parse.
#[derive(Default)]
struct Names<'s> {
    bindings: Vec<(&'s str, Binding)>,
    table: HashTable<Slot>,
    recent: Recent,
    follow: Follow,
    /// The short names bound last, as [`Names::recent`].
    bound: Recent,
    /// Whether names are claimed and put in the table later.
    defer: bool,
    /// The bindings before this one are in the table.
    indexed: usize,
    /// The first binding found of a name already bound, and that earlier
    /// binding: a name bound twice (an error).
    twice: Option<(usize, Binding)>,
}

/// Per class of names (their first byte and length): the index of the
/// binding last read, plus one (0: none yet).
#[derive(Default)]
struct Follow([u32; 32]);

impl Follow {
    #[inline]
    fn class(key: &Key) -> usize {
        (key.head as usize & 0xff ^ (key.len as usize) << 3) % 32
    }
}

/// A direct-mapped cache of short names (at most 8 bytes) and their nodes,
/// indexed by the low bits of the name's hash. Empty (and never hit) until
/// [`Recent::enable`]: a function's body, or a line of the REPL, is read
/// with a symbol table of its own, and small ones gain nothing from it.
#[derive(Default)]
struct Recent(Box<[(u64, u32, NodeId)]>);

impl Recent {
    /// Entries: 64 KiB.
    const SIZE: usize = 4096;

    /// Entries of the cache of names bound last: 16 KiB.
    const BOUND: usize = 1024;

    /// Makes room for `entries` entries (a power of two), each empty: no
    /// name is 2^32 - 1 bytes long.
    fn enable(&mut self, entries: usize) {
        debug_assert!(entries.is_power_of_two());
        if self.0.len() != entries {
            self.0 = vec![(0, u32::MAX, NodeId::NONE); entries].into_boxed_slice();
        }
    }

    #[inline]
    fn entry(&self, key: &Key) -> usize {
        key.hash as usize & self.0.len().wrapping_sub(1)
    }

    #[inline]
    fn get(&self, key: &Key) -> Option<NodeId> {
        let &(head, len, node) = self.0.get(self.entry(key))?;
        (head == key.head && len == key.len).then_some(node)
    }

    #[inline]
    fn put(&mut self, key: &Key, node: NodeId) {
        let at = self.entry(key);
        if let Some(entry) = self.0.get_mut(at).filter(|_| key.len <= 8) {
            *entry = (key.head, key.len, node);
        }
    }
}

struct Slot {
    /// The name's first 8 bytes, zero past its end.
    head: u64,
    hash: u32,
    len: u32,
    node: NodeId,
    /// The binding's index.
    index: u32,
}

/// What a slot compares: the name's first 8 bytes, zero past its end, its
/// length and 32 bits of its hash.
struct Key {
    head: u64,
    hash: u32,
    len: u32,
}

/// The first 8 bytes of `bytes`, zero past its end, read in at most two
/// loads (overlapping where `bytes` is short): bytes copied into a buffer
/// and read back as a word stall store forwarding.
#[inline]
fn head(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let at = |i: usize| u64::from(bytes[i]);
    let u16_at = |i: usize| at(i) | at(i + 1) << 8;
    let u32_at =
        |i: usize| u64::from(u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]));
    match n {
        8.. => u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
        4..=7 => u32_at(0) | u32_at(n - 4) << (8 * (n - 4)),
        2..=3 => u16_at(0) | u16_at(n - 2) << (8 * (n - 2)),
        1 => at(0),
        0 => 0,
    }
}

impl Key {
    #[inline]
    fn of(name: &str) -> Key {
        let bytes = name.as_bytes();
        let head = head(bytes);
        let h = if bytes.len() <= 8 {
            // The head and length are the whole name: hash them alone.
            (head ^ (bytes.len() as u64).rotate_right(8)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        } else {
            FxBuildHasher.hash_one(name)
        };
        let len = u32::try_from(bytes.len()).expect("a name shorter than 4 GiB");
        Key { head, hash: (h ^ (h >> 32)) as u32, len }
    }

    /// Whether `slot` is the slot of `name`, this key's name: the key
    /// decides for a name of at most 8 bytes; a longer one is compared
    /// with its binding's.
    #[inline]
    fn finds(&self, name: &str, bindings: &[(&str, Binding)], slot: &Slot) -> bool {
        slot.hash == self.hash
            && slot.head == self.head
            && slot.len == self.len
            && (self.len <= 8 || bindings[slot.index as usize].0 == name)
    }

    fn slot(&self, node: NodeId, index: u32) -> Slot {
        Slot { head: self.head, hash: self.hash, len: self.len, node, index }
    }
}

impl<'s> Names<'s> {
    /// Makes room for `additional` more names; from [`Recent::SIZE`] on,
    /// with the cache of recent names.
    fn reserve(&mut self, additional: usize) {
        self.bindings.reserve(additional);
        self.table.reserve(additional, |s| spread(s.hash));
        if additional >= Recent::SIZE {
            self.recent.enable(Recent::SIZE);
            self.bound.enable(Recent::BOUND);
            self.defer = true;
        }
    }

    /// Claims `name` for a binding at byte `offset` and returns the
    /// binding's index: a name being bound, which reads do not see, until
    /// [`Names::settle`] gives it its node. Whether the name is bound
    /// already is found later ([`Names::index`]).
    fn claim(&mut self, name: &'s str, offset: u32) -> u32 {
        let index = u32::try_from(self.bindings.len()).expect("fewer than 2^32 names");
        self.bindings.push((name, Binding { node: NodeId::NONE, offset, is_input: false }));
        index
    }

    /// Binds claimed binding `index` to `node`, and caches it as bound last.
    fn settle(&mut self, index: u32, node: NodeId) {
        let (name, binding) = &mut self.bindings[index as usize];
        binding.node = node;
        let key = Key::of(name);
        if (index as usize) < self.indexed {
            if let Some(slot) = self.table.find_mut(spread(key.hash), |s| s.index == index) {
                slot.node = node;
            }
        }
        self.bound.put(&key, node);
    }

    /// Puts the bindings not yet in the table into it, keeping the first
    /// of them found bound already in [`Names::twice`].
    fn index(&mut self) {
        if self.indexed == self.bindings.len() {
            return;
        }
        let from = self.indexed;
        self.indexed = self.bindings.len();
        if let Err((i, found)) = self.index_from(from) {
            if self.twice.is_none_or(|(j, _)| from + i < j) {
                self.twice = Some((from + i, found));
            }
        }
    }

    /// The slot of `name`, if bound.
    #[inline]
    fn slot(&self, name: &str) -> Option<&Slot> {
        self.slot_of(&Key::of(name), name)
    }

    #[inline]
    fn slot_of(&self, key: &Key, name: &str) -> Option<&Slot> {
        self.table.find(spread(key.hash), |s| key.finds(name, &self.bindings, s))
    }

    fn get(&mut self, name: &str) -> Option<Binding> {
        self.index();
        self.slot(name).map(|s| self.bindings[s.index as usize].1)
    }

    /// The node `name` is bound to: what reading a name needs, from the
    /// recent names, the guess, the names bound last or the slot alone.
    #[inline]
    fn node(&mut self, name: &str) -> Option<NodeId> {
        let key = Key::of(name);
        if let Some(node) = self.recent.get(&key) {
            return Some(node);
        }
        let class = Follow::class(&key);
        let next = self.follow.0[class] as usize;
        let node = match self.bindings.get(next) {
            Some(&(bound, binding)) if bound == name => {
                self.follow.0[class] = next as u32 + 1;
                binding.node
            }
            _ if let Some(node) = self.bound.get(&key) => node,
            _ => {
                self.index();
                let (index, node) = self.slot_of(&key, name).map(|s| (s.index, s.node))?;
                self.follow.0[class] = index + 1;
                node
            }
        };
        if node == NodeId::NONE {
            // Claimed, being bound: not a name yet.
            return None;
        }
        self.recent.put(&key, node);
        Some(node)
    }

    /// Binds `name` unless it is bound; then it returns that binding. One
    /// probe, where [`Names::get`] and [`Names::insert`] take two.
    fn insert_new(&mut self, name: &'s str, binding: Binding) -> Result<(), Binding> {
        self.insert_all_new(&[(name, binding)]).map_err(|(_, found)| found)
    }

    /// Binds each of `names` in turn unless it is bound, as
    /// [`Names::insert_new`] on each would, but writes the table in the
    /// order of the names' places in it: an `in` line of millions of names
    /// then sweeps the table as it lies in memory, where in the line's
    /// order every insert missed the cache. Names found bound stay among
    /// the bindings but not in the table (the parse stops there); the first
    /// of them in `names` is returned, with the binding found (one of an
    /// earlier name of `names`, or older).
    fn insert_all_new(&mut self, names: &[(&'s str, Binding)]) -> Result<(), (usize, Binding)> {
        self.index();
        let from = self.bindings.len();
        self.bindings.extend_from_slice(names);
        self.indexed = self.bindings.len();
        self.index_from(from)
    }

    /// Puts bindings `from..` into the table, in the order of their places
    /// in it ([`Names::insert_all_new`]); returns the first found bound
    /// already (its place after `from`), and the binding found.
    fn index_from(&mut self, from: usize) -> Result<(), (usize, Binding)> {
        let Names { bindings, table, .. } = self;
        let names = &bindings[from..];
        table.reserve(names.len(), |s| spread(s.hash));
        if names.len() < SWEPT {
            return insert_in_order(table, bindings, from, &mut (0..names.len()));
        }
        let keys: Vec<Key> = names.iter().map(|(name, _)| Key::of(name)).collect();
        // A name's place is the low bits of its hash, as many as the table
        // has buckets (a power of two, 8 for each 7 of capacity): a wrong
        // guess only sorts less well.
        let buckets = (table.capacity() / 7 * 8).next_power_of_two();
        let shift = buckets.trailing_zeros().saturating_sub(STRETCHES.trailing_zeros());
        let stretch = |key: &Key| (spread(key.hash) as usize & (buckets - 1)) >> shift;
        // A counting sort, stable: equal names keep their order, so the
        // second of two is the one found bound.
        let mut starts = vec![0usize; STRETCHES + 1];
        for key in &keys {
            starts[stretch(key) + 1] += 1;
        }
        for i in 0..STRETCHES {
            starts[i + 1] += starts[i];
        }
        let mut order = vec![0u32; names.len()];
        for (i, key) in keys.iter().enumerate() {
            let at = &mut starts[stretch(key)];
            order[*at] = i as u32;
            *at += 1;
        }
        insert_in_order(table, bindings, from, &mut order.into_iter().map(|i| i as usize))
    }

    /// Binds `name`, which callers have checked is not bound yet.
    fn insert(&mut self, name: &'s str, binding: Binding) {
        self.index();
        self.indexed += 1;
        let index = u32::try_from(self.bindings.len()).expect("fewer than 2^32 names");
        let key = Key::of(name);
        self.table.insert_unique(spread(key.hash), key.slot(binding.node, index), |s| spread(s.hash));
        self.bindings.push((name, binding));
    }

    /// The names bound (not those being bound).
    fn names(&self) -> impl Iterator<Item = &'s str> + '_ {
        self.bindings.iter().filter(|(_, b)| b.node != NodeId::NONE).map(|(name, _)| *name)
    }
}

/// Below this many names the table is written in their order.
const SWEPT: usize = 4096;

/// Stretches of the table names are sorted into, each small enough to
/// stay in the cache while its names are written.
const STRETCHES: usize = 4096;

/// Puts `bindings[from + i]` into `table` for each `i` of `order`; returns
/// the first `i` found bound already, and the binding found.
fn insert_in_order(
    table: &mut HashTable<Slot>,
    bindings: &[(&str, Binding)],
    from: usize,
    order: &mut dyn Iterator<Item = usize>,
) -> Result<(), (usize, Binding)> {
    let mut first: Option<(usize, Binding)> = None;
    for i in order {
        let (name, binding) = bindings[from + i];
        let key = Key::of(name);
        match table.entry(spread(key.hash), |s| key.finds(name, bindings, s), |s| spread(s.hash)) {
            Entry::Occupied(entry) => {
                let found = bindings[entry.get().index as usize].1;
                if first.is_none_or(|(j, _)| i < j) {
                    first = Some((i, found));
                }
            }
            Entry::Vacant(entry) => {
                let index = u32::try_from(from + i).expect("fewer than 2^32 names");
                entry.insert(key.slot(binding.node, index));
            }
        }
    }
    first.map_or(Ok(()), Err)
}

/// A value on the operand stack: a node, or a comparison waiting to become
/// the condition of an `ifelse`.
#[derive(Clone, Copy)]
enum Value {
    Node(NodeId, Span),
    Cond(Cmp, NodeId, NodeId, Span),
    /// The call at `site` of the defined function `function`, which has
    /// several results: only a call statement `a, b = f(...)` binds them.
    Results {
        site: u32,
        function: usize,
        span: Span,
    },
}

impl Value {
    fn span(&self) -> Span {
        match *self {
            Value::Node(_, s) | Value::Cond(_, _, _, s) | Value::Results { span: s, .. } => s,
        }
    }

    /// The same value, spanning `span`.
    fn spanning(self, span: Span) -> Value {
        match self {
            Value::Node(n, _) => Value::Node(n, span),
            Value::Cond(c, a, b, _) => Value::Cond(c, a, b, span),
            Value::Results { site, function, .. } => Value::Results { site, function, span },
        }
    }
}

#[derive(Clone, Copy)]
enum Callee<'s> {
    Op(Op),
    IfElse,
    /// A function of the program, by its index among those defined.
    Defined(usize),
    User(&'s Program),
}

/// An entry of the operator stack.
enum Frame<'s> {
    Paren(Span),
    Call { callee: Callee<'s>, name: &'s str, span: Span, base: usize },
    Neg(Span),
    Plus,
    Binary(Binary),
}

#[derive(Clone, Copy)]
enum Binary {
    Arith(Op),
    Compare(Cmp),
}

const PREC_UNARY: u8 = 3;

impl Binary {
    fn of(token: Token<'_>) -> Option<Binary> {
        Some(match token {
            Token::Plus => Binary::Arith(Op::Add),
            Token::Minus => Binary::Arith(Op::Sub),
            Token::Star => Binary::Arith(Op::Mul),
            Token::Slash => Binary::Arith(Op::Div),
            Token::Caret => Binary::Arith(Op::Pow),
            Token::Cmp(c) => Binary::Compare(c),
            _ => return None,
        })
    }

    fn precedence(self) -> u8 {
        match self {
            Binary::Compare(_) => 0,
            Binary::Arith(Op::Add | Op::Sub) => 1,
            Binary::Arith(Op::Pow) => 4,
            Binary::Arith(_) => 2,
        }
    }
}

impl Frame<'_> {
    /// Precedence of an operator frame; `None` for parentheses and calls,
    /// which stop reductions.
    fn precedence(&self) -> Option<u8> {
        match self {
            Frame::Neg(_) | Frame::Plus => Some(PREC_UNARY),
            Frame::Binary(b) => Some(b.precedence()),
            Frame::Paren(_) | Frame::Call { .. } => None,
        }
    }
}

struct Parser<'s> {
    source: &'s str,
    functions: Option<&'s dyn Functions>,
    tokens: TokenStream<'s>,
    mode: Mode,
    dag: ExprDag,
    spans: SpanMap,
    names: Names<'s>,
    inputs: Vec<String>,
    /// The parameters, nodes `Op::Input(PARAM_BASE + j)` until [`Parser::finish`]
    /// numbers them after the inputs.
    params: Vec<String>,
    outputs: Vec<Output>,
    /// The name and position (from 1) of each output named as an unnamed
    /// output is (`out x` is `out1`), with whether the position gave it:
    /// names given and names by position must not meet.
    output_names: FxHashMap<String, (usize, bool)>,
    values: Vec<Value>,
    frames: Vec<Frame<'s>>,
    /// Where the first statement starts: errors about the whole program
    /// point there.
    first_statement: Option<Span>,
    /// The functions defined so far, each with the line of its definition.
    defined: Vec<(Arc<FunctionDef>, u32)>,
    /// The function whose body is being read, if any.
    in_function: Option<&'s str>,
    /// The tables of the main program ([`crate::table`]).
    tables: FxHashMap<&'s str, crate::table::Table>,
    /// The run whose body is being read, if any, and its index's value.
    run: Option<tables::Run<'s>>,
    /// The names claimed ([`Names::claim`]) and not bound yet: the byte
    /// offset of each, and its binding's index.
    claims: Vec<(u32, u32)>,
    /// Tokens the runs read so far, every value counted.
    run_tokens: u64,
}

/// What an assignment, a call statement or a named output binds: a name,
/// or entry `at` of a table of bound entries (which has one index).
#[derive(Clone)]
enum Target<'s> {
    Name(&'s str, Span),
    Entry { table: &'s str, at: usize, span: Span },
}

impl Target<'_> {
    fn span(&self) -> Span {
        match self {
            Target::Name(_, span) | Target::Entry { span, .. } => *span,
        }
    }

    /// The name bound, as an output would be named: `s`, `s[3]`.
    fn name(&self) -> String {
        match self {
            Target::Name(name, _) => name.to_string(),
            Target::Entry { table, at, .. } => crate::table::entry_name(table, &[*at as i64]),
        }
    }

    /// Whether both bind the same name or entry.
    fn same(&self, other: &Target<'_>) -> bool {
        match (self, other) {
            (Target::Name(a, _), Target::Name(b, _)) => a == b,
            (Target::Entry { table: a, at: i, .. }, Target::Entry { table: b, at: j, .. }) => {
                a == b && i == j
            }
            _ => false,
        }
    }
}

/// What one scope binds, the program's or a function body's: set aside
/// while a function's body is read in a scope of its own.
#[derive(Default)]
struct Scope<'s> {
    dag: ExprDag,
    spans: SpanMap,
    names: Names<'s>,
    inputs: Vec<String>,
}

fn err<T>(kind: ParseErrorKind, span: Span) -> Result<T, ParseError> {
    Err(ParseError { kind, span })
}

impl<'s> Parser<'s> {
    fn new(source: &'s str, mode: Mode) -> Parser<'s> {
        Parser {
            source,
            functions: None,
            tokens: TokenStream::new(source),
            mode,
            dag: ExprDag::new(),
            spans: SpanMap::default(),
            names: Names::default(),
            inputs: vec![],
            params: vec![],
            outputs: vec![],
            output_names: Default::default(),
            values: vec![],
            frames: vec![],
            first_statement: None,
            defined: vec![],
            in_function: None,
            tables: Default::default(),
            run: None,
            run_tokens: 0,
            claims: Vec::new(),
        }
    }

    /// Sets the current scope aside for `scope` and returns it.
    fn swap_scope(&mut self, mut scope: Scope<'s>) -> Scope<'s> {
        std::mem::swap(&mut self.dag, &mut scope.dag);
        std::mem::swap(&mut self.spans, &mut scope.spans);
        std::mem::swap(&mut self.names, &mut scope.names);
        std::mem::swap(&mut self.inputs, &mut scope.inputs);
        scope
    }

    /// The program; parameter `j` becomes `Op::Input(n + j)` after the `n`
    /// inputs, wherever its declaration was (every node keeps its id).
    fn finish(self, point: Option<Vec<f64>>, param_values: Option<Vec<f64>>) -> Program {
        let dag = renumber(self.dag, self.inputs.len(), self.params.len());
        let program = Program::new(dag, self.inputs, self.outputs).with_params(self.params, param_values);
        let functions = self.defined.into_iter().map(|(f, _)| f).collect();
        Program { spans: self.spans, point, functions, ..program }
    }

    // --- tokens -----------------------------------------------------------

    fn peek_n(&mut self, n: usize) -> Result<Token<'s>, ParseError> {
        Ok(self.tokens.peek(n)?.0)
    }

    fn peek(&mut self) -> Result<Token<'s>, ParseError> {
        self.peek_n(0)
    }

    fn peek_span(&mut self) -> Span {
        match self.tokens.peek(0) {
            Ok(&(_, span)) => span,
            Err(e) => e.span,
        }
    }

    fn next(&mut self) -> Result<(Token<'s>, Span), ParseError> {
        let token = *self.tokens.peek(0)?;
        self.tokens.advance();
        Ok(token)
    }

    fn expected<T>(&mut self, expected: &'static str) -> Result<T, ParseError> {
        let (token, span) = self.next()?;
        err(ParseErrorKind::Expected { expected, found: token.describe() }, span)
    }

    fn end_statement(&mut self) -> Result<(), ParseError> {
        match self.peek()? {
            Token::End => {
                self.next()?;
                Ok(())
            }
            Token::Eof => Ok(()),
            _ => self.expected("an operator or the end of the statement"),
        }
    }

    // --- statements -------------------------------------------------------

    fn statements(&mut self) -> Result<(), ParseError> {
        loop {
            let token = self.peek()?;
            if !matches!(token, Token::End | Token::Eof) && self.first_statement.is_none() {
                self.first_statement = Some(self.peek_span());
            }
            match token {
                Token::Eof => return Ok(()),
                Token::End => {
                    self.next()?;
                }
                Token::Ident("in") if matches!(self.peek_n(1)?, Token::Ident(_)) => {
                    self.next()?;
                    self.input_list(false)?;
                }
                Token::Ident("param") if matches!(self.peek_n(1)?, Token::Ident(_)) => {
                    self.next()?;
                    self.input_list(true)?;
                }
                Token::Ident("out") if self.peek_n(1)? != Token::Assign => {
                    self.next()?;
                    self.output()?;
                }
                Token::Ident("function") if matches!(self.peek_n(1)?, Token::Ident(_)) => {
                    self.next()?;
                    self.function_block()?;
                }
                Token::Ident("for") if matches!(self.peek_n(1)?, Token::Ident(_)) => {
                    let (_, span) = self.next()?;
                    self.run_block(span)?;
                }
                Token::Ident(_) if self.peek_n(1)? == Token::LParen => self.short_function()?,
                Token::Ident(_) if self.peek_n(1)? == Token::Assign => self.assignment()?,
                Token::Ident(_) if matches!(self.peek_n(1)?, Token::Comma | Token::LBracket) => {
                    self.call_statement()?
                }
                _ => {
                    return self.expected(
                        "a statement ('in x, y', 'param p', 'name = expression', 'a, b = f(...)', \
                         'out expression', a function or a run)",
                    )
                }
            }
        }
    }

    /// `name = expression`.
    fn assignment(&mut self) -> Result<(), ParseError> {
        let (name, span) = self.binding_name()?;
        self.next()?; // '='
        let node = self.expression()?;
        self.bind(name, span, node);
        self.end_statement()
    }

    /// `a, b, ... = f(...)`: binds every result of a call, in order; and
    /// `s[i] = expression`, whose one target is an entry of a table.
    fn call_statement(&mut self) -> Result<(), ParseError> {
        let mut names: Vec<Target<'s>> = vec![];
        loop {
            let target = self.target()?;
            if let Some(first) = names.iter().find(|t| t.same(&target)) {
                return err(
                    ParseErrorKind::DuplicateBinding { name: target.name(), first: first.span() },
                    target.span(),
                );
            }
            names.push(target);
            if names.len() == 1 && self.peek()? == Token::Assign && matches!(names[0], Target::Entry { .. }) {
                self.next()?;
                let node = self.expression()?;
                self.bind_target(names.pop().expect("one target"), node);
                return self.end_statement();
            }
            match self.next()? {
                (Token::Comma, _) if matches!(self.peek()?, Token::Ident(_)) => {}
                (Token::Comma, span) => {
                    let found = self.peek()?.describe();
                    return err(ParseErrorKind::Expected { expected: "a name", found }, span);
                }
                (Token::Assign, _) => break,
                (token, span) => {
                    let found = token.describe();
                    return err(ParseErrorKind::Expected { expected: "',' or '='", found }, span);
                }
            }
        }
        match self.expression_value()? {
            Value::Results { site, function, span } => {
                let f = &self.defined[function].0;
                if f.results().len() != names.len() {
                    let (name, expected, found) = (f.name().to_string(), f.results().len(), names.len());
                    return err(ParseErrorKind::WrongResults { name, expected, found }, span);
                }
                for (out, target) in names.into_iter().enumerate() {
                    let node = self.dag.call_out(site, out);
                    self.bind_target(target, node);
                }
            }
            value => return err(ParseErrorKind::NotACall, value.span()),
        }
        self.end_statement()
    }

    /// `function NAME(ARGS) -> (RESULTS)`, its body, and `end`; the word
    /// `function` is read.
    fn function_block(&mut self) -> Result<(), ParseError> {
        let (name, span) = self.function_name()?;
        let args = self.name_list(Token::LParen, Token::RParen, "an argument name")?;
        if self.peek()? != Token::Arrow {
            return self.expected("'->' and the results");
        }
        self.next()?;
        let results = if self.peek()? == Token::LParen {
            self.name_list(Token::LParen, Token::RParen, "a result name")?
        } else {
            match self.next()? {
                (Token::Ident(r), s) => vec![(r, s)],
                (token, s) => {
                    let found = token.describe();
                    return err(ParseErrorKind::Expected { expected: "a result name or '('", found }, s);
                }
            }
        };
        for (i, &(r, s)) in results.iter().enumerate() {
            if let Some(&(_, first)) = results[..i].iter().find(|(q, _)| *q == r) {
                return err(ParseErrorKind::DuplicateBinding { name: r.into(), first }, s);
            }
        }
        self.end_statement()?;
        self.function_body(name, span, &args, &results, |parser| loop {
            match parser.peek()? {
                Token::End => {
                    parser.next()?;
                }
                Token::Eof => return err(ParseErrorKind::Unterminated { function: name.into() }, span),
                // A statement only the main program has, at its own line.
                Token::Ident(word @ ("in" | "out" | "param" | "function" | "for"))
                    if !matches!(parser.peek_n(1)?, Token::Assign | Token::Comma) =>
                {
                    let what = match word {
                        "in" => "'in'",
                        "out" => "'out'",
                        "param" => "'param'",
                        "for" => "a run",
                        _ => "a function definition",
                    };
                    let line = span.start.line;
                    let kind = ParseErrorKind::NotInFunction { what, function: name.into(), line };
                    return err(kind, parser.peek_span());
                }
                Token::Ident(_) if parser.peek_n(1)? == Token::LParen => {
                    let line = span.start.line;
                    let what = "a function definition";
                    let kind = ParseErrorKind::NotInFunction { what, function: name.into(), line };
                    return err(kind, parser.peek_span());
                }
                Token::Ident("end") if matches!(parser.peek_n(1)?, Token::End | Token::Eof) => {
                    parser.next()?;
                    parser.end_statement()?;
                    return parser.result_nodes(name, &results);
                }
                Token::Ident(_) if parser.peek_n(1)? == Token::Assign => parser.assignment()?,
                Token::Ident(_) if parser.peek_n(1)? == Token::Comma => parser.call_statement()?,
                _ => {
                    return parser.expected(
                        "a statement of the function's body ('name = expression', 'a, b = f(...)') or 'end'",
                    )
                }
            }
        })
    }

    /// `NAME(ARGS) = EXPRESSION`: a function with one result, named as
    /// the function.
    fn short_function(&mut self) -> Result<(), ParseError> {
        let (name, span) = self.function_name()?;
        let args = self.name_list(Token::LParen, Token::RParen, "an argument name")?;
        if self.peek()? != Token::Assign {
            return self.expected("'=' and the function's value");
        }
        self.next()?;
        // The result is the expression itself, not a name: an argument or a
        // binding may share the function's name without taking its place.
        self.function_body(name, span, &args, &[(name, span)], |parser| {
            let node = parser.expression()?;
            parser.end_statement()?;
            Ok(vec![node])
        })
    }

    /// A function's name, read and checked: not reserved, not taken.
    fn function_name(&mut self) -> Result<(&'s str, Span), ParseError> {
        let (token, span) = self.next()?;
        let Token::Ident(name) = token else {
            return err(
                ParseErrorKind::Expected { expected: "a function name", found: token.describe() },
                span,
            );
        };
        if let Some(f) = self.in_function {
            let found = format!(
                "a definition of '{}' inside '{}'",
                crate::shown::Shown(name),
                crate::shown::Shown(f)
            );
            return err(
                ParseErrorKind::Expected { expected: "a statement of the function's body", found },
                span,
            );
        }
        check_reserved(name, span)?;
        if let Some(i) = self.defined_index(name) {
            return err(
                ParseErrorKind::DuplicateFunction { name: name.into(), line: self.defined[i].1 },
                span,
            );
        }
        if let Some(t) = self.tables.get(name) {
            let first = span_at(self.source, t.offset, name.len());
            return err(ParseErrorKind::DuplicateBinding { name: name.into(), first }, span);
        }
        if let Some(b) = self.names.get(name) {
            let first = span_at(self.source, b.offset, name.len());
            return err(ParseErrorKind::DuplicateBinding { name: name.into(), first }, span);
        }
        Ok((name, span))
    }

    /// `(a, b, ...)`: one or more names between `open` and `close`.
    fn name_list(
        &mut self,
        open: Token<'_>,
        close: Token<'_>,
        what: &'static str,
    ) -> Result<Vec<(&'s str, Span)>, ParseError> {
        let (token, span) = self.next()?;
        if token != open {
            return err(ParseErrorKind::Expected { expected: "'('", found: token.describe() }, span);
        }
        let mut names = vec![];
        loop {
            match self.next()? {
                (Token::Ident(name), span) => names.push((name, span)),
                (token, span) => {
                    return err(ParseErrorKind::Expected { expected: what, found: token.describe() }, span)
                }
            }
            match self.next()? {
                (Token::Comma, _) => {}
                (token, _) if token == close => return Ok(names),
                (token, span) => {
                    return err(
                        ParseErrorKind::Expected { expected: "',' or ')'", found: token.describe() },
                        span,
                    )
                }
            }
        }
    }

    /// Reads a function's body with `read` in a scope of its own, over
    /// `args`, and defines the function `name` computing `results`.
    fn function_body(
        &mut self,
        name: &'s str,
        span: Span,
        args: &[(&'s str, Span)],
        results: &[(&'s str, Span)],
        read: impl FnOnce(&mut Self) -> Result<Vec<NodeId>, ParseError>,
    ) -> Result<(), ParseError> {
        let outer = self.swap_scope(Scope::default());
        self.in_function = Some(name);
        let body = (|| {
            for &(arg, s) in args {
                self.declare_input(arg, s)?;
            }
            read(self)
        })();
        self.in_function = None;
        let scope = self.swap_scope(outer);
        let roots = body?;
        let kernel = Kernel::new(scope.dag, roots, args.len()).expect("a body reads only its arguments");
        let arg_names = args.iter().map(|(a, _)| a.to_string()).collect();
        let result_names = results.iter().map(|(r, _)| r.to_string()).collect();
        let function = FunctionDef::new(name.to_string(), arg_names, result_names, kernel);
        self.defined.push((Arc::new(function), span.start.line));
        Ok(())
    }

    /// The nodes the names `results` of function `function` are bound to.
    fn result_nodes(
        &mut self,
        function: &str,
        results: &[(&'s str, Span)],
    ) -> Result<Vec<NodeId>, ParseError> {
        let mut nodes = Vec::with_capacity(results.len());
        for &(r, s) in results {
            match self.names.get(r) {
                Some(b) => nodes.push(b.node),
                None => {
                    let kind =
                        ParseErrorKind::UnboundResult { name: r.to_string(), function: function.to_string() };
                    return err(kind, s);
                }
            }
        }
        Ok(nodes)
    }

    /// The index of the defined function `name`.
    fn defined_index(&self, name: &str) -> Option<usize> {
        self.defined.iter().position(|(f, _)| f.name() == name)
    }

    /// The names of an `in` line, or of a `param` line.
    fn input_list(&mut self, params: bool) -> Result<(), ParseError> {
        // Plain input names are bound together, when the line ends or
        // something else comes, and before any error after them.
        let mut run: Vec<(&'s str, Span)> = Vec::new();
        let listed = self.names_listed(params, &mut run);
        let bound = self.declare_input_run(&run);
        bound.and(listed)
    }

    /// The names of an `in` or `param` line, plain input names set aside in
    /// `run` (each one before any declared after it).
    fn names_listed(&mut self, params: bool, run: &mut Vec<(&'s str, Span)>) -> Result<(), ParseError> {
        loop {
            let runs = !params && self.in_function.is_none() && self.tables.is_empty();
            let (token, span) = self.next()?;
            let Token::Ident(name) = token else {
                let expected = if params { "a parameter name" } else { "an input name" };
                return err(ParseErrorKind::Expected { expected, found: token.describe() }, span);
            };
            if self.peek()? == Token::LBracket {
                let declared = self.declare_input_run(run);
                run.clear();
                declared?;
                self.declare_table(name, span, params)?;
            } else if params {
                self.declare_param(name, span)?;
            } else if runs {
                run.push((name, span));
            } else {
                self.declare_input(name, span)?;
            }
            match self.peek()? {
                Token::Comma => {
                    self.next()?;
                }
                _ => return self.end_statement(),
            }
        }
    }

    /// Declares the plain input names of `run` in order, as
    /// [`Parser::declare_input`] on each would (the same nodes, and the
    /// first error), binding their names together
    /// ([`Names::insert_all_new`]).
    fn declare_input_run(&mut self, run: &[(&'s str, Span)]) -> Result<(), ParseError> {
        let mut bindings = Vec::with_capacity(run.len());
        let mut refused = Ok(());
        for &(name, span) in run {
            if let Err(e) = self.leaf_name(name, span) {
                refused = Err(e);
                break;
            }
            let node = self.dag.input(self.inputs.len());
            self.spans.fill(&self.dag, span);
            self.inputs.push(name.to_string());
            bindings.push((name, Binding { node, offset: span.start.offset, is_input: true }));
        }
        if let Err((i, b)) = self.names.insert_all_new(&bindings) {
            let (name, span) = run[i];
            let first = span_at(self.source, b.offset, name.len());
            return err(ParseErrorKind::DuplicateBinding { name: name.into(), first }, span);
        }
        refused
    }

    /// Declares given variable names as the inputs, in order. Their spans
    /// are within the names themselves, not the source.
    fn declare_inputs(&mut self, names: &[&'s str]) -> Result<(), ParseError> {
        for name in names {
            let (token, span) = Lexer::new(name).next_token()?;
            if token != Token::Ident(name) {
                return err(
                    ParseErrorKind::Expected {
                        expected: "a variable name",
                        found: format!("'{}'", crate::shown::Shown(name)),
                    },
                    span,
                );
            }
            self.declare_input(name, span)?;
        }
        Ok(())
    }

    /// Declares the next input, `name`, and returns its node.
    fn declare_input(&mut self, name: &'s str, span: Span) -> Result<NodeId, ParseError> {
        let node = self.declare_leaf(name, span, self.inputs.len())?;
        self.inputs.push(name.to_string());
        Ok(node)
    }

    /// Declares the next parameter, `name`, and returns its node.
    fn declare_param(&mut self, name: &'s str, span: Span) -> Result<NodeId, ParseError> {
        let node = self.declare_leaf(name, span, PARAM_BASE as usize + self.params.len())?;
        self.params.push(name.to_string());
        Ok(node)
    }

    /// Binds `name` to input node `k`, unless it is reserved or bound, and
    /// returns the node.
    fn declare_leaf(&mut self, name: &'s str, span: Span, k: usize) -> Result<NodeId, ParseError> {
        self.leaf_name(name, span)?;
        if self.in_function.is_none() && !self.tables.is_empty() && self.tables.contains_key(name) {
            return self.check_new_name(name, span).map(|_| NodeId::NONE);
        }
        // The node is made before the name is checked (one probe): on a
        // duplicate the parse fails, and an unused input changes nothing.
        let node = self.dag.input(k);
        if let Err(b) =
            self.names.insert_new(name, Binding { node, offset: span.start.offset, is_input: true })
        {
            let first = span_at(self.source, b.offset, name.len());
            return err(ParseErrorKind::DuplicateBinding { name: name.into(), first }, span);
        }
        self.spans.fill(&self.dag, span);
        Ok(node)
    }

    /// Checks that `name` may name an input or a parameter: it is neither
    /// reserved nor a function's.
    fn leaf_name(&self, name: &str, span: Span) -> Result<(), ParseError> {
        check_reserved(name, span)?;
        if self.defined_index(name).is_some() {
            return err(ParseErrorKind::ReservedName { name: name.into(), what: "a function" }, span);
        }
        Ok(())
    }

    fn output(&mut self) -> Result<(), ParseError> {
        let named = matches!(self.peek()?, Token::Ident(_))
            && (self.peek_n(1)? == Token::Assign || self.entry_then_assign()?);
        let target = if named {
            let target = self.target()?;
            self.next()?; // '='
            Some(target)
        } else {
            None
        };
        let start = self.peek_span();
        let node = self.expression()?;
        let position = self.outputs.len() + 1;
        let by_position = target.is_none();
        let (name, span) = match target {
            Some(target) => {
                let (name, span) = (target.name(), target.span());
                self.bind_target(target, node);
                (name, span)
            }
            None => (format!("out{position}"), start),
        };
        // Two named outputs cannot share a name (the second binding fails
        // first), so only a name an unnamed output could have is kept.
        if is_positional_name(&name) {
            if let Some(&(other, other_by_position)) = self.output_names.get(&name) {
                let positional = if other_by_position { other } else { position };
                return err(ParseErrorKind::DuplicateOutput { name, other: positional }, span);
            }
            self.output_names.insert(name.clone(), (position, by_position));
        }
        self.outputs.push(Output { name, node });
        self.end_statement()
    }

    /// Whether the next tokens are an entry `name[...]` and `=`: the name
    /// of an output. Looks at most 32 tokens ahead (an index is short).
    fn entry_then_assign(&mut self) -> Result<bool, ParseError> {
        if self.peek_n(1)? != Token::LBracket {
            return Ok(false);
        }
        for n in 2..32 {
            match self.peek_n(n)? {
                Token::RBracket => return Ok(self.peek_n(n + 1)? == Token::Assign),
                Token::End | Token::Eof | Token::LBracket => return Ok(false),
                _ => {}
            }
        }
        Ok(false)
    }

    /// What an assignment or a call statement binds: a name, or an entry
    /// of a table.
    fn target(&mut self) -> Result<Target<'s>, ParseError> {
        if self.peek_n(1)? == Token::LBracket {
            return self.entry_target();
        }
        let (name, span) = self.binding_name()?;
        Ok(Target::Name(name, span))
    }

    fn bind_target(&mut self, target: Target<'s>, node: NodeId) {
        match target {
            Target::Name(name, span) => self.bind(name, span, node),
            Target::Entry { table, at, span, .. } => self.bind_entry(table, at, span, node),
        }
    }

    /// The name of `name = ...`, checked to be bindable.
    fn binding_name(&mut self) -> Result<(&'s str, Span), ParseError> {
        let (token, span) = self.next()?;
        let Token::Ident(name) = token else { unreachable!("callers peeked an identifier") };
        check_reserved(name, span)?;
        if self.defined_index(name).is_some() {
            return err(ParseErrorKind::ReservedName { name: name.into(), what: "a function" }, span);
        }
        if self.names.defer && self.run.is_none() && self.tables.is_empty() {
            // Whether it is bound already is found later (`bound_twice`).
            let index = self.names.claim(name, span.start.offset);
            self.claims.push((span.start.offset, index));
            return Ok((name, span));
        }
        let bound = self.names.get(name);
        self.binding_error(name, span, bound).map(|()| (name, span))
    }

    /// The error of binding `name` at `span`, bound already to `bound`.
    fn binding_error(&mut self, name: &'s str, span: Span, bound: Option<Binding>) -> Result<(), ParseError> {
        match bound {
            Some(b) if b.is_input && matches!(self.dag.op(b.node), Op::Input(k) if k >= PARAM_BASE) => {
                err(ParseErrorKind::AssignToParameter { name: name.into() }, span)
            }
            Some(b) if b.is_input => err(ParseErrorKind::AssignToInput { name: name.into() }, span),
            Some(b) => {
                let first = span_at(self.source, b.offset, name.len());
                err(ParseErrorKind::DuplicateBinding { name: name.into(), first }, span)
            }
            None if self.run.is_some() || !self.tables.is_empty() => self.check_new_name(name, span),
            None => Ok(()),
        }
    }

    /// The error of the first name bound twice, which `binding_name` would
    /// have found, if names were claimed and put in the table later.
    fn bound_twice(&mut self) -> Result<(), ParseError> {
        self.names.index();
        let Some((index, first)) = self.names.twice else { return Ok(()) };
        let (name, binding) = self.names.bindings[index];
        let span = span_at(self.source, binding.offset, name.len());
        self.binding_error(name, span, Some(first))
    }

    fn bind(&mut self, name: &'s str, span: Span, node: NodeId) {
        let offset = span.start.offset;
        match self.claims.iter().position(|&(claimed, _)| claimed == offset) {
            Some(at) => {
                let (_, index) = self.claims.swap_remove(at);
                self.names.settle(index, node);
            }
            None => self.names.insert(name, Binding { node, offset, is_input: false }),
        }
    }

    fn single_expression(&mut self) -> Result<(), ParseError> {
        while self.peek()? == Token::End {
            self.next()?;
        }
        let node = self.expression()?;
        while self.peek()? == Token::End {
            self.next()?;
        }
        if self.peek()? != Token::Eof {
            return self.expected("an operator or the end of the expression");
        }
        self.outputs.push(Output { name: "f".into(), node });
        Ok(())
    }

    // --- expressions ------------------------------------------------------

    /// Parses an expression up to (not including) the end of the statement.
    fn expression(&mut self) -> Result<NodeId, ParseError> {
        let value = self.expression_value()?;
        self.node_of(value)
    }

    /// [`Parser::expression`], which may also be a call of a function
    /// with several results.
    fn expression_value(&mut self) -> Result<Value, ParseError> {
        let base_values = self.values.len();
        let base_frames = self.frames.len();
        loop {
            self.operand()?;
            if !self.operators()? {
                break;
            }
        }
        self.reduce_while(base_frames, |_| true)?;
        if let Some(frame) = self.frames.pop() {
            let span = match frame {
                Frame::Paren(s) | Frame::Call { span: s, .. } => s,
                _ => unreachable!("reduce_while stops only at parentheses and calls"),
            };
            return err(ParseErrorKind::Unclosed, span);
        }
        debug_assert_eq!(self.values.len(), base_values + 1);
        Ok(self.values.pop().expect("an expression leaves one value"))
    }

    /// Reads prefix operators, parentheses and calls up to one operand.
    fn operand(&mut self) -> Result<(), ParseError> {
        loop {
            let (token, span) = self.next()?;
            match token {
                Token::Minus => self.frames.push(Frame::Neg(span)),
                Token::Plus => self.frames.push(Frame::Plus),
                Token::LParen => self.frames.push(Frame::Paren(span)),
                Token::Number(v) => {
                    let node = self.dag.constant(v);
                    return self.push_node(node, span);
                }
                Token::Ident(_) if self.starts_prebuilt(span) => {
                    return self.prebuilt(span);
                }
                Token::Ident("sum") if self.mode == Mode::Program && self.peek()? == Token::LParen => {
                    return self.table_sum(span);
                }
                Token::Ident(name) if self.peek()? == Token::LParen => {
                    let callee = match name {
                        "ifelse" => Callee::IfElse,
                        _ => match Op::from_function_name(name) {
                            Some(op) => Callee::Op(op),
                            None if self.defined_index(name).is_some() => {
                                Callee::Defined(self.defined_index(name).expect("checked"))
                            }
                            None if self.user_function(name).is_some() => {
                                Callee::User(self.user_function(name).expect("checked"))
                            }
                            None => return Err(self.unknown_function(name, span)),
                        },
                    };
                    let (_, paren) = self.next()?;
                    let base = self.values.len();
                    self.frames.push(Frame::Call { callee, name, span: span.to(paren), base });
                    if self.peek()? == Token::RParen {
                        let (_, close) = self.next()?;
                        self.frames.pop();
                        return self.finish_call(callee, name, span.to(close), base);
                    }
                    self.names_as_arguments()?;
                }
                Token::Ident(name) if self.mode == Mode::Program && self.peek()? == Token::LBracket => {
                    return self.entry(name, span);
                }
                Token::Ident(name) => {
                    let node = self.lookup(name, span)?;
                    return self.push_node(node, span);
                }
                other => {
                    return err(
                        ParseErrorKind::Expected { expected: "an expression", found: other.describe() },
                        span,
                    )
                }
            }
        }
    }

    /// Reads the arguments that are a name alone and a comma (`a,` in
    /// `f(a, b, 2*c)`), where a call's argument starts: each is what an
    /// operand and its comma make, without the operators' frames, which a
    /// call with many shared arguments (a model's parameters passed to
    /// every data point's call) spends most of its parse on. Stops before
    /// any other argument, before the last one (its `)` closes the call),
    /// and where a token is malformed, which the general path reports.
    fn names_as_arguments(&mut self) -> Result<(), ParseError> {
        loop {
            let Ok(&(Token::Ident(name), span)) = self.tokens.peek(0) else {
                return Ok(());
            };
            if !matches!(self.tokens.peek(1), Ok((Token::Comma, _))) || self.starts_prebuilt(span) {
                return Ok(());
            }
            self.tokens.advance();
            self.tokens.advance();
            let node = self.lookup(name, span)?;
            self.push_node(node, span)?;
        }
    }

    /// Reads closing parentheses and one binary operator or comma. Returns
    /// whether another operand follows.
    fn operators(&mut self) -> Result<bool, ParseError> {
        loop {
            let token = self.peek()?;
            if let Some(op) = Binary::of(token) {
                self.next()?;
                let p = op.precedence();
                let right_assoc = matches!(op, Binary::Arith(Op::Pow));
                self.reduce_while(0, |q| q > p || (q == p && !right_assoc))?;
                self.frames.push(Frame::Binary(op));
                return Ok(true);
            }
            match token {
                Token::Comma => {
                    let (_, span) = self.next()?;
                    self.reduce_while(0, |_| true)?;
                    return match self.frames.last() {
                        Some(Frame::Call { .. }) => {
                            self.names_as_arguments()?;
                            Ok(true)
                        }
                        _ => err(
                            ParseErrorKind::Expected { expected: "an operator", found: "','".into() },
                            span,
                        ),
                    };
                }
                Token::RParen => {
                    let (_, close) = self.next()?;
                    self.reduce_while(0, |_| true)?;
                    match self.frames.pop() {
                        Some(Frame::Paren(open)) => {
                            let value = self.values.pop().expect("a parenthesis holds a value");
                            self.values.push(value.spanning(open.to(close)));
                        }
                        Some(Frame::Call { callee, name, span, base }) => {
                            self.finish_call(callee, name, span.to(close), base)?;
                        }
                        _ => return err(ParseErrorKind::Unmatched, close),
                    }
                }
                Token::End | Token::Eof => return Ok(false),
                _ => return self.expected("an operator or the end of the statement"),
            }
        }
    }

    /// Pops and applies operator frames above `floor` while `pred` accepts
    /// their precedence; stops at parentheses and calls.
    fn reduce_while(&mut self, floor: usize, pred: impl Fn(u8) -> bool) -> Result<(), ParseError> {
        while self.frames.len() > floor {
            match self.frames.last().and_then(Frame::precedence) {
                Some(p) if pred(p) => {}
                _ => break,
            }
            match self.frames.pop().expect("checked above") {
                Frame::Neg(span) => {
                    let value = self.values.pop().expect("operand");
                    let a = self.node_of(value)?;
                    let node = self.dag.neg(a);
                    self.push_node(node, span.to(value.span()))?;
                }
                Frame::Plus => {
                    let value = self.values.pop().expect("operand");
                    let a = self.node_of(value)?;
                    self.push_node(a, value.span())?;
                }
                Frame::Binary(op) => {
                    let rhs = self.values.pop().expect("right operand");
                    let lhs = self.values.pop().expect("left operand");
                    let span = lhs.span().to(rhs.span());
                    let (a, b) = (self.node_of(lhs)?, self.node_of(rhs)?);
                    match op {
                        Binary::Arith(op) => {
                            let node = self.dag.apply(op, &[a, b]);
                            self.push_node(node, span)?;
                        }
                        Binary::Compare(c) => self.values.push(Value::Cond(c, a, b, span)),
                    }
                }
                Frame::Paren(_) | Frame::Call { .. } => unreachable!("precedence() is None"),
            }
        }
        Ok(())
    }

    /// Whether a prebuilt function ([`Functions::prebuilt`]) starts with
    /// the token at `span`.
    fn starts_prebuilt(&self, span: Span) -> bool {
        self.functions.is_some_and(|f| f.prebuilt(span.start.offset).is_some())
    }

    /// Inlines the prebuilt function that starts with the token at `span`
    /// (just read) and skips the rest of its text.
    fn prebuilt(&mut self, span: Span) -> Result<(), ParseError> {
        let functions = self.functions.expect("checked by the caller");
        let (end, function) = functions.prebuilt(span.start.offset).expect("checked by the caller");
        let mut last = span;
        while self.tokens.peek(0)?.1.start.offset < end {
            last = self.next()?.1;
        }
        let span = span.to(last);
        let args =
            function.inputs.iter().map(|p| self.variable(p.as_str(), span)).collect::<Result<Vec<_>, _>>()?;
        let node = self.inline(function, args, span)?;
        self.push_node(node, span)
    }

    /// The error for a call of `name`, which no function defines here: a
    /// recursive call, a call of a function defined below, or a typo.
    fn unknown_function(&self, name: &str, span: Span) -> ParseError {
        let kind = if self.in_function == Some(name) {
            ParseErrorKind::Recursion { name: name.into() }
        } else if let Some(line) = defined_later(self.source, span.end.offset as usize, name) {
            ParseErrorKind::DefinedBelow { name: name.into(), line }
        } else {
            let mut names: Vec<&str> = Op::function_names().collect();
            names.extend(self.defined.iter().map(|(f, _)| f.name()));
            let hint = DidYouMean::closest(name, names);
            ParseErrorKind::UnknownFunction { name: name.into(), hint }
        };
        ParseError { kind, span }
    }

    fn user_function(&self, name: &str) -> Option<&'s Program> {
        self.functions.and_then(|f| f.function(name))
    }

    /// Inlines a user function's value with its inputs bound to `args` and
    /// its parameters to the expression's parameters of the same names.
    fn inline(
        &mut self,
        function: &'s Program,
        mut args: Vec<NodeId>,
        span: Span,
    ) -> Result<NodeId, ParseError> {
        for name in &function.params {
            args.push(self.parameter(name, span)?);
        }
        let root = function.outputs[0].node;
        Ok(self.dag.import(&function.dag, &[root], Some(&args))[0])
    }

    /// The parameter `name` of an inlined function (at `span`): the
    /// expression's parameter of that name, declared on first use.
    fn parameter(&mut self, name: &'s str, span: Span) -> Result<NodeId, ParseError> {
        match self.names.node(name) {
            Some(node) if matches!(self.dag.op(node), Op::Input(k) if k >= PARAM_BASE) => Ok(node),
            Some(_) => err(ParseErrorKind::ParameterAndVariable { name: name.into() }, span),
            None => self.declare_param(name, span),
        }
    }

    fn finish_call(
        &mut self,
        callee: Callee<'s>,
        name: &str,
        span: Span,
        base: usize,
    ) -> Result<(), ParseError> {
        let found = self.values.len() - base;
        let expected = match callee {
            Callee::Op(op) => op.arity(),
            Callee::IfElse => 3,
            Callee::Defined(i) => self.defined[i].0.args().len(),
            Callee::User(f) => f.inputs.len(),
        };
        if found != expected {
            return err(ParseErrorKind::WrongArity { name: name.into(), expected, found }, span);
        }
        let node = match callee {
            Callee::Op(op) => {
                let mut nodes = [NodeId::from_index(0); 4];
                for (slot, value) in nodes.iter_mut().zip(&self.values[base..]) {
                    *slot = self.node_of(*value)?;
                }
                self.dag.apply(op, &nodes[..found])
            }
            Callee::IfElse => {
                let Value::Cond(cmp, a, b, _) = self.values[base] else {
                    return err(ParseErrorKind::MissingComparison, self.values[base].span());
                };
                let (x, y) = (self.node_of(self.values[base + 1])?, self.node_of(self.values[base + 2])?);
                self.dag.apply(Op::Select(cmp), &[a, b, x, y])
            }
            Callee::Defined(i) => {
                let nodes =
                    self.values[base..].iter().map(|v| self.node_of(*v)).collect::<Result<Vec<_>, _>>()?;
                let function = Arc::clone(&self.defined[i].0);
                let results = self.dag.call(&function, &nodes);
                if results.len() > 1 {
                    let Op::Call(c) = self.dag.op(results[0]) else { unreachable!("a call's results") };
                    self.values.truncate(base);
                    self.spans.fill(&self.dag, span);
                    self.values.push(Value::Results { site: c.site, function: i, span });
                    return Ok(());
                }
                results[0]
            }
            Callee::User(f) => {
                let nodes =
                    self.values[base..].iter().map(|v| self.node_of(*v)).collect::<Result<Vec<_>, _>>()?;
                self.inline(f, nodes, span)?
            }
        };
        self.values.truncate(base);
        self.push_node(node, span)
    }

    fn push_node(&mut self, node: NodeId, span: Span) -> Result<(), ParseError> {
        self.spans.fill(&self.dag, span);
        self.values.push(Value::Node(node, span));
        Ok(())
    }

    #[inline]
    fn node_of(&self, value: Value) -> Result<NodeId, ParseError> {
        match value {
            Value::Node(n, _) => Ok(n),
            _ => Err(self.not_a_node(value)),
        }
    }

    /// Why `value`, not a node, cannot be an operand.
    #[cold]
    fn not_a_node(&self, value: Value) -> ParseError {
        let (kind, span) = match value {
            Value::Node(_, span) => unreachable!("{span:?}: a node is an operand"),
            Value::Cond(.., span) => (ParseErrorKind::MisplacedComparison, span),
            Value::Results { function, span, .. } => {
                let f = &self.defined[function].0;
                (ParseErrorKind::SeveralResults { name: f.name().into(), count: f.results().len() }, span)
            }
        };
        ParseError { kind, span }
    }

    /// The node a name stands for: a binding, a constant, or (when
    /// discovering variables) a new input.
    #[inline]
    fn lookup(&mut self, name: &'s str, span: Span) -> Result<NodeId, ParseError> {
        match self.names.node(name) {
            Some(node) => Ok(node),
            None => self.lookup_unbound(name, span),
        }
    }

    /// [`Parser::lookup`] of a name the symbol table does not hold.
    #[inline(never)]
    fn lookup_unbound(&mut self, name: &'s str, span: Span) -> Result<NodeId, ParseError> {
        match name {
            "pi" => return Ok(self.dag.constant(std::f64::consts::PI)),
            "e" => return Ok(self.dag.constant(std::f64::consts::E)),
            _ => {}
        }
        if let Some(run) = self.run.filter(|r| r.index == name && self.in_function.is_none()) {
            return Ok(self.dag.constant(run.value as f64));
        }
        if self.in_function.is_none() {
            self.table_as_value(name, span)?;
        }
        check_reserved(name, span)?;
        if self.defined_index(name).is_some() {
            return err(ParseErrorKind::FunctionAsValue { name: name.into() }, span);
        }
        if let Some(f) = self.user_function(name) {
            let args =
                f.inputs.iter().map(|p| self.variable(p.as_str(), span)).collect::<Result<Vec<_>, _>>()?;
            return self.inline(f, args, span);
        }
        self.variable(name, span)
    }

    /// A variable of the expression: bound, a parameter the caller declared
    /// ([`Functions::is_parameter`]), or new when discovering.
    fn variable(&mut self, name: &'s str, span: Span) -> Result<NodeId, ParseError> {
        if let Some(node) = self.names.node(name) {
            return Ok(node);
        }
        if self.functions.is_some_and(|f| f.is_parameter(name)) {
            return self.declare_param(name, span);
        }
        match self.mode {
            Mode::Discover => self.declare_input(name, span),
            Mode::Given => err(ParseErrorKind::NotAVariable { name: name.into() }, span),
            Mode::Program if self.in_function.is_some() => {
                let function = self.in_function.unwrap_or_default().to_string();
                let hint = DidYouMean::closest(name, self.names.names());
                err(ParseErrorKind::OutsideFunction { name: name.into(), function, hint }, span)
            }
            Mode::Program => {
                if let Some(line) = bound_later(self.source, span.end.offset as usize, name) {
                    return err(ParseErrorKind::UsedBeforeBound { name: name.into(), line }, span);
                }
                let hint = DidYouMean::closest(name, self.names.names());
                err(ParseErrorKind::UnknownName { name: name.into(), hint }, span)
            }
        }
    }
}

/// The span of `len` bytes at byte `offset` of `source`.
fn span_at(source: &str, offset: u32, len: usize) -> Span {
    let offset = (offset as usize).min(source.len());
    let before = source.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() as u32 + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() as u32 + 1;
    let start = crate::span::Pos { offset: offset as u32, line, column };
    let end = crate::span::Pos { offset: (offset + len) as u32, line, column: column + len as u32 };
    Span { start, end }
}

/// Rejects function names, constants and keywords as variable names.
fn check_reserved(name: &str, span: Span) -> Result<(), ParseError> {
    match reserved(name) {
        None => Ok(()),
        Some(what) => err(ParseErrorKind::ReservedName { name: name.into(), what }, span),
    }
}

/// The line number of a later statement `name = ...` or `out name = ...`,
/// or a later `in` or `param` line declaring `name`, after byte `offset`,
/// if any. Only called on the error path.
fn bound_later(source: &str, offset: usize, name: &str) -> Option<u32> {
    let before = source[..offset].matches('\n').count() as u32;
    source[offset..].split('\n').enumerate().skip(1).find_map(|(i, line)| {
        let line = line.split('#').next().unwrap_or("");
        line.split(';').find_map(|stmt| {
            let stmt = stmt.trim_start();
            let declared = stmt.strip_prefix("in ").or_else(|| stmt.strip_prefix("param "));
            if declared.is_some_and(|names| names.split(',').any(|n| n.trim() == name)) {
                return Some(before + i as u32 + 1);
            }
            let stmt = stmt.strip_prefix("out ").map(str::trim_start).unwrap_or(stmt);
            let rest = stmt.strip_prefix(name)?.trim_start();
            (rest.starts_with('=') && !rest.starts_with("==")).then_some(before + i as u32 + 1)
        })
    })
}

/// The line of a later definition of function `name` (`function name(...`
/// or `name(...) = ...`) after byte `offset`, if any. Only called on the
/// error path.
fn defined_later(source: &str, offset: usize, name: &str) -> Option<u32> {
    let before = source[..offset].matches('\n').count() as u32;
    source[offset..].split('\n').enumerate().skip(1).find_map(|(i, line)| {
        let line = line.split('#').next().unwrap_or("").trim_start();
        let (long, rest) = match line.strip_prefix("function") {
            Some(rest) if rest.starts_with(char::is_whitespace) => (true, rest.trim_start()),
            _ => (false, line),
        };
        let rest = rest.strip_prefix(name)?.trim_start().strip_prefix('(')?;
        let after = rest.split_once(')').map_or("", |(_, after)| after.trim_start());
        let short = after.starts_with('=') && !after.starts_with("==");
        (long || short).then_some(before + i as u32 + 1)
    })
}

/// Whether `name` is the name of an unnamed output: `out` and its position.
fn is_positional_name(name: &str) -> bool {
    name.strip_prefix("out")
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval1(src: &str, x: &[f64]) -> f64 {
        let p = parse_program(src).unwrap();
        crate::eval::eval_program(&p, x)[0]
    }

    proptest::proptest! {
        /// The lines a substring search finds are those, numbered alike,
        /// that reading every line finds: across every kind of line break,
        /// empty lines, a byte order mark, and several matches on a line.
        #[test]
        fn lines_with_a_tag_are_found_as_reading_every_line_finds_them(
            bom in proptest::bool::ANY,
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["\n", "\r\n", "\r", "# @point 1", "@point", " x", "@poin", "é"]),
                0..40,
            ),
        ) {
            let source = if bom { "\u{feff}".to_string() } else { String::new() } + &parts.concat();
            let expected: Vec<(u32, &str)> = crate::source::source_lines(&source)
                .enumerate()
                .filter(|(_, line)| line.contains("@point"))
                .map(|(i, line)| (i as u32 + 1, line))
                .collect();
            let found: Vec<(u32, &str)> = lines_with(&source, "@point").collect();
            proptest::prop_assert_eq!(found, expected, "{:?}", source);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        /// An `in` line of thousands of names (bound together, in the
        /// order of their places in the table) declares what one name at a
        /// time declares: the inputs in order, each read back, and the first
        /// error of the line, a name bound twice (on the line or before it),
        /// a reserved one, or not a name.
        #[test]
        fn a_long_in_line_declares_as_name_by_name(
            long in proptest::bool::ANY,
            earlier in proptest::bool::ANY,
            twice in proptest::option::of((0usize..6000, 0usize..6000)),
            refused in proptest::option::of((0usize..6000, proptest::bool::ANY)),
        ) {
            let n = if long { 5000 } else { 40 };
            let mut names: Vec<String> =
                (0..n).map(|i| if i % 3 == 0 { format!("a_long_name_{i}") } else { format!("v{i}") }).collect();
            let head = if earlier { "in w0, w1\n" } else { "" };
            // What the first error is, by the names' positions on the line.
            let mut errors: Vec<(usize, &str)> = vec![];
            if let Some((a, b)) = twice {
                let (first, again) = (a.min(b) % n, a.max(b) % n);
                if first < again {
                    names[again] = names[first].clone();
                    errors.push((again, "twice"));
                } else if earlier {
                    names[again] = "w1".into();
                    errors.push((again, "twice"));
                }
            }
            if let Some((at, reserved)) = refused {
                // Not first: `in` before anything but a name is another statement.
                let at = 1 + at % (n - 1);
                names[at] = if reserved { "sin".into() } else { "3".into() };
                errors.retain(|&(i, _)| i < at);
                errors.push((at, if reserved { "reserved" } else { "not a name" }));
            }
            let source = format!("{head}in {}\nout y = {} + {}\n", names.join(", "), names[1], names[n - 1]);
            let offset = |i: usize| {
                let line = head.len() + 3;
                line + names[..i].iter().map(|name| name.len() + 2).sum::<usize>()
            };
            match (parse_program(&source), errors.iter().min()) {
                (Ok(p), None) => {
                    let mut expected: Vec<String> = if earlier { vec!["w0".into(), "w1".into()] } else { vec![] };
                    expected.extend(names.iter().cloned());
                    proptest::prop_assert_eq!(&p.inputs, &expected);
                    let x: Vec<f64> = (0..expected.len()).map(|k| k as f64).collect();
                    let skip = if earlier { 2.0 } else { 0.0 };
                    let y = crate::eval::eval_program(&p, &x)[0];
                    proptest::prop_assert_eq!(y, 1.0 + skip + (n - 1) as f64 + skip);
                }
                (Err(e), Some(&(at, what))) => {
                    proptest::prop_assert_eq!(e.span.start.offset as usize, offset(at), "{}", what);
                    let kind_is_right = match (what, &e.kind) {
                        ("twice", ParseErrorKind::DuplicateBinding { name, first }) => {
                            let first_at = if name.starts_with('w') {
                                head.find("w1").expect("w1 is bound first")
                            } else {
                                offset(names.iter().position(|m| m == name).expect("bound"))
                            };
                            first.start.offset as usize == first_at
                        }
                        ("reserved", ParseErrorKind::ReservedName { .. }) => true,
                        ("not a name", ParseErrorKind::Expected { .. }) => true,
                        _ => false,
                    };
                    proptest::prop_assert!(kind_is_right, "{} at {}: {:?}", what, at, e);
                }
                (got, want) => proptest::prop_assert!(false, "{:?} against {:?}", got.err(), want),
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(600))]
        /// Names claimed and put in the table later parse a program as
        /// names bound one at a time do: the same program, or the same
        /// first error (a name bound twice, to an input, a parameter or a
        /// function; a name read before it is bound, or in its own
        /// definition; the results of calls, functions and runs).
        #[test]
        fn claimed_names_parse_as_names_bound_in_turn(
            lines in proptest::collection::vec((0usize..40, 0usize..12, 0usize..12, 0usize..12), 1..24),
        ) {
            let pool = ["a", "b", "c", "d_long_name_1", "ee", "f", "g1", "h2", "k", "m_long_name_3", "n", "o"];
            let mut source = String::from("function g(u, v) -> (r, s)\n  r = u*v\n  s = u - v\nend\nin x, y\nparam p\n");
            // Reads are mostly of names written before: programs parse,
            // or fail late.
            let mut written: Vec<&str> = vec![];
            for (kind, i, j, k) in lines {
                // Mostly statements that parse.
                let kind = if kind < 15 { kind } else { [0, 3, 4, 5, 6, 9, 12][kind % 7] };
                let read = |j: usize| match j {
                    11 => pool[j],
                    _ if written.is_empty() => "y",
                    _ => written[j % written.len()],
                };
                let (a, b, c) = (pool[i], read(j), read(k));
                if matches!(kind, 0..=4 | 6 | 9 | 12) {
                    written.push(a);
                }
                let line = match kind {
                    0..=2 => format!("{a} = {b} + {c}*x"),
                    3 => format!("{a} = x*y"),
                    4 => format!("out {a} = {b} - y"),
                    5 => format!("out {b}*p"),
                    6 => format!("{a}, {} = g({c}, x)", pool[(i + j) % 12]),
                    7 => format!("{a} = sin({a})"),
                    8 => format!("{a} = x + {b} + z"),
                    9 => format!("{a} = y"),
                    10 => ["x = 1", "p = 2", "g = 3", "in t, x", "function h(u) -> (w)\n  w = u\nend", "in q[2]"][i % 6].into(),
                    13 => format!("for i in range(2)\n  {a}[i] = x*i\n  out o{b}[i] = {c} + i\nend"),
                    14 => format!("{a} = sum({b}) + q[1]"),
                    11 => format!("out {a} = {a}"),
                    _ => format!("{a} = exp(x)"),
                };
                source.push_str(&line);
                source.push('\n');
            }
            source.push_str("out x\n");
            let summary = |defer: Option<(bool, usize)>| match parse_program_deferring(&source, defer) {
                Ok(p) => {
                    let x: Vec<f64> = (0..p.inputs.len()).map(|k| 0.5 + k as f64).collect();
                    let values = crate::eval::eval_program(&p, &x);
                    let names: Vec<&str> = p.outputs.iter().map(|o| o.name.as_str()).collect();
                    Ok(format!("{:?} {names:?} {values:?}", p.inputs))
                }
                Err(e) => Err(e),
            };
            let in_turn = summary(Some((false, 0)));
            // A cache of recent names of one entry or a few misses often,
            // and reads fall back to names not yet in the table.
            for recent in [1, 4, Recent::SIZE] {
                proptest::prop_assert_eq!(&summary(Some((true, recent))), &in_turn, "{} (cache of {})", source, recent);
            }
        }
    }

    #[test]
    fn a_long_in_line_with_a_table_declares_as_name_by_name() {
        // A table on the line: the names before it are bound first, and
        // those after it one at a time (a name may be the table's).
        for n in [40, 5000] {
            // The table at 10, a name at 5 or 20, and where the error is:
            // at the table (its name bound before), at a name after it (the
            // table's), or at a name bound twice before it.
            let cases = [("v3[2]", None, 10), ("t[2]", Some((20, "t")), 20), ("t[2]", Some((5, "v2")), 5)];
            for (table, name, wrong) in cases {
                let mut names: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
                names[10] = table.into();
                if let Some((at, name)) = name {
                    names[at] = name.into();
                }
                let source = format!("in {}\nout y = v1\n", names.join(", "));
                let offset = 3 + names[..wrong].iter().map(|name| name.len() + 2).sum::<usize>();
                let e = parse_program(&source).err().unwrap_or_else(|| panic!("{n}, {table}: parsed"));
                assert_eq!(e.span.start.offset as usize, offset, "{n}, {table}: {e:?}");
            }
        }
    }

    #[test]
    fn names_alike_in_their_first_bytes_stay_apart() {
        // Names of every length around the 8-byte head, alike in all but one
        // byte (first, last, or past the head), and enough of them that the
        // cache of recent names evicts: each reads its own node, first from
        // the table and then again from the cache, in another order.
        let mut names = vec![];
        for len in 1..=12 {
            for last in [b'a', b'b', b'_', b'9'] {
                for first in [b'x', b'y'] {
                    let mut name = vec![b'n'; len];
                    name[0] = first;
                    name[len - 1] = last;
                    names.push(String::from_utf8(name).unwrap());
                }
            }
        }
        names.extend((0..10_000).map(|i| format!("v{i}")));
        names.sort();
        names.dedup();
        // With the cache of recent names (a large program's table) and
        // without (a function body's).
        for cached in [true, false] {
            let mut table = Names::default();
            if cached {
                table.reserve(names.len());
            }
            assert_eq!(table.recent.0.is_empty(), !cached);
            for (i, name) in names.iter().enumerate() {
                let binding = Binding { node: NodeId::from_index(i), offset: i as u32, is_input: i % 2 == 0 };
                table.insert(name, binding);
            }
            for round in 0..3 {
                for (i, name) in names.iter().enumerate().rev().step_by(round + 1) {
                    assert_eq!(table.node(name), Some(NodeId::from_index(i)), "{name}");
                    assert_eq!(table.get(name).map(|b| b.offset), Some(i as u32), "{name}");
                }
            }
            for unbound in ["", "n", "xnnnnnnnnnnnnc", "xnnnnnnc", "v10000", "xnnnnnnnna_"] {
                assert!(table.node(unbound).is_none() && table.get(unbound).is_none(), "{unbound}");
            }
            let again = Binding { node: NodeId::NONE, offset: 0, is_input: false };
            let v5 = names.iter().position(|n| n == "v5").map(|i| i as u32);
            assert_eq!(table.insert_new("v5", again).err().map(|b| b.offset), v5);
        }
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(eval1("in x\nout -x^2", &[3.0]), -9.0);
        assert_eq!(eval1("in x\nout 2^3^2", &[0.0]), 512.0);
        assert_eq!(eval1("in x\nout 2**3**2", &[0.0]), 512.0);
        assert_eq!(eval1("in x\nout 10 - 4 - 3", &[0.0]), 3.0);
        assert_eq!(eval1("in x\nout 12 / 3 / 2", &[0.0]), 2.0);
        assert_eq!(eval1("in x\nout 1 + 2 * 3", &[0.0]), 7.0);
        assert_eq!(eval1("in x\nout (1 + 2) * 3", &[0.0]), 9.0);
        assert_eq!(eval1("in x\nout 2^-1", &[0.0]), 0.5);
        assert_eq!(eval1("in x\nout - -x", &[4.0]), 4.0);
        assert_eq!(eval1("in x\nout +x * -2", &[4.0]), -8.0);
    }

    #[test]
    fn functions_constants_and_ifelse() {
        assert_eq!(eval1("in x\nout ifelse(x < 0, -x, x)", &[-2.0]), 2.0);
        assert_eq!(eval1("in x\nout ifelse((x >= 1), 1, 0)", &[0.5]), 0.0);
        assert_eq!(eval1("in x, y\nout max(x, y) - min(x, y)", &[1.0, 4.0]), 3.0);
        assert!((eval1("in x\nout sin(pi/2) + log(e)", &[0.0]) - 2.0).abs() < 1e-15);
        assert_eq!(eval1("in x; t = x*x; out t + 1", &[3.0]), 10.0);
    }

    #[test]
    fn outputs_are_named_by_position() {
        let p = parse_program("in x\nout x\nout g = 2*x\nout x+1").unwrap();
        assert_eq!(p.output_names(), ["out1", "g", "out3"]);
    }

    #[test]
    fn errors_point_at_the_source() {
        let e = |src| parse_program(src).unwrap_err().to_string();
        assert_eq!(e("in x\nout y = sine(x)"), "2:9: unknown function 'sine'; did you mean 'sin'?");
        assert_eq!(e("in x\nout y = t\nt = x"), "2:9: 't' is used before it is bound (on line 3)");
        assert_eq!(e("in x\nx = 2"), "2:1: 'x' is an input and cannot be assigned");
        assert_eq!(e("in x\nout (x"), "2:5: unclosed '('");
        assert_eq!(e("in x\nout x)"), "2:6: unmatched ')'");
        assert_eq!(e("in x\nout x < 1"), "2:5: a comparison is only allowed as the first argument of ifelse");
        assert_eq!(e("in x\nout pow(x)"), "2:5: 'pow' takes 2 arguments, found 1");
        assert_eq!(e("in x\nout xx"), "2:5: unknown name 'xx'; did you mean 'x'?");
        assert_eq!(e("in x\nt = x\nt = 2"), "3:1: 't' is already bound (at 2:1)");
        assert_eq!(e("in sin"), "1:4: 'sin' is a function and cannot be used as a name");
        assert_eq!(e("in x\n"), "1:1: the program has no outputs; add a line such as 'out y = x^2'");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let n = 100_000;
        let src = format!("in x\nout {}x{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(eval1(&src, &[2.0]), 2.0);
        let src = format!("in x\nout {}x", "-".repeat(n + 1));
        assert_eq!(eval1(&src, &[2.0]), -2.0);
        let src = format!("in x\nout {}x", "sin(".repeat(n));
        assert!(parse_program(&src).is_err());
    }

    #[test]
    fn expression_mode_discovers_variables() {
        let p = parse_expr("sin(x*y) + x^2 + z").unwrap();
        assert_eq!(p.inputs, ["x", "y", "z"]);
        let p = parse_expr_with_inputs("x + 1", &["y", "x"]).unwrap();
        assert_eq!(p.inputs, ["y", "x"]);
        assert!(parse_expr_with_inputs("x + w", &["x"]).is_err());
        assert!(parse_expr("sin + 1").is_err());
    }

    struct Defs(Vec<(&'static str, Program)>);

    impl Functions for Defs {
        fn function(&self, name: &str) -> Option<&Program> {
            self.0.iter().find(|(n, _)| *n == name).map(|(_, p)| p)
        }
    }

    #[test]
    fn user_functions_are_inlined() {
        let f = parse_expr_with_inputs("sin(x*y) + x^2", &["x", "y"]).unwrap();
        let defs = Defs(vec![("f", f)]);
        let g = parse_expr_in("f(x, 2*x)", None, &defs).unwrap();
        assert_eq!(g.inputs, ["x"]);
        let want = (2.0f64 * 3.0 * 3.0).sin() + 9.0;
        assert_eq!(crate::eval::eval_program(&g, &[3.0]), [want]);
        // A bare name inlines the function over variables of the same names.
        let h = parse_expr_in("f + y", None, &defs).unwrap();
        assert_eq!(h.inputs, ["x", "y"]);
        let e = parse_expr_in("f(1)", None, &defs).unwrap_err();
        assert_eq!(e.to_string(), "1:1: 'f' takes 2 arguments, found 1");
    }

    /// The span of `text`'s byte range `range`, on line 1.
    fn span_of(text: &str, range: std::ops::Range<usize>) -> Span {
        let pos = |offset: usize| crate::span::Pos {
            offset: offset as u32,
            line: 1,
            column: text[..offset].chars().count() as u32 + 1,
        };
        Span { start: pos(range.start), end: pos(range.end) }
    }

    #[test]
    fn a_part_of_a_line_parses_with_the_spans_of_the_line() {
        // Non-ASCII text before the part: columns count chars, offsets bytes.
        let line = "größe = x + ä";
        let start = line.find('=').unwrap() + 2;
        let e = parse_expr_at(line, span_of(line, start..line.len()), None, &NoFunctions).unwrap_err();
        assert_eq!(e.to_string(), "1:13: unexpected character 'ä'");
        assert_eq!(e.span.start.offset as usize, line.find('ä').unwrap());
        let line = "größe = x + sine(x)";
        let start = line.find('=').unwrap() + 2;
        let e = parse_expr_at(line, span_of(line, start..line.len()), None, &NoFunctions).unwrap_err();
        assert_eq!(e.to_string(), "1:13: unknown function 'sine'; did you mean 'sin'?");
        assert_eq!((e.span.end.column, e.span.end.offset as usize), (17, line.find('(').unwrap()));
        // The text after the span is not read.
        let p = parse_expr_at("x + 1) junk", span_of("x + 1) junk", 0..5), None, &NoFunctions).unwrap();
        assert_eq!(crate::eval::eval_program(&p, &[2.0]), [3.0]);
    }

    #[test]
    fn a_part_of_a_line_is_parsed_without_recursion() {
        let n = 100_000;
        let line = format!("g = {}x{}", "(".repeat(n), ")".repeat(n));
        let p = parse_expr_at(&line, span_of(&line, 4..line.len()), None, &NoFunctions).unwrap();
        assert_eq!(p.inputs, ["x"]);
    }

    /// A function prebuilt over the text `diff(...)` at a given offset.
    struct Prebuilt(u32, u32, Program);

    impl Functions for Prebuilt {
        fn function(&self, _: &str) -> Option<&Program> {
            None
        }
        fn prebuilt(&self, offset: u32) -> Option<(u32, &Program)> {
            (offset == self.0).then_some((self.1, &self.2))
        }
    }

    #[test]
    fn prebuilt_parts_are_inlined_over_variables_of_the_same_names() {
        let line = "2 * diff(y*x, x) + z";
        let start = line.find('d').unwrap();
        let end = line.find(')').unwrap() + 1;
        let derivative = parse_expr_with_inputs("y + 0", &["y", "x"]).unwrap();
        let functions = Prebuilt(start as u32, end as u32, derivative);
        let p = parse_expr_at(line, span_of(line, 0..line.len()), None, &functions).unwrap();
        assert_eq!(p.inputs, ["y", "x", "z"], "variables in order of first appearance");
        assert_eq!(crate::eval::eval_program(&p, &[3.0, 5.0, 1.0]), [7.0]);
        // Over given variables, the prebuilt function's must be among them.
        let e = parse_expr_at(line, span_of(line, 0..line.len()), Some(&["x", "z"]), &functions).unwrap_err();
        assert_eq!(e.to_string(), "1:5: 'y' is not one of the given variables");
        assert_eq!(e.span.end.offset as usize, end);
    }

    #[test]
    fn brackets_are_tokens_but_not_expressions() {
        let e = |src| parse_program(src).unwrap_err().to_string();
        assert_eq!(e("in x\nout [x]"), "2:5: expected an expression, found '['");
        assert_eq!(e("in x\nout x]"), "2:6: expected an operator or the end of the statement, found ']'");
    }

    #[test]
    fn reserved_names_are_those_the_parser_rejects() {
        for name in Op::function_names() {
            assert_eq!(reserved(name), Some("a function"));
        }
        for name in ["pi", "e", "in", "out", "x", "diff", "sinx"] {
            let rejected = parse_program(&format!("in {name}\nout 1")).is_err();
            assert_eq!(reserved(name).is_some(), rejected, "{name}");
        }
    }

    #[test]
    fn reads_the_point_comment() {
        let p = parse_program("# @point 1 2.5\nin x, y\nout x*y").unwrap();
        assert_eq!(p.point, Some(vec![1.0, 2.5]));
        assert!(parse_program("# @point 1\nin x, y\nout x*y").is_err());
        let p = parse_program("# @point nan -inf\nin x, y\nout x*y").unwrap();
        assert!(p.point.as_ref().is_some_and(|p| p[0].is_nan() && p[1] == f64::NEG_INFINITY));
        let e = parse_program("# @point 1e400 1\nin x, y\nout x*y").unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::NumberOutOfRange("1e400".into()));
        assert!(parse_program("# @point infinity 1\nin x, y\nout x*y").is_err());
    }
}
