//! The README against the code: its list of functions is the table of
//! operations' list, and what it says the library offers is reachable.

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

/// The README's "lower levels", and its library examples, through the one
/// `dstar` dependency a user adds (each call checked to run, not only to
/// name something that exists).
#[test]
fn readme_lower_levels_are_reachable_through_dstar() -> Result<(), dstar::Error> {
    let program = dstar::frontend::parse_program("in x, y\nout f = x*x*y\nout g = sin(x) + y^2")?;
    let kernel = program.kernel()?;
    let jacobian = dstar::factor::jacobian(kernel.clone());
    assert_eq!(jacobian.nnz(), 4);
    let lagrangian = dstar::factor::lagrangian_hessian(kernel.clone());
    let first = dstar::factor::hessian(kernel.clone(), 0);
    assert!(lagrangian.lower_entries().count() >= first.lower_entries().count());
    for product in [
        dstar::factor::jvp(kernel.clone(), 2),
        dstar::factor::vjp(kernel.clone(), 2),
        dstar::factor::hvp(kernel.clone(), 1),
    ] {
        assert!(product.num_outputs() > 0);
    }
    let single = dstar::frontend::parse_program("in x, y\nout x*x*y")?.kernel()?;
    assert_eq!(dstar::factor::gradient(single).num_outputs(), 3, "the value, then the gradient");
    let jit = dstar::JitCompiler::new()?.compile(jacobian.kernel())?;
    let mut out = vec![0.0; jit.num_outputs()];
    jit.eval(&[1.0, 2.0], &mut out)?;
    assert!(dstar::emit_c(jacobian.kernel(), "jac", &[2]).is_ok_and(|c| c.contains("jac")));
    assert!(dstar::emit_rust(jacobian.kernel(), "jac", &[2]).is_ok_and(|r| r.contains("jac")));
    let layout = jacobian.layout();
    let parts: Vec<_> = ["values", "jac"].into_iter().zip(layout.blocks()).collect();
    let header = dstar::emit_c_header(jacobian.kernel(), "jac", &[2], &parts);
    assert!(header.is_ok_and(|h| h.contains("#define JAC_JAC_NNZ 4")));
    // The README's second-order example.
    let function = dstar::Function::new(program, dstar::Options::default());
    let h = function.compile(dstar::Request::Hessian)?;
    let mut lower = vec![0.0; h.out_len()];
    h.eval(dstar::Args::x(&[1.0, 2.0]).w(&[1.0, 0.5]), &mut lower)?;
    let dense = h.eval_dense(dstar::Args::x(&[1.0, 2.0]).w(&[1.0, 0.5]))?.remove(0);
    // Σ wᵢ∇²fᵢ = [[2y - 0.5 sin x, 2x], [2x, 1]] at (1, 2).
    let want = [[4.0 - 0.5 * 1f64.sin(), 2.0], [2.0, 1.0]];
    for (row, want) in dense.iter().zip(want) {
        for (got, want) in row.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{dense:?}");
        }
    }
    Ok(())
}
