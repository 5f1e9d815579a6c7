//! Files with functions load: their calls written out, each output a
//! definition over all the inputs and each one-result function a definition
//! over its arguments, with the values of the file bit for bit.

use super::*;
use dstar::frontend::value::show;

/// The contract's example (parameters, a two-result function called by
/// another, a one-result function used in expressions), with an unused
/// result and a repeated argument.
const FILE: &str = "\
# @params 9.81 0.5
param g, len
in th, om, th1, om1, u
function pendulum(th, om, u, g, len) -> (dth, dom)
  dth = om
  dom = -g / len * sin(th) + u
end
sq(z) = z * z
function euler(th, om, u, g, len) -> (th_next, om_next)
  dth, dom = pendulum(th, om, u, g, len)
  th_next = th + 0.1 * dth
  om_next = om + 0.1 * dom
end
a, b = euler(th, om, u, g, len)
c, unused = pendulum(a, a, u, g, len)
out gap1 = a - th1
out gap2 = b - om1
out cost = sq(u) + 0.01 * sq(om1) + c
";

#[test]
fn a_file_with_functions_loads_with_its_values() {
    let dir = testkit::scratch("dstar-functions");
    let path = dir.path().join("functions.dstar").to_string_lossy().into_owned();
    std::fs::write(&path, FILE).unwrap();
    let mut s = Session::new();
    assert_eq!(
        run(&mut s, &format!(":load {path}")),
        "loaded sq(z), gap1(th, om, th1, om1, u), gap2(th, om, th1, om1, u), \
         cost(th, om, th1, om1, u); param g = 9.81, len = 0.5"
    );
    let program = dstar::frontend::parse_program(FILE).unwrap();
    for point in [[0.1, 0.2, 0.3, -0.4, 0.5], [-1.5, 2.0, 0.0, 1e-3, 7.0]] {
        let mut x = point.to_vec();
        x.extend(program.param_values.as_ref().unwrap());
        let values = dstar::frontend::eval::eval_program(&program, &x);
        let args: Vec<String> = point.iter().map(|v| show(*v)).collect();
        for (output, value) in program.outputs.iter().zip(values) {
            let call = format!("{}({})", output.name, args.join(", "));
            assert_eq!(run(&mut s, &call), show(value), "{call}");
        }
    }
    assert_eq!(run(&mut s, "sq(3)"), "9");
    assert_eq!(run(&mut s, "grad(sq)"), "# columns: z\n[2 * z]");
}
