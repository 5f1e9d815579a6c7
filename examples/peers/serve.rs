//! dstar's kernels of one problem file, each size in a process of its own
//! (`peers --serve FILE KINDS`): the child times every set-up phase, reads
//! its own peak resident set (so that each size's memory is its own), and
//! then serves timing requests from the parent, which alternates them with
//! the other sizes' and the peers' kernels under the same machine load.
//!
//! The protocol is one line each way: the child's first line is its
//! [`Report`] as JSON; then `run K CALLS` makes CALLS calls of kernel K at
//! the file's point and answers the ns they took, `dump K PATH` writes the
//! kernel's output at the point and the positions of its derivative's
//! nonzeros as JSON and answers `ok`; end of input ends the child.

use dstar::factor::Symbolic;
use serde_json::json;
use std::cell::RefCell;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

/// The kernels a child can build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Values,
    Jacobian,
    Hessian,
    Gradient,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Values => "values",
            Kind::Jacobian => "jacobian",
            Kind::Hessian => "hessian",
            Kind::Gradient => "gradient",
        }
    }

    /// The request that builds this kind's kernel.
    fn request(self) -> dstar::Request {
        match self {
            Kind::Values => dstar::Request::Values,
            Kind::Jacobian => dstar::Request::Jacobian,
            Kind::Hessian => dstar::Request::Hessian,
            Kind::Gradient => dstar::Request::Gradient,
        }
    }

    fn parse(name: &str) -> Kind {
        match name {
            "values" => Kind::Values,
            "jacobian" => Kind::Jacobian,
            "hessian" => Kind::Hessian,
            "gradient" => Kind::Gradient,
            other => panic!("no kernel kind {other}"),
        }
    }
}

/// One built kernel, as the child reports it.
#[derive(Clone, Debug)]
pub struct KernelReport {
    pub kind: Kind,
    pub ops: usize,
    /// Bytes of executable memory the JIT mapped for it (whole pages).
    pub code_bytes: usize,
    /// Nonzeros of its derivative block (the outputs for `Values`).
    pub nnz: usize,
}

/// What building a problem's kernels took.
#[derive(Clone, Debug)]
pub struct Report {
    /// `(phase, ms)` in the order run: parse, then each kind's symbolic
    /// stage and JIT.
    pub phases: Vec<(String, f64)>,
    /// Peak resident set of the child after the set-up (`VmHWM`), kB.
    pub peak_kb: u64,
    pub kernels: Vec<KernelReport>,
    /// Function operations: in the program (bodies once, calls as one) and with calls written out.
    pub ops: usize,
    pub inlined_ops: u64,
}

impl Report {
    /// The whole set-up, ms.
    pub fn total_ms(&self) -> f64 {
        self.phases.iter().map(|(_, ms)| ms).sum()
    }

    /// The ms of the phases whose name starts with `prefix`.
    pub fn ms(&self, prefix: &str) -> f64 {
        self.phases.iter().filter(|(name, _)| name.starts_with(prefix)).map(|(_, ms)| ms).sum()
    }

    pub fn kernel(&self, kind: Kind) -> Option<&KernelReport> {
        self.kernels.iter().find(|k| k.kind == kind)
    }
}

/// Bytes of executable anonymous memory mapped into this process (the JIT's
/// code), from `/proc/self/maps`; 0 where there is none.
fn executable_bytes() -> usize {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let anonymous = fields.len() < 6;
            if !anonymous || !fields.get(1)?.contains('x') {
                return None;
            }
            let (start, end) = fields[0].split_once('-')?;
            Some(usize::from_str_radix(end, 16).ok()? - usize::from_str_radix(start, 16).ok()?)
        })
        .sum()
}

