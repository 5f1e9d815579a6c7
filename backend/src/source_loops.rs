//! The loops of an emitted map kernel ([`MapKernel`]), for the C and Rust
//! emitters: the values computed once (`pre`), the rest, each map's body
//! and the chain after the maps (`post`) are each one function of the
//! emitted source, and each map is one `for` loop over its instances that
//! gathers its body's inputs, calls it and adds its results. A position
//! that moves with the instance `i` is `base + step * i` where the map's
//! column is affine ([`Column::Affine`]) and is read from a static index
//! table otherwise; one the same for every instance (a shared argument, a
//! summed result) is read, or added, once, outside the loop. Additions
//! come in [`MapKernel::eval`]'s order, so the emitted code computes what
//! the interpreter and the JIT compute, bit for bit.

use crate::blocks::Blocks;
use crate::header::write_list;
use frontend::map::{Column, MapKernel};
use frontend::{Kernel, NodeId};
use rustc_hash::FxHashMap;
use std::fmt::Write;

/// The emitted languages, where their loops differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Language {
    C,
    Rust,
}

/// The emitted names of the arrays past the input blocks, of the output and
/// of a body's input and output.
const PRE: &str = "pre";
const SCRATCH: &str = "scratch";
/// The constants taken out of the bodies ([`MapKernel::constants`]).
const CONSTANTS: &str = "constants";
const OUT: &str = "out";
const BODY_IN: &str = "a";
const BODY_OUT: &str = "r";

impl Language {
    /// A local array of `len` zeros.
    fn local_array(self, name: &str, len: usize) -> String {
        match self {
            // C has no empty arrays.
            Language::C => format!("double {name}[{}] = {{0}};", len.max(1)),
            Language::Rust => format!("let mut {name} = [0.0f64; {len}];"),
        }
    }

    /// A local pair of sums, of the even instances and of the odd ones,
    /// starting at zero.
    fn local_sums(self, name: &str) -> String {
        match self {
            Language::C => format!("double {name}[2] = {{0.0, 0.0}};"),
            Language::Rust => format!("let mut {name} = [0.0f64; 2];"),
        }
    }

    /// The head of the loop over `instances` instances `i`.
    fn for_each(self, instances: usize) -> String {
        match self {
            Language::C => format!("for (uint32_t i = 0; i < {instances}; i++) {{"),
            Language::Rust => format!("for i in 0..{instances}usize {{"),
        }
    }

    /// Sets the first `len` entries of `out` to zero.
    fn zero_out(self, len: usize) -> String {
        match self {
            Language::C => format!("for (uint32_t k = 0; k < {len}; k++) {OUT}[k] = 0.0;"),
            Language::Rust => format!("{OUT}[..{len}].fill(0.0);"),
        }
    }

    /// `array` passed to a function that reads it or, if `writes`, writes it.
    fn argument(self, array: &str, writes: bool) -> String {
        let local = [PRE, SCRATCH, BODY_IN, BODY_OUT].contains(&array);
        match (self, local, writes) {
            (Language::Rust, true, false) => format!("&{array}"),
            (Language::Rust, true, true) => format!("&mut {array}"),
            _ => array.to_string(),
        }
    }

    /// A comment of one line.
    fn comment(self, text: &str) -> String {
        match self {
            Language::C => format!("/* {text} */"),
            Language::Rust => format!("// {text}"),
        }
    }

    /// Entry `i` of the index table `name`, as an index.
    fn table_entry(self, name: &str) -> String {
        match self {
            Language::C => format!("{name}[i]"),
            Language::Rust => format!("{name}[i] as usize"),
        }
    }

    /// The definition of the index table `name`.
    fn write_table(self, s: &mut String, name: &str, entries: &[u32]) {
        let n = entries.len();
        match self {
            Language::C => write_list(s, &format!("static const uint32_t {name}[{n}] = {{"), entries, "};"),
            Language::Rust => {
                s.push_str("#[allow(non_upper_case_globals)]\n");
                write_list(s, &format!("static {name}: [u32; {n}] = ["), entries, "];");
            }
        }
    }

