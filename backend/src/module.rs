//! [`OwnedModule`]: the memory of finalized code, freed when its last user
//! is dropped, and the entries of the functions it holds.

use cranelift_codegen::ir::Signature;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Module};
use std::sync::{Mutex, PoisonError};

/// Owns a module's code and frees it on drop (dropping a `JITModule`
/// alone leaks it). The mutex only makes the owner `Sync`; it is never
/// locked, since the module is touched only through `&mut self`.
pub(crate) struct OwnedModule(Mutex<Option<JITModule>>);

impl OwnedModule {
    /// Takes ownership of `module`.
    pub(crate) fn new(module: JITModule) -> OwnedModule {
        OwnedModule(Mutex::new(Some(module)))
    }

    /// The module, to define and finalize functions in.
    pub(crate) fn module_mut(&mut self) -> &mut JITModule {
        self.0
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
            .expect("the module is present until drop")
    }
}

impl Drop for OwnedModule {
    fn drop(&mut self) {
        if let Some(module) = self.0.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
            // SAFETY: the code is unreachable from here on: a kernel keeps its
            // chunk pointers private and drops its `OwnedModule` only when it is
            // itself dropped, so no call is running (calls borrow the kernel) and
            // none can start.
            unsafe { module.free_memory() };
        }
    }
}

/// The entry addresses of the finalized `chunks` of `module`. Panics if a
/// chunk is not a function with `signature`: the calls rely on it.
pub(crate) fn finalized(module: &JITModule, chunks: &[FuncId], signature: &Signature) -> Vec<*const u8> {
    chunks
        .iter()
        .map(|&id| {
            let decl = module.declarations().get_function_decl(id);
            assert_eq!(&decl.signature, signature, "chunk {id} has the expected signature");
            module.get_finalized_function(id)
        })
        .collect()
}
