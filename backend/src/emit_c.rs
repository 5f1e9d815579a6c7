//! C99 source emission: the kernel as a self-contained C file with the same
//! signature as a [`JitKernel`](crate::JitKernel) chunk, for users who ship
//! derivatives into C, C++ or embedded code.

use crate::blocks::Blocks;
use crate::error::CodegenError;
use crate::name::{check_name, C_KEYWORDS};
use crate::source_functions::{described, site_results, SourceFunctions};
use crate::source_kernel::SourceKernel;
use crate::source_loops::{Language, Loops};
use frontend::map::MapKernel;
use frontend::{CSpelling, ExprDag, Kernel, NodeId, Op};
use std::fmt::Write;

/// The helpers whose semantics C lacks, identical to `Op::eval`: IEEE
/// 754-2019 `minimum`/`maximum` (NaN-propagating, `-0 < +0`), `sign`
/// (which returns ±0 and NaN unchanged) and the power
/// ([`frontend::portable::pow`], step for step).
const HELPERS: &str = r"static inline double dstar_min(double a, double b)
{
    if (isnan(a) || isnan(b)) return NAN;
    if (a < b) return a;
    if (b < a) return b;
    return signbit(a) ? a : b;
}

static inline double dstar_max(double a, double b)
{
    if (isnan(a) || isnan(b)) return NAN;
    if (a > b) return a;
    if (b > a) return b;
    return signbit(a) ? b : a;
}

static inline double dstar_sign(double a)
{
    return a > 0.0 ? 1.0 : a < 0.0 ? -1.0 : a;
}

/* a^b as dstar computes it: whole exponents |b| <= 16 from products in
   double-double arithmetic (exact steps for 0, 1, 2, -1), pow otherwise. */
static inline double dstar_pow(double a, double b)
{
    if (b != trunc(b) || fabs(b) > 16.0) return pow(a, b);
    int k = (int)b;
    if (k == 0) return 1.0;
    if (k == 1) return a;
    if (k == 2) return a * a;
    if (k == -1) return 1.0 / a;
    unsigned n = (unsigned)(k < 0 ? -k : k);
    int top = 31;
    while (!((n >> top) & 1u)) top--;
    double h = a, l = 0.0;
    for (int bit = top - 1; bit >= 0; bit--) {
        double p = h * h;
        double err = fma(h, h, -p);
        l = bit == top - 1 ? err : fma(h + h, l, err);
        h = p;
        if ((n >> bit) & 1u) {
            p = h * a;
            err = fma(h, a, -p);
            l = fma(l, a, err);
            h = p;
        }
    }
    double value, high;
    if (k > 0) {
        value = h + l;
        high = DBL_MAX;
    } else {
        double q = 1.0 / h;
        double r = fma(-q, h, 1.0) - q * l;
        value = fma(q, r, q);
        high = 0x1p1000;
    }
    double m = fabs(h);
    return m >= 0x1p-968 && m <= high ? value : pow(a, b);
}
";

/// Writes `void fn_name(const double *x, const double *p, ..., double
/// *out)` computing the kernel's outputs (in order), as a self-contained
/// C99 file that includes only `<float.h>`, `<math.h>` and, for a map kernel,
/// `<stdint.h>` (link with `-lm`).
/// The kernel's input comes in the blocks of `lengths` ([`ARG_BLOCKS`](frontend::ARG_BLOCKS):
/// inputs `x`, parameters `p`, weights `w`, directions `v`, one after
/// another); the signature lists `x` and every other block that is not
/// empty, each its own pointer, as the compiled kernels take them, and the
/// header comment says how long each is. Each function the kernel calls
/// ([`frontend::call`], derivative functions included) is written once, before
/// it and callees first, as `static void fn_name_f(double a0, ..., double *r)`
/// writing its results to `r`, and each call site is one call, so the file
/// grows with the function bodies and the call sites, not with the calls
/// written out.
///
/// A map kernel ([`SourceKernel::Mapped`]) has the same signature; each
/// map's body is written once, as `static void fn_name_map0(const double
/// *a, double *r)`, and run in one `for` loop over the instances, its
/// positions `base + step * i` or read from `static const uint32_t` index
/// tables: the file grows with the tables, not with the instances. It
/// computes what [`MappedKernel`](crate::MappedKernel) computes, in the
/// same order.
///
/// # Errors
/// [`CodegenError::InvalidName`] unless `fn_name` is a C identifier that is
/// not a keyword; [`CodegenError::InputParts`] unless `lengths` cover the
/// kernel's inputs.
///
/// Arithmetic, `sqrt`, `abs`, `floor`, `ceil`, `min`, `max`, `sign`,
/// integer powers and `ifelse` give the interpreter's results bit for bit when
/// compiled in a standard mode (`-std=c99`: no contraction of `a*b + c` into
/// an `fma`); other functions are the C library's, within an ulp or so.
///
/// ```
/// let program = frontend::parse_program("param a\nin x\nout min(x, 1) * a")?;
/// let c = backend::emit_c(&program.kernel()?, "f", &[1, 1])?;
/// assert!(c.contains("void f(const double *x, const double *p, double *out)"));
/// assert!(c.contains("dstar_min(") && c.contains("p[0]"));
/// assert!(backend::emit_c(&program.kernel()?, "f(void){} void g", &[1, 1]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn emit_c<'a>(
    kernel: impl Into<SourceKernel<'a>>,
    fn_name: &str,
    lengths: &[usize],
) -> Result<String, CodegenError> {
    let kernel = kernel.into();
    check_name(fn_name, "C", C_KEYWORDS)?;
    let blocks = Blocks::new(lengths, kernel.num_inputs())?;
    Ok(match kernel {
        SourceKernel::Whole(kernel) => whole(kernel, fn_name, &blocks),
        SourceKernel::Mapped(kernel) => mapped(kernel, fn_name, &blocks),
    })
}