    /// The definition of the constants `name`, each read back exactly.
    fn write_constants(self, s: &mut String, name: &str, values: &[f64]) {
        let n = values.len();
        match self {
            Language::C => {
                let values: Vec<String> = values.iter().map(|&v| crate::emit_c::literal(v)).collect();
                write_list(s, &format!("static const double {name}[{n}] = {{"), &values, "};");
            }
            Language::Rust => {
                let values: Vec<String> = values.iter().map(|&v| crate::emit_rust::literal(v)).collect();
                s.push_str("#[allow(non_upper_case_globals)]\n");
                write_list(s, &format!("static {name}: [f64; {n}] = ["), &values, "];");
            }
        }
    }

    /// `local`, a name for the array `global`.
    fn alias(self, local: &str, global: &str) -> String {
        match self {
            Language::C => format!("const double *{local} = {global};"),
            Language::Rust => format!("let {local}: &[f64] = &{global};"),
        }
    }

    /// The head of `part`'s function: its arrays read, then the one written.
    pub(crate) fn function_head(self, part: &Part<'_>) -> String {
        let (reads, writes): (Vec<String>, String) = match self {
            Language::C => (
                part.reads.iter().map(|a| format!("const double *{a}")).collect(),
                format!("double *{}", part.writes),
            ),
            Language::Rust => (
                part.reads.iter().map(|a| format!("{a}: &[f64]")).collect(),
                format!("{}: &mut [f64]", part.writes),
            ),
        };
        let keyword = if self == Language::C { "static void" } else { "fn" };
        format!("{keyword} {}({}, {writes})", part.name, reads.join(", "))
    }
}

/// A position in one of the emitted function's arrays.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    array: &'static str,
    index: usize,
}

/// Arrays one after another, `(name, length)`, as a map kernel numbers the
/// positions of its input (the blocks, the computed values, the scratch
/// slots) or of its output (the output, the scratch slots).
struct Arrays(Vec<(&'static str, usize)>);

impl Arrays {
    fn at(&self, k: usize) -> At {
        let mut start = 0;
        for &(array, len) in &self.0 {
            if k < start + len {
                return At { array, index: k - start };
            }
            start += len;
        }
        panic!("position {k} is past the map kernel's arrays");
    }
}

/// Where a column of a map is at instance `i`.
#[derive(Debug)]
enum Index {
    /// The same for every instance.
    Fixed(usize),
    /// `base + step * i`.
    Affine { base: usize, step: i64 },
    /// Entry `i` of index table `t`.
    Table(usize),
}

/// A column of a map: an array and the index in it.
#[derive(Debug)]
struct Slot {
    array: &'static str,
    index: Index,
}

/// The index tables, each once however many columns read it.
#[derive(Default)]
struct Tables {
    tables: Vec<Vec<u32>>,
    index: FxHashMap<Vec<u32>, usize>,
}

impl Tables {
    fn slot(&mut self, column: &Column, instances: usize, arrays: &Arrays) -> Slot {
        match column {
            Column::Affine { base, step: 0 } => {
                let at = arrays.at(*base as usize);
                Slot { array: at.array, index: Index::Fixed(at.index) }
            }
            Column::Affine { base, step } => {
                let first = arrays.at(*base as usize);
                let last = arrays.at((i64::from(*base) + step * (instances as i64 - 1)) as usize);
                assert_eq!(first.array, last.array, "a map's column stays in one array");
                Slot { array: first.array, index: Index::Affine { base: first.index, step: *step } }
            }
            Column::Table(entries) => {
                let at: Vec<At> = entries.iter().map(|&k| arrays.at(k as usize)).collect();
                let array = at[0].array;
                assert!(at.iter().all(|a| a.array == array), "a map's column stays in one array");
                let entries: Vec<u32> = at.iter().map(|a| a.index as u32).collect();
                let next = self.tables.len();
                let t = *self.index.entry(entries.clone()).or_insert(next);
                if t == next {
                    self.tables.push(entries);
                }
                Slot { array, index: Index::Table(t) }
            }
        }
    }
}

/// One map as a loop.
#[derive(Debug)]
struct Loop {
    instances: usize,
    /// Per body input: where it is read.
    gather: Vec<Slot>,
    /// Per body output: where it is added (a fixed place summed over the
    /// even and the odd instances first, in `s{j}[0]` and `s{j}[1]`).
    places: Vec<Slot>,
}

/// What a [`Part`] is in the map kernel.
#[derive(Clone, Copy, Debug)]
enum Role {
    Pre,
    Rest,
    /// The body of loop `l`.
    Body(usize),
    Post,
}

/// A function of the emitted source computing one kernel of the map kernel.
#[derive(Debug)]
pub(crate) struct Part<'a> {
    pub(crate) name: String,
    /// What it computes, for a comment.
    pub(crate) about: String,
    pub(crate) kernel: &'a Kernel,
    role: Role,
    /// The arrays it reads, in the order of its parameters.
    reads: Vec<&'static str>,
    /// The array it writes, its last parameter.
    writes: &'static str,
    /// Whether it adds into `writes` (else assigns).
    adds: bool,
    /// Per input of the kernel: where it is.
    inputs: Vec<At>,
    /// Per output: where it goes; `None` for a `+0.0` that adding would not change.
    outputs: Vec<Option<At>>,
}

impl Part<'_> {
    /// How input `k` is read.
    pub(crate) fn input(&self, k: u32) -> String {
        let at = self.inputs[k as usize];
        format!("{}[{}]", at.array, at.index)
    }

    /// The statements storing or adding each output, `operand` the value of a node.
    pub(crate) fn results(&self, operand: impl Fn(NodeId) -> String) -> String {
        let op = if self.adds { "+=" } else { "=" };
        let mut s = String::new();
        for (&id, at) in self.kernel.roots().iter().zip(&self.outputs) {
            if let Some(at) = at {
                let _ = writeln!(s, "    {}[{}] {op} {};", at.array, at.index, operand(id));
            }
        }
        s
    }
}

