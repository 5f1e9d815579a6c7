//! Calls of functions in compiled kernels: each function a kernel calls
//! (each level of a derivative chain, [`frontend::call`]) is compiled once,
//! as a kernel of its own, and every call site runs its chunks.
//!
//! A kernel with calls keeps, after its plan's scratch slots, a call area
//! in the same scratch: the results of each site it calls (a row per lane),
//! one argument row, and the scratch of the callee being run. A site is
//! called where the chunks first read one of its results; later reads load
//! them from its row, which nothing overwrites.

use crate::kernel::{Callees, JitKernel};
use frontend::{ExprDag, NodeId};
use std::sync::Arc;

/// Where a kernel's calls keep what they hand on, in its scratch, in
/// values from the scratch's start.
pub(crate) struct CallLayout {
    /// Per site the kernel calls: where its results start, and its callee.
    sites: Vec<Option<(usize, Arc<JitKernel>)>>,
    /// The argument row.
    pub(crate) args_at: usize,
    /// The callee's scratch.
    pub(crate) callee_scratch_at: usize,
    /// Where the area ends: the scratch length the kernel needs.
    pub(crate) end: usize,
}

impl CallLayout {
    /// The call area of the sites `outputs` of `dag` reach, from value
    /// `start` of the scratch, for `lanes` points per call.
    pub(crate) fn new(
        dag: &ExprDag,
        outputs: &[NodeId],
        callees: &Callees,
        start: usize,
        lanes: usize,
    ) -> CallLayout {
        let mut sites = vec![None; dag.sites().len()];
        let mut at = start;
        let (mut args, mut scratch) = (0, 0);
        for s in dag.reached_sites(outputs) {
            let site = dag.site(s);
            let kernel = Arc::clone(callees.get(&site.called()));
            sites[s as usize] = Some((at, Arc::clone(&kernel)));
            at += lanes * kernel.num_outputs();
            args = args.max(site.args.len());
            scratch = scratch.max(kernel.scratch_len());
        }
        CallLayout { sites, args_at: at, callee_scratch_at: at + args, end: at + args + scratch }
    }

    /// Where site `site`'s results start (lane 0; lane `l` follows at
    /// `l` times its result count), and its compiled callee.
    pub(crate) fn site(&self, site: u32) -> (usize, &JitKernel) {
        let (at, kernel) = self.sites[site as usize].as_ref().expect("a site the kernel reads");
        (*at, kernel)
    }
}
