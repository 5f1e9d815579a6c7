//! A `dstar.Function` called on expressions: the function as a
//! [`FunctionDef`] (its inputs, then its parameters, the arguments; its
//! outputs the results). The functions a built program calls are named
//! apart by the library ([`dstar::frontend::named_apart`]).

use dstar::frontend::FunctionDef;
use dstar::Program;
use std::sync::Arc;

/// An error unless `name` is an identifier that is not reserved; `role`
/// says what it would name (`"a symbol"`).
pub(crate) fn check_name(name: &str, role: &str) -> Result<(), String> {
    match dstar::frontend::parser::check_name(name) {
        Some(wrong) => Err(wrong.message(name, role)),
        None => Ok(()),
    }
}

/// `program` as the function `name`: its arguments the inputs, then the
/// parameters (all of them arguments, as the problem format passes data to
/// a function), its results the outputs. Its body keeps the program's calls.
pub(crate) fn definition(name: &str, program: &Program) -> Arc<FunctionDef> {
    let body = program.kernel().expect("a Function's program reads only its inputs and parameters");
    Arc::new(FunctionDef::new(name.to_string(), program.leaves(), program.output_names(), body))
}
