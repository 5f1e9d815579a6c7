//! The active part of a kernel: the outputs that depend on a variable and
//! the variables they read, in a DAG of their own with the variables
//! renumbered `0..a`. A second derivative built on it costs what the active
//! part holds, not the kernel's width: the rest of a model taken as maps
//! (cart-pole over 10^5 intervals) has 400,000 outputs, nearly all zero or
//! an input, in 24 nodes, and every Hessian candidate used to seed,
//! graph and search all of them (0.4 s for no entry).

use frontend::{ExprDag, Kernel, Op};

/// A kernel's active part ([`Active::of`]).
#[derive(Clone, Debug)]
pub struct Active {
    /// The active outputs over the active variables (renumbered `0..a`),
    /// then the parameters (`a..`, in order).
    pub kernel: Kernel,
    /// The kernel's output index of each active output, ascending.
    pub outputs: Vec<usize>,
    /// The kernel's variable index of each active variable, ascending.
    pub variables: Vec<usize>,
}

impl Active {
    /// The active part of `function`, or `None` when every output and every
    /// variable is active (nothing to leave out) or `function` has calls
    /// (whose bodies read what their arguments carry).
    pub fn of(function: &Kernel) -> Option<Active> {
        if function.has_calls() {
            return None;
        }
        let (n, m, dag) = (function.num_variables(), function.num_outputs(), function.dag());
        let varies = dag.reads_inputs_below(n);
        let outputs: Vec<usize> = (0..m).filter(|&o| varies[function.roots()[o].index()]).collect();
        let roots: Vec<_> = outputs.iter().map(|&o| function.roots()[o]).collect();
        let reach = dag.reachable(&roots);
        let mut variables: Vec<usize> = dag
            .ids()
            .filter(|v| reach[v.index()])
            .filter_map(|v| match dag.op(v) {
                Op::Input(k) if (k as usize) < n => Some(k as usize),
                _ => None,
            })
            .collect();
        if outputs.len() == m && variables.len() == n {
            return None;
        }
        variables.sort_unstable();
        let a = variables.len();
        let mut position = vec![u32::MAX; n];
        for (j, &k) in variables.iter().enumerate() {
            position[k] = j as u32;
        }
        let mut sub = ExprDag::new();
        let roots = sub.import(dag, &roots, None);
        let sub = sub.renumber_inputs(|k| match position.get(k as usize) {
            Some(&j) => j,
            None => k - n as u32 + a as u32,
        });
        let parameters = function.num_inputs() - n;
        let kernel = Kernel::new(sub, roots, a + parameters).expect("the active inputs").with_variables(a);
        Some(Active { kernel, outputs, variables })
    }

    /// The kernel's input index of input `k` of a kernel derived from the
    /// active one with one input per active output after its own (a
    /// weight): variables and parameters back in place, the weight of
    /// active output `i` at `function`'s inputs plus `outputs[i]`.
    pub fn input(&self, function: &Kernel, k: u32) -> u32 {
        let (k, a) = (k as usize, self.variables.len());
        let own = self.kernel.num_inputs();
        let back = if k < a {
            self.variables[k]
        } else if k < own {
            function.num_variables() + (k - a)
        } else {
            function.num_inputs() + self.outputs[k - own]
        };
        back as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_active_part_holds_what_varies_renumbered() {
        let program =
            frontend::parse_program("in a, b, c, d\nparam p\nout 2\nout a*p\nout b\nout 3*p\nout sin(c)*a")
                .unwrap();
        let f = program.kernel().unwrap();
        let active = Active::of(&f).expect("d and two outputs are inactive");
        assert_eq!(active.outputs, [1, 2, 4]);
        assert_eq!(active.variables, [0, 1, 2]);
        assert_eq!(active.kernel.num_variables(), 3);
        assert_eq!(active.kernel.num_inputs(), 4);
        let (x, p) = ([0.5, -1.0, 2.0], 3.0);
        let values = active.kernel.eval(&[x[0], x[1], x[2], p]);
        let whole = f.eval(&[x[0], x[1], x[2], 7.0, p]);
        assert_eq!(values, [whole[1], whole[2], whole[4]]);
        // Variables, the parameter, then one weight per active output.
        let back: Vec<u32> = (0..7).map(|k| active.input(&f, k)).collect();
        assert_eq!(back, [0, 1, 2, 4, 5 + 1, 5 + 2, 5 + 4]);
    }

    #[test]
    fn a_kernel_all_active_has_no_part_apart() {
        let f = frontend::parse_program("in x, y\nout x*y\nout x+y").unwrap().kernel().unwrap();
        assert!(Active::of(&f).is_none());
    }
}