/// The file of a kernel written out: its statements in the function.
fn whole(kernel: &Kernel, fn_name: &str, blocks: &Blocks) -> String {
    let (dag, outputs) = (kernel.dag(), kernel.roots());
    let functions = SourceFunctions::new(fn_name, &[kernel], &[]);
    let what =
        format!("{} outputs, {} operations{}", outputs.len(), dag.count_ops(outputs), functions.summary());
    let mut c = preamble(&what, blocks, &functions, false);
    let _ = writeln!(c, "\n{}\n{{", signature(fn_name, blocks));
    let input = |k: u32| {
        let (block, index) = blocks.of_input[k as usize];
        format!("{block}[{index}]")
    };
    write_statements(&mut c, dag, outputs, &input, &functions);
    for (k, &id) in outputs.iter().enumerate() {
        let _ = writeln!(c, "    out[{k}] = {};", operand(dag, id));
    }
    c.push_str("}\n");
    c
}

/// The file of a map kernel: each part a static function, the index
/// tables, and the function calling the parts, each body in its loop.
fn mapped(kernel: &MapKernel, fn_name: &str, blocks: &Blocks) -> String {
    let loops = Loops::new(kernel, fn_name, blocks);
    let functions = SourceFunctions::new(fn_name, &loops.kernels(), &loops.names());
    let what = format!("{} outputs as maps: {}{}", kernel.num_outputs, loops.summary(), functions.summary());
    let mut c = preamble(&what, blocks, &functions, true);
    for part in &loops.parts {
        let (dag, roots) = (part.kernel.dag(), part.kernel.roots());
        let _ = writeln!(c, "\n/* {} */\n{}\n{{", part.about, Language::C.function_head(part));
        write_statements(&mut c, dag, roots, &|k| part.input(k), &functions);
        c.push_str(&part.results(|id| operand(dag, id)));
        c.push_str("}\n");
    }
    loops.write_tables(&mut c, Language::C);
    let _ = writeln!(c, "\n{}\n{{", signature(fn_name, blocks));
    loops.write_calls(&mut c, Language::C);
    c.push_str("}\n");
    c
}

/// The top of a C file: the comment saying `what` it computes from the
/// `blocks`, the includes (`<stdint.h>` for index tables), the helpers and
/// each function called, written once.
fn preamble(what: &str, blocks: &Blocks, functions: &SourceFunctions, tables: bool) -> String {
    let mut c = String::new();
    let _ = writeln!(
        c,
        "/* Generated by dstar: {what}, from the blocks\n \
         * {} (an array each, in this order).\n \
         * Compile in a standard mode (-std=c99) or with -ffp-contract=off: fusing\n \
         * a*b + c into an fma would change results. Link with -lm. */",
        blocks.described()
    );
    c.push_str("#include <float.h>\n#include <math.h>\n");
    if tables {
        c.push_str("#include <stdint.h>\n");
    }
    c.push('\n');
    c.push_str(HELPERS);
    for function in &functions.order {
        let body = function.body();
        let args: Vec<String> = (0..body.num_inputs()).map(|k| format!("double a{k}")).collect();
        let _ = writeln!(
            c,
            "\n/* {} */\nstatic void {}({}double *r)\n{{",
            described(function),
            functions.name(function),
            args.iter().map(|a| format!("{a}, ")).collect::<String>()
        );
        write_statements(&mut c, body.dag(), body.roots(), &|k| format!("a{k}"), functions);
        for (k, &id) in body.roots().iter().enumerate() {
            let _ = writeln!(c, "    r[{k}] = {};", operand(body.dag(), id));
        }
        c.push_str("}\n");
    }
    c
}

