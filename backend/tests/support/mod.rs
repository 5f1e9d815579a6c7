//! Helpers shared by the back end's integration tests: the corpus, ulp
//! distances, a deterministic random-program generator and the node-wise
//! parity oracle.

pub mod c_kernel;

use backend::JitCompiler;
use frontend::{ExprDag, NodeId, Op, Program};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Every `(name, program)` of `tests/corpus`, sorted by name.
pub fn corpus() -> Vec<(String, Program)> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dstar"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let source = std::fs::read_to_string(&path).expect("a readable corpus file");
            let program =
                frontend::parse_program(&source).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
            (name, program)
        })
        .collect()
}

/// The program's `# @point`, or a fixed point in (0.5, 1.5) if it has none.
pub fn point_of(program: &Program) -> Vec<f64> {
    program
        .point
        .clone()
        .unwrap_or_else(|| (0..program.inputs.len()).map(|i| 0.5 + i as f64 * 0.01).collect())
}

/// Distance in units in the last place (adjacent doubles are 1 apart, `-0`
/// and `+0` are 0 apart); 0 when both are NaN, `u64::MAX` when one is.
pub fn ulps(a: f64, b: f64) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0,
        (false, false) => {
            let ordered = |x: f64| {
                let bits = x.to_bits() as i64;
                if bits < 0 {
                    i64::MIN.wrapping_sub(bits)
                } else {
                    bits
                }
            };
            (ordered(a) as i128 - ordered(b) as i128).unsigned_abs() as u64
        }
        _ => u64::MAX,
    }
}

/// Bitwise equal, or both NaN.
pub fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Whether the JIT lowers `x^exponent` inline (a constant integer, |k| <= 16):
/// the one place it may differ from the interpreter, by at most 1 ulp.
pub fn is_inline_power(dag: &ExprDag, exponent: NodeId) -> bool {
    dag.as_const(exponent).is_some_and(|k| k.fract() == 0.0 && k.abs() <= 16.0)
}

/// Whether `outputs` reach an inline power.
pub fn has_inline_power(dag: &ExprDag, outputs: &[NodeId]) -> bool {
    let reach = dag.reachable(outputs);
    dag.ids().any(|id| reach[id.index()] && dag.op(id) == Op::Pow && is_inline_power(dag, dag.args(id)[1]))
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    /// A generator; `seed` may be anything.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// A generated function and a point where its values are finite.
pub struct Case {
    /// The DAG.
    pub dag: ExprDag,
    /// Its outputs.
    pub outputs: Vec<NodeId>,
    /// Number of inputs.
    pub num_inputs: usize,
    /// A point where every node is finite (most of the time: see `random_case`).
    pub point: Vec<f64>,
}

/// A random program of about `num_ops` operations using every operation
/// (each of `Op::ALL` in turn, then at random). Operands are chosen
/// so that each node is finite at `point` when a few tries allow it, which
/// keeps the values meaningful; other points reach NaN and infinities. With
/// `inline_powers` false, no `x^k` with a small integer `k` appears.
pub fn random_case(seed: u64, num_inputs: usize, num_ops: usize, inline_powers: bool) -> Case {
    let mut rng = Rng::new(seed);
    let mut dag = ExprDag::new();
    let point: Vec<f64> = (0..num_inputs).map(|_| rng.uniform(-2.0, 2.0)).collect();
    let mut pool: Vec<(NodeId, f64)> = (0..num_inputs).map(|k| (dag.input(k), point[k])).collect();
    for c in [0.5, 2.0, -1.5, 3.0, 0.1, -7.0] {
        pool.push((dag.constant(c), c));
    }
    let ops = Op::ALL;
    for i in 0..num_ops {
        let op = if i < ops.len() { ops[i] } else { ops[rng.below(ops.len())] };
        for attempt in 0..8 {
            let mut args = Vec::with_capacity(op.arity());
            for _ in 0..op.arity() {
                // Prefer recent nodes, so the program is deep as well as wide.
                let j = if rng.below(2) == 0 {
                    pool.len() - 1 - rng.below(pool.len().min(12))
                } else {
                    rng.below(pool.len())
                };
                args.push(pool[j]);
            }
            if op == Op::Pow && rng.below(3) == 0 {
                let k = rng.below(33) as f64 - 16.0;
                args[1] = (dag.constant(k), k);
            }
            let (ids, values): (Vec<NodeId>, Vec<f64>) = args.into_iter().unzip();
            if op == Op::Pow && !inline_powers && is_inline_power(&dag, ids[1]) {
                continue;
            }
            let value = op.eval(&values);
            if (value.is_finite() && value.abs() < 1e6) || attempt == 7 {
                let id = dag.apply(op, &ids);
                if !(op == Op::Pow
                    && !inline_powers
                    && dag.op(id) == Op::Pow
                    && is_inline_power(&dag, dag.args(id)[1]))
                {
                    pool.push((id, value));
                }
                break;
            }
        }
    }
    let mut outputs: Vec<NodeId> = pool.iter().rev().take(4).map(|p| p.0).collect();
    for _ in 0..4 {
        outputs.push(pool[rng.below(pool.len())].0);
    }
    Case { dag, outputs, num_inputs, point }
}

/// Points that exercise specials: the case's point, zeros, infinities, NaN,
/// huge and tiny values, and random ones.
pub fn probe_points(case: &Case, rng: &mut Rng) -> Vec<Vec<f64>> {
    let specials = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e300, -1e-300, 1.0, -1.0, 0.5];
    let mut points = vec![case.point.clone()];
    for &s in &specials {
        let mut p = case.point.clone();
        let k = rng.below(case.num_inputs.max(1));
        if let Some(v) = p.get_mut(k) {
            *v = s;
        }
        points.push(p);
    }
    for _ in 0..10 {
        points.push((0..case.num_inputs).map(|_| rng.uniform(-4.0, 4.0)).collect());
    }
    points
}