/// A map kernel laid out as functions, index tables and loops.
#[derive(Debug)]
pub(crate) struct Loops<'a> {
    /// `pre`, the rest, each body, `post`, in the order they run.
    pub(crate) parts: Vec<Part<'a>>,
    loops: Vec<Loop>,
    tables: Vec<Vec<u32>>,
    /// The function whose loops these are.
    fn_name: String,
    /// How many values `pre` computes.
    pre: usize,
    scratch: usize,
    num_outputs: usize,
    /// The constants the bodies read after `pre`'s values.
    constants: &'a [f64],
}

impl<'a> Loops<'a> {
    /// The layout of `kernel`, its input in `blocks`, its functions and
    /// tables named after `fn_name`.
    pub(crate) fn new(kernel: &'a MapKernel, fn_name: &str, blocks: &Blocks) -> Loops<'a> {
        let pre = kernel.pre.as_ref().map_or(0, Kernel::num_outputs);
        let mut input = Arrays(blocks.listed.clone());
        input.0.extend([(PRE, pre), (SCRATCH, kernel.scratch)]);
        let output = Arrays(vec![(OUT, kernel.num_outputs), (SCRATCH, kernel.scratch)]);
        let kernel_inputs = |k: &Kernel| (0..k.num_inputs()).map(|j| input.at(j)).collect();
        // What the bodies gather from: the blocks, `pre`'s values, the constants.
        let mut gathered = Arrays(blocks.listed.clone());
        gathered.0.extend([(PRE, pre), (CONSTANTS, kernel.constants.len())]);
        let mut reads: Vec<&'static str> = blocks.listed.iter().map(|&(name, _)| name).collect();
        let mut parts = Vec::new();
        if let Some(kernel) = &kernel.pre {
            let outputs = (0..kernel.num_outputs()).map(|k| Some(At { array: PRE, index: k }));
            parts.push(Part {
                name: format!("{fn_name}_pre"),
                about: "The values computed once, before the maps.".into(),
                kernel,
                role: Role::Pre,
                reads: reads.clone(),
                writes: PRE,
                adds: false,
                inputs: kernel_inputs(kernel),
                outputs: outputs.collect(),
            });
        }
        parts.push(Part {
            name: format!("{fn_name}_rest"),
            about: "What no map computes, added into out.".into(),
            kernel: &kernel.rest,
            role: Role::Rest,
            reads: reads.clone(),
            writes: OUT,
            adds: true,
            inputs: kernel_inputs(&kernel.rest),
            outputs: rest_outputs(kernel, &output),
        });
        let mut tables = Tables::default();
        let mut loops = Vec::new();
        for (l, piece) in kernel.pieces.iter().enumerate() {
            let slots = |columns: &[Column], arrays: &Arrays, tables: &mut Tables| -> Vec<Slot> {
                columns.iter().map(|c| tables.slot(c, piece.instances, arrays)).collect()
            };
            let gather = slots(&piece.gather.columns, &gathered, &mut tables);
            let places = slots(&piece.places.columns, &output, &mut tables);
            loops.push(Loop { instances: piece.instances, gather, places });
            parts.push(body_part(fn_name, l, &piece.body));
        }
        if let Some(post) = &kernel.post {
            reads.extend(
                [(PRE, pre), (SCRATCH, kernel.scratch)].iter().filter(|(_, n)| *n > 0).map(|(a, _)| *a),
            );
            parts.push(Part {
                name: format!("{fn_name}_post"),
                about: "The chain through the values computed once, after the maps, added into out.".into(),
                kernel: &post.kernel,
                role: Role::Post,
                reads,
                writes: OUT,
                adds: true,
                inputs: kernel_inputs(&post.kernel),
                outputs: post.places.iter().map(|&k| Some(in_output(output.at(k as usize)))).collect(),
            });
        }
        let (scratch, num_outputs) = (kernel.scratch, kernel.num_outputs);
        let constants = &kernel.constants[..];
        let fn_name = fn_name.to_string();
        Loops { parts, loops, tables: tables.tables, fn_name, pre, scratch, num_outputs, constants }
    }

    /// The names of the emitted functions and tables, which no function of
    /// the program may take.
    pub(crate) fn names(&self) -> Vec<String> {
        let tables = (0..self.tables.len()).map(|t| self.table_name(t));
        let constants = (!self.constants.is_empty()).then(|| self.constants_name());
        self.parts.iter().map(|p| p.name.clone()).chain(tables).chain(constants).collect()
    }

    /// The kernels of the parts, for the functions they call.
    pub(crate) fn kernels(&self) -> Vec<&'a Kernel> {
        self.parts.iter().map(|p| p.kernel).collect()
    }