/// The child: builds the kernels `kinds` (comma-separated) of the problem
/// in `path`, prints its report and serves requests until its input ends.
pub fn serve(path: &str, kinds: &str) {
    let source = std::fs::read_to_string(path).expect("a readable problem file");
    let options = dstar::Options::default();
    let compiler = options.compiler().expect("a supported host");
    let mut phases = Vec::new();
    let mut phase = |name: String, start: Instant| phases.push((name, start.elapsed().as_secs_f64() * 1e3));

    let start = Instant::now();
    let program = dstar::parse_program(&source).expect("a valid problem");
    phase("parse".to_string(), start);
    let (n, q, m) = (program.inputs.len(), program.params.len(), program.outputs.len());
    let x = program.point.clone().unwrap_or_else(|| vec![0.5; n]);
    let p = program.param_values.clone().unwrap_or_else(|| vec![0.5; q]);
    let w = vec![1.0; m];

    let mut kernels = Vec::new();
    let mut reports = Vec::new();
    // One function for every kind, as a user compiles them: the search for
    // maps runs once, in the first kind's symbolic phase, and the others
    // share it (`Function::compile` keeps it).
    let function = dstar::Function::new(program.clone(), options.clone());
    for kind in kinds.split(',').map(Kind::parse) {
        let name = kind.name();
        // What `Function::compile` builds (maps where the plan finds them),
        // compiled here on its own to time the two stages apart.
        let start = Instant::now();
        let built = function.symbolic(kind.request()).expect("builds");
        let mapped = matches!(built.kernel, Symbolic::Maps(_));
        phase(format!("{name} symbolic"), start);
        let positions = match kind {
            Kind::Values => Vec::new(),
            Kind::Gradient => (0..n).map(|c| (0, c)).collect(),
            Kind::Jacobian | Kind::Hessian => {
                built.layout.pattern().expect("a pattern").positions().collect()
            }
        };
        let lengths = kind.request().blocks(n, q, m).lengths();
        let before = executable_bytes();
        let start = Instant::now();
        let ops = built.kernel.count_ops();
        let jit = match built.kernel {
            Symbolic::Whole(kernel) => {
                dstar::Native::Jit(compiler.compile_parts(&kernel, &lengths).expect("compiles"))
            }
            Symbolic::Maps(kernel) => {
                dstar::Native::Mapped(compiler.compile_mapped(&kernel, &lengths).expect("compiles"))
            }
            Symbolic::Columns(columns) => {
                dstar::ColumnsKernel::compile(&compiler, *columns, [n, q, m]).expect("compiles").into()
            }
        };
        phase(format!("{name} JIT"), start);
        let nnz = if kind == Kind::Values { m } else { positions.len() };
        let code_bytes = executable_bytes().saturating_sub(before);
        reports.push(json!({"kind": name, "ops": ops, "code_bytes": code_bytes, "nnz": nnz, "maps": mapped}));
        kernels.push((kind, jit, positions));
    }
    let report = json!({
        "phases": phases,
        "peak_kb": testkit::timing::peak_resident_kb(),
        "kernels": reports,
        "ops": program.count_ops(),
        "inlined_ops": dstar::frontend::call::inlined_ops(&program.dag, &program.output_nodes()),
    });
    println!("{report}");

    for line in std::io::stdin().lock().lines() {
        let line = line.expect("a request");
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first().is_none_or(|&w| w == "quit") {
            break;
        }
        let index: usize = words.get(1).and_then(|k| k.parse().ok()).expect("a kernel index");
        let (kind, jit, positions) = &kernels[index];
        let weights: &[f64] = if *kind == Kind::Hessian { &w } else { &[] };
        let args: [&[f64]; 4] = [&x, &p, weights, &[]];
        let mut out = vec![0.0; jit.num_outputs()];
        match words[0] {
            "run" => {
                let calls: u64 = words[2].parse().expect("a number of calls");
                let start = Instant::now();
                for _ in 0..calls {
                    jit.eval_parts(black_box(&args), black_box(&mut out)).expect("lengths");
                }
                println!("{}", start.elapsed().as_nanos());
            }
            "dump" => {
                jit.eval_parts(&args, &mut out).expect("lengths");
                let dump = json!({"out": out, "positions": positions});
                std::fs::write(words[2], dump.to_string()).expect("a writable dump");
                println!("ok");
            }
            other => panic!("no request {other}"),
        }
        std::io::stdout().flush().expect("the parent reads");
    }
}