/// Node-wise parity: compiles every node `outputs` reach as an output and
/// checks that each node's JIT value is what `Op::eval` gives on the JIT
/// values of its arguments, bit for bit, except inline integer powers (at
/// most 1 ulp). Per node, so an ulp never gets amplified downstream.
pub fn assert_nodewise_parity(
    compiler: &JitCompiler,
    dag: &ExprDag,
    outputs: &[NodeId],
    num_inputs: usize,
    x: &[f64],
    what: &str,
) {
    let reach = dag.reachable(outputs);
    let nodes: Vec<NodeId> = dag.ids().filter(|id| reach[id.index()]).collect();
    let kernel = compiler
        .compile(&frontend::Kernel::new(dag.clone(), nodes.to_vec(), num_inputs).unwrap())
        .expect("a compilable case");
    let mut out = vec![0.0; nodes.len()];
    kernel.eval(x, &mut out).expect("matching lengths");
    let mut jit = vec![f64::NAN; dag.len()];
    for (id, v) in nodes.iter().zip(&out) {
        jit[id.index()] = *v;
    }
    for &id in &nodes {
        let op = dag.op(id);
        let args: Vec<f64> = dag.args(id).iter().map(|a| jit[a.index()]).collect();
        let want = match op {
            Op::Input(k) => x[k as usize],
            _ => op.eval(&args),
        };
        let got = jit[id.index()];
        let inline_power = op == Op::Pow && is_inline_power(dag, dag.args(id)[1]);
        let ok = if inline_power { ulps(got, want) <= 1 } else { same(got, want) };
        assert!(
            ok,
            "{what}: {id:?} = {op:?}{args:?}: JIT {got:e} ({:#x}), interpreter {want:e} ({:#x})",
            got.to_bits(),
            want.to_bits()
        );
    }
}

/// A program of exactly `num_ops` reachable operations for timing the
/// compiler: mostly arithmetic (as Jacobians are), one in eight an
/// elementary function, operands mostly among the last 64 nodes, every node
/// without a user an output.
pub fn scaling_program(num_ops: usize, seed: u64) -> (ExprDag, Vec<NodeId>, usize) {
    let num_inputs = 16;
    let mut rng = Rng::new(seed);
    let mut dag = ExprDag::new();
    let mut nodes: Vec<NodeId> = (0..num_inputs).map(|k| dag.input(k)).collect();
    let arithmetic = [Op::Add, Op::Sub, Op::Mul, Op::Div];
    let others = [Op::Sin, Op::Exp, Op::Sqrt, Op::Abs, Op::Max, Op::Hypot, Op::Tanh, Op::Log];
    let mut used = vec![false; num_inputs];
    while nodes.len() < num_inputs + num_ops {
        let op = if rng.below(8) == 0 { others[rng.below(others.len())] } else { arithmetic[rng.below(4)] };
        let args: Vec<NodeId> = (0..op.arity())
            .map(|_| {
                let n = nodes.len();
                if rng.below(16) == 0 {
                    nodes[rng.below(n)]
                } else {
                    nodes[n - 1 - rng.below(n.min(64))]
                }
            })
            .collect();
        let before = dag.len();
        let id = dag.intern(frontend::Node::new(op, &args));
        if dag.len() > before {
            for a in &args {
                used[a.index()] = true;
            }
            used.push(false);
            nodes.push(id);
        }
    }
    let outputs = nodes.iter().copied().filter(|id| !used[id.index()]).collect();
    (dag, outputs, num_inputs)
}

/// Calls per timed batch so that one batch of `f` lasts about 1 ms.
fn batch_size(mut f: impl FnMut()) -> u64 {
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed() < Duration::from_millis(1) {
        f();
        calls += 1;
    }
    calls
}

/// ns per call of `f` and of `g`, timed in alternating batches over about
/// `budget` so both see the same machine load; the fastest batch of each
/// counts, as interference from other processes only ever adds time.
pub fn paired_ns_per_call(budget: Duration, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let (nf, ng) = (batch_size(&mut f), batch_size(&mut g));
    let (mut best_f, mut best_g) = (f64::INFINITY, f64::INFINITY);
    let start = Instant::now();
    while start.elapsed() < budget {
        let t = Instant::now();
        for _ in 0..nf {
            f();
        }
        best_f = best_f.min(t.elapsed().as_nanos() as f64 / nf as f64);
        let t = Instant::now();
        for _ in 0..ng {
            g();
        }
        best_g = best_g.min(t.elapsed().as_nanos() as f64 / ng as f64);
    }
    (best_f, best_g)
}