    /// The loops' instances and bodies' operations, and the operations
    /// outside them, for a comment.
    pub(crate) fn summary(&self) -> String {
        let mut loops = Vec::new();
        let mut outside = 0;
        for part in &self.parts {
            match part.role {
                Role::Body(l) => {
                    loops.push(format!("{} x {}", self.loops[l].instances, part.kernel.count_ops()))
                }
                _ => outside += part.kernel.count_ops(),
            }
        }
        format!(
            "loops of {} operations (instances x body), {outside} operations outside them",
            loops.join(" and ")
        )
    }

    fn table_name(&self, t: usize) -> String {
        format!("{}_table{t}", self.fn_name)
    }

    fn constants_name(&self) -> String {
        format!("{}_constants", self.fn_name)
    }

    /// Every index table, defined.
    pub(crate) fn write_tables(&self, s: &mut String, language: Language) {
        if !self.tables.is_empty() {
            let _ = writeln!(s, "\n{}", language.comment("The index tables of the maps' loops."));
        }
        for (t, entries) in self.tables.iter().enumerate() {
            language.write_table(s, &self.table_name(t), entries);
        }
        if !self.constants.is_empty() {
            let _ =
                writeln!(s, "\n{}", language.comment("The constants the maps' bodies read, per instance."));
            language.write_constants(s, &self.constants_name(), self.constants);
        }
    }