/// Writes `request` to a child and reads its one-line answer.
pub fn ask(io: &mut (ChildStdin, BufReader<ChildStdout>), request: &str) -> String {
    let (input, output) = io;
    writeln!(input, "{request}").expect("the child reads");
    input.flush().expect("the child reads");
    let mut line = String::new();
    output.read_line(&mut line).expect("the child answers");
    line.trim().to_string()
}

/// The parent's end of a child serving a problem's kernels.
pub struct Served {
    pub report: Report,
    child: Child,
    io: RefCell<(ChildStdin, BufReader<ChildStdout>)>,
}

impl Served {
    /// Starts a child building `kinds` of the problem in `path`, pinned to
    /// CPU `pin` with taskset when given; waits for its report.
    pub fn start(path: &Path, kinds: &[Kind], pin: Option<&str>) -> Result<Served, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let kinds: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        let mut command = match pin {
            Some(cpu) => {
                let mut c = Command::new("taskset");
                c.args(["-c", cpu]).arg(exe);
                c
            }
            None => Command::new(exe),
        };
        command.arg("--serve").arg(path).arg(kinds.join(","));
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().map_err(|e| e.to_string())?;
        let input = child.stdin.take().expect("piped");
        let mut output = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        output.read_line(&mut line).map_err(|e| e.to_string())?;
        let value: serde_json::Value =
            serde_json::from_str(&line).map_err(|_| format!("the child for {} failed", path.display()))?;
        let report = Report {
            phases: value["phases"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| (p[0].as_str().unwrap_or("?").to_string(), p[1].as_f64().unwrap_or(f64::NAN)))
                .collect(),
            peak_kb: value["peak_kb"].as_u64().unwrap_or(0),
            kernels: value["kernels"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|k| KernelReport {
                    kind: Kind::parse(k["kind"].as_str().unwrap_or("?")),
                    ops: k["ops"].as_u64().unwrap_or(0) as usize,
                    code_bytes: k["code_bytes"].as_u64().unwrap_or(0) as usize,
                    nnz: k["nnz"].as_u64().unwrap_or(0) as usize,
                })
                .collect(),
            ops: value["ops"].as_u64().unwrap_or(0) as usize,
            inlined_ops: value["inlined_ops"].as_u64().unwrap_or(0),
        };
        Ok(Served { report, child, io: RefCell::new((input, output)) })
    }

    fn ask(&self, request: &str) -> String {
        ask(&mut self.io.borrow_mut(), request)
    }

    /// The index of kernel `kind` in the child.
    pub fn index(&self, kind: Kind) -> usize {
        self.report.kernels.iter().position(|k| k.kind == kind).expect("a kernel the child built")
    }

    /// ns taken by `calls` calls of kernel `kind`, timed in the child.
    pub fn run(&self, kind: Kind, calls: u64) -> f64 {
        let index = self.index(kind);
        self.ask(&format!("run {index} {calls}")).parse().expect("ns")
    }

    /// The output of kernel `kind` at the point and the `(row, col)` of its
    /// derivative's nonzeros (the last values of the output).
    pub fn dump(&self, kind: Kind, dir: &Path) -> (Vec<f64>, Vec<(usize, usize)>) {
        let index = self.index(kind);
        let path = dir.join(format!("dump-{}-{index}.json", self.child.id()));
        let answer = self.ask(&format!("dump {index} {}", path.display()));
        assert_eq!(answer, "ok");
        let value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("the dump")).expect("JSON");
        let _ = std::fs::remove_file(&path);
        let out =
            value["out"].as_array().expect("out").iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect();
        let positions = value["positions"]
            .as_array()
            .expect("positions")
            .iter()
            .map(|p| (p[0].as_u64().unwrap_or(0) as usize, p[1].as_u64().unwrap_or(0) as usize))
            .collect();
        (out, positions)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = writeln!(self.io.borrow_mut().0, "quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