/// Writes a `const double` per operation `roots` of `dag` reach, in id
/// order, input `k` read as `input(k)`. A call site is one call, where its
/// first result is reached, into the one array `s` of the function (as long
/// as the most results of a callee), each result read from it right after:
/// stack for one call's results, however many sites there are.
fn write_statements(
    c: &mut String,
    dag: &ExprDag,
    roots: &[NodeId],
    input: &dyn Fn(u32) -> String,
    functions: &SourceFunctions,
) {
    let reach = dag.reachable(roots);
    let results = site_results(dag, &reach);
    let longest = dag.reached_sites(roots).iter().map(|&s| dag.site(s).called().results().len()).max();
    if let Some(longest) = longest {
        let _ = writeln!(c, "    double s[{longest}];");
    }
    let mut called = vec![false; dag.sites().len()];
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let op = dag.op(id);
        if let Op::Const(_) = op {
            continue; // written inline where used
        }
        let a: Vec<String> = dag.args(id).iter().map(|&a| operand(dag, a)).collect();
        let expr = match op {
            Op::Const(c) => literal(c.get()),
            Op::Input(k) => input(k),
            Op::Call(call) => {
                let site = call.site as usize;
                if !called[site] {
                    called[site] = true;
                    let callee = dag.site(call.site).called();
                    let args: String = a.iter().map(|a| format!("{a}, ")).collect();
                    let _ = writeln!(c, "    {}({args}s);", functions.name(&callee));
                    for &(out, result) in &results[site] {
                        let _ = writeln!(c, "    const double v{} = s[{out}];", result.index());
                    }
                }
                continue; // read right after its call
            }
            Op::Select(cmp) => format!("{} {} {} ? {} : {}", a[0], cmp.symbol(), a[1], a[2], a[3]),
            op => match op.c_spelling().expect("every operation but leaves, calls and Select has one") {
                CSpelling::Prefix(sign) => format!("{sign}{}", a[0]),
                CSpelling::Infix(operator) => format!("{} {operator} {}", a[0], a[1]),
                CSpelling::Call(name) => format!("{name}({})", a.join(", ")),
            },
        };
        let _ = writeln!(c, "    const double v{} = {expr};", id.index());
    }
}

/// The signature [`emit_c`] writes for `fn_name` and block `lengths` (and
/// [`emit_c_header`](crate::emit_c_header()) declares): `void
/// fn_name(const double *x, ..., double *out)`, listing `x` and every other
/// block that is not empty. `fn_name` is not checked.
///
/// # Errors
/// [`CodegenError::InputParts`] unless there are one to four `lengths`.
///
/// ```
/// assert_eq!(backend::c_signature("f", &[2, 0])?, "void f(const double *x, double *out)");
/// assert_eq!(
///     backend::c_signature("f", &[2, 1, 3])?,
///     "void f(const double *x, const double *p, const double *w, double *out)"
/// );
/// # Ok::<(), backend::CodegenError>(())
/// ```
pub fn c_signature(fn_name: &str, lengths: &[usize]) -> Result<String, CodegenError> {
    Ok(signature(fn_name, &Blocks::new(lengths, lengths.iter().sum())?))
}

/// [`c_signature`] of blocks already checked: in the C file and in its header.
pub(crate) fn signature(fn_name: &str, blocks: &Blocks) -> String {
    let params: Vec<String> = blocks.listed.iter().map(|(name, _)| format!("const double *{name}")).collect();
    format!("void {fn_name}({}, double *out)", params.join(", "))
}

/// How node `id` is referred to: its literal if constant, else its variable.
fn operand(dag: &ExprDag, id: NodeId) -> String {
    match dag.as_const(id) {
        Some(v) => literal(v),
        None => format!("v{}", id.index()),
    }
}

/// A C expression for `v` that the compiler reads back exactly: Rust's
/// shortest round-trip digits, which C compilers round correctly.
pub(crate) fn literal(v: f64) -> String {
    if v.is_nan() {
        "NAN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "INFINITY" } else { "(-INFINITY)" }.to_string()
    } else if v.is_sign_negative() {
        format!("({v:e})")
    } else {
        format!("{v:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_round_trip() {
        for v in [0.1, -0.0, 5e-324, 1.7976931348623157e308, -2.5, 1.0 / 3.0] {
            let text = literal(v);
            let parsed: f64 = text.trim_matches(|c| c == '(' || c == ')').parse().unwrap();
            assert_eq!(parsed.to_bits(), v.to_bits(), "{text}");
        }
        assert_eq!(literal(f64::NEG_INFINITY), "(-INFINITY)");
        assert_eq!(literal(f64::NAN), "NAN");
    }

    #[test]
    fn emits_one_statement_per_operation() {
        let program = frontend::parse_program("in x, y\nout ifelse(x < y, -x, y ^ 2)\nout 3").unwrap();
        let c = emit_c(&program.kernel().unwrap(), "kernel", &[2]).unwrap();
        assert!(c.contains("void kernel(const double *x, double *out)"), "{c}");
        assert!(c.contains("= v0 < v1 ? "), "{c}");
        assert!(c.contains("dstar_pow(v1, 2e0)"), "{c}");
        assert!(c.contains("out[1] = 3e0;"), "{c}");
    }
}
