//! `#[guarded]`, on a `#[pymethods]` block or a `#[pyfunction]`: each
//! function's body runs inside `crate::errors::guard`, which turns a panic
//! into the package's `InternalError`, an ordinary exception, instead of
//! pyo3's `PanicException` (a `BaseException`, which `except Exception`
//! lets through). One attribute per block covers every method in it, the
//! ones added later too.
//!
//! ```ignore
//! #[guard::guarded]
//! #[pymethods]
//! impl Function {
//!     #[getter]
//!     fn n_in(&self) -> usize { ... }   // now returns PyResult<usize>
//! }
//! ```

use proc_macro::TokenStream;
use quote::quote;
use syn::{parse_macro_input, parse_quote, Block, ImplItem, Item, ReturnType, Signature, Type};

/// Runs the body of the function, or of every function of the impl block,
/// it is put on inside `crate::errors::guard`. A function written to return
/// `T` (or nothing) returns `PyResult<T>` (`PyResult<()>`); one returning
/// `PyResult<T>` keeps its signature.
#[proc_macro_attribute]
pub fn guarded(args: TokenStream, item: TokenStream) -> TokenStream {
    if !args.is_empty() {
        let args = proc_macro2::TokenStream::from(args);
        return syn::Error::new_spanned(args, "#[guarded] takes no arguments").to_compile_error().into();
    }
    let mut item = parse_macro_input!(item as Item);
    match &mut item {
        Item::Impl(block) => {
            for item in &mut block.items {
                if let ImplItem::Fn(f) = item {
                    guard(&mut f.sig, &mut f.block);
                }
            }
        }
        Item::Fn(f) => guard(&mut f.sig, &mut f.block),
        other => {
            return syn::Error::new_spanned(other, "#[guarded] goes on an impl block or a function")
                .to_compile_error()
                .into()
        }
    }
    quote!(#item).into()
}

/// Rewrites `sig` and `body` so that the body runs inside the guard.
fn guard(sig: &mut Signature, body: &mut Block) {
    let inner = body.clone();
    *body = match &sig.output {
        ReturnType::Type(_, ty) if is_py_result(ty) => parse_quote!({ crate::errors::guard(|| #inner) }),
        ReturnType::Type(_, ty) => {
            let ty = ty.clone();
            sig.output = parse_quote!(-> ::pyo3::PyResult<#ty>);
            // The body as a closure of its own return type: its `return`s
            // and coercions (`&String` to `&str`) stay what they were.
            parse_quote!({ crate::errors::guard(|| ::std::result::Result::Ok((|| -> #ty #inner)())) })
        }
        ReturnType::Default => {
            sig.output = parse_quote!(-> ::pyo3::PyResult<()>);
            parse_quote!({ crate::errors::guard(|| ::std::result::Result::Ok(#inner)) })
        }
    };
}

/// Whether `ty` is spelled `PyResult<...>` (any path to it).
fn is_py_result(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "PyResult"))
}