    /// The statements of the emitted function: `out` (and the scratch
    /// slots) set to zero, then each part called in turn, a body in its loop.
    pub(crate) fn write_calls(&self, s: &mut String, language: Language) {
        if self.pre > 0 {
            let _ = writeln!(s, "    {}", language.local_array(PRE, self.pre));
        }
        if self.scratch > 0 {
            let _ = writeln!(s, "    {}", language.local_array(SCRATCH, self.scratch));
        }
        if !self.constants.is_empty() {
            let _ = writeln!(s, "    {}", language.alias(CONSTANTS, &self.constants_name()));
        }
        let _ = writeln!(s, "    {}", language.zero_out(self.num_outputs));
        for part in &self.parts {
            match part.role {
                Role::Body(l) => self.write_loop(s, language, &self.loops[l], part),
                _ => {
                    let _ = writeln!(s, "    {}", call(language, part));
                }
            }
        }
    }

    /// Loop `l` over the instances of `body`, in a block of its own: the
    /// body's input and output and the sums declared, the fixed inputs read
    /// once, then per instance the moving inputs read, the body called and
    /// its results added in order (a fixed place's into the sum of the
    /// instance's parity), and each pair of sums added after the loop, as
    /// [`MapKernel::eval`] adds them.
    fn write_loop(&self, s: &mut String, language: Language, l: &Loop, body: &Part<'_>) {
        let index = |slot: &Slot| match &slot.index {
            Index::Fixed(k) => k.to_string(),
            Index::Affine { base, step } => affine(*base, *step),
            Index::Table(t) => language.table_entry(&self.table_name(*t)),
        };
        let fixed = |slot: &&Slot| matches!(slot.index, Index::Fixed(_));
        let _ = writeln!(
            s,
            "    {}\n    {{",
            language.comment(&format!("{}: {} instances.", body.name, l.instances))
        );
        let _ = writeln!(s, "        {}", language.local_array(BODY_IN, l.gather.len()));
        let _ = writeln!(s, "        {}", language.local_array(BODY_OUT, l.places.len()));
        for (j, _) in l.places.iter().enumerate().filter(|(_, p)| fixed(p)) {
            let _ = writeln!(s, "        {}", language.local_sums(&format!("s{j}")));
        }
        for (j, slot) in l.gather.iter().enumerate().filter(|(_, g)| fixed(g)) {
            let _ = writeln!(s, "        {BODY_IN}[{j}] = {}[{}];", slot.array, index(slot));
        }
        let _ = writeln!(s, "        {}", language.for_each(l.instances));
        for (j, slot) in l.gather.iter().enumerate().filter(|(_, g)| !fixed(g)) {
            let _ = writeln!(s, "            {BODY_IN}[{j}] = {}[{}];", slot.array, index(slot));
        }
        let _ = writeln!(s, "            {}", call(language, body));
        for (j, slot) in l.places.iter().enumerate() {
            match fixed(&slot) {
                true => writeln!(s, "            s{j}[i & 1] += {BODY_OUT}[{j}];"),
                false => writeln!(s, "            {}[{}] += {BODY_OUT}[{j}];", slot.array, index(slot)),
            }
            .expect("writing to a String");
        }
        s.push_str("        }\n");
        for (j, slot) in l.places.iter().enumerate().filter(|(_, p)| fixed(p)) {
            let _ = writeln!(s, "        {}[{}] += s{j}[0] + s{j}[1];", slot.array, index(slot));
        }
        s.push_str("    }\n");
    }
}

/// The function of the body of loop `l`: `a` in, `r` out.
fn body_part<'a>(fn_name: &str, l: usize, body: &'a Kernel) -> Part<'a> {
    Part {
        name: format!("{fn_name}_map{l}"),
        about: format!(
            "Map {l}'s body: one instance, its {} inputs in a, its {} results to r.",
            body.num_inputs(),
            body.num_outputs()
        ),
        kernel: body,
        role: Role::Body(l),
        reads: vec![BODY_IN],
        writes: BODY_OUT,
        adds: false,
        inputs: (0..body.num_inputs()).map(|k| At { array: BODY_IN, index: k }).collect(),
        outputs: (0..body.num_outputs()).map(|k| Some(At { array: BODY_OUT, index: k })).collect(),
    }
}

/// Where the rest adds each output. A `+0.0` is left out where the rest's
/// places differ: the output there is still `+0.0` then, which adding
/// `+0.0` leaves as it is. (The rest has such a zero for each output the
/// maps compute: left out, the file does not grow with the instances.)
fn rest_outputs(kernel: &MapKernel, output: &Arrays) -> Vec<Option<At>> {
    let mut places = kernel.rest_places.clone();
    places.sort_unstable();
    places.dedup();
    let distinct = places.len() == kernel.rest_places.len();
    let dag = kernel.rest.dag();
    kernel
        .rest
        .roots()
        .iter()
        .zip(&kernel.rest_places)
        .map(|(&id, &k)| {
            let zero = dag.as_const(id).is_some_and(|v| v.to_bits() == 0);
            (!(zero && distinct)).then(|| in_output(output.at(k as usize)))
        })
        .collect()
}

/// `at`, which the rest or `post` adds into: in the output.
fn in_output(at: At) -> At {
    assert_eq!(at.array, OUT, "the rest and post add into the output");
    at
}

/// `part` called with its arrays.
fn call(language: Language, part: &Part<'_>) -> String {
    let mut args: Vec<String> = part.reads.iter().map(|a| language.argument(a, false)).collect();
    args.push(language.argument(part.writes, true));
    format!("{}({});", part.name, args.join(", "))
}

/// `base + step * i`, without a zero base or a unit step.
fn affine(base: usize, step: i64) -> String {
    let times = match step.unsigned_abs() {
        1 => "i".to_string(),
        m => format!("{m} * i"),
    };
    match (base, step < 0) {
        (0, false) => times,
        (_, false) => format!("{base} + {times}"),
        (_, true) => format!("{base} - {times}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::map::{Columns, Piece};

    fn kernel(source: &str) -> Kernel {
        frontend::parse_program(source).unwrap().kernel().unwrap()
    }

    #[test]
    fn positions_are_affine_in_the_instance() {
        assert_eq!(affine(0, 1), "i");
        assert_eq!(affine(5, 4), "5 + 4 * i");
        assert_eq!(affine(3, -1), "3 - i");
        assert_eq!(affine(9, -2), "9 - 2 * i");
    }

    /// `out[t(i)] = x[i] * y` and `out[4] = y + Σ x[i]` over four instances.
    #[test]
    fn a_map_is_one_loop_reading_shared_inputs_once_and_adding_sums_after() {
        let map = MapKernel {
            pre: None,
            constants: vec![],
            rest: kernel("in x0, x1, x2, x3, y\nout 0\nout 0\nout 0\nout 0\nout y"),
            rest_places: vec![0, 1, 2, 3, 4],
            pieces: vec![Piece {
                body: kernel("in a, b\nout a * b\nout a"),
                instances: 4,
                gather: Columns {
                    columns: vec![Column::Affine { base: 0, step: 1 }, Column::Affine { base: 4, step: 0 }],
                },
                places: Columns {
                    columns: vec![Column::Table(vec![3, 1, 0, 2]), Column::Affine { base: 4, step: 0 }],
                },
            }],
            scratch: 0,
            post: None,
            num_outputs: 5,
        };
        let c = crate::emit_c(&map, "f", &[5]).unwrap();
        let main = &c[c.find("void f(").unwrap()..];
        let loop_at = main.find("for (uint32_t i = 0; i < 4; i++) {").unwrap();
        let shared = main.find("a[1] = x[4];").unwrap();
        let summed = main.find("out[4] += s1[0] + s1[1];").unwrap();
        assert!(shared < loop_at && loop_at < summed, "{main}");
        for line in ["a[0] = x[i];", "f_map0(a, r);", "out[f_table0[i]] += r[0];", "s1[i & 1] += r[1];"] {
            assert!(main[loop_at..summed].contains(line), "{line} in\n{main}");
        }
        assert!(c.contains("static const uint32_t f_table0[4] = {3, 1, 0, 2};"), "{c}");
        // The rest adds y alone: its zeros would leave the output as it is.
        assert!(c.contains("    out[4] += v4;\n}") && !c.contains("out[0] += 0e0"), "{c}");
        let rust = crate::emit_rust(&map, "f", &[5]).unwrap();
        assert!(rust.contains("out[f_table0[i] as usize] += r[0];") && rust.contains("for i in 0..4usize {"));
    }
}
