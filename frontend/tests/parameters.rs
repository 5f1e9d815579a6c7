//! Parameters in the problem format (issue 27): `param` lines anywhere
//! before use, numbered after the inputs wherever they are declared,
//! `# @params` defaults, and printing that parses back to the same program.

use frontend::{parse_program, print_program, Op};

const PENDULUM: &str = "# @point 0.1 0.2
# @params 9.81 0.5
param g, len
in th, om
t = -g / len * sin(th)
out a = t + om^2
";

/// The same, with the declarations interleaved with the statements.
const INTERLEAVED: &str = "# @point 0.1 0.2
# @params 9.81 0.5
in th
param g
t = -g * sin(th)
in om
param len
out a = t / len + om^2
";

#[test]
fn parameters_come_after_the_inputs_wherever_declared() {
    for source in [PENDULUM, INTERLEAVED] {
        let program = parse_program(source).unwrap();
        assert_eq!(program.inputs, ["th", "om"]);
        assert_eq!(program.params, ["g", "len"]);
        assert_eq!(program.param_values, Some(vec![9.81, 0.5]));
        let kernel = program.kernel().unwrap();
        assert_eq!((kernel.num_inputs(), kernel.num_variables()), (4, 2));
        // Inputs 0, 1 are th, om; 2, 3 are g, len.
        let leaves: Vec<u32> = program
            .dag
            .ids()
            .filter_map(|id| match program.dag.op(id) {
                Op::Input(k) => Some(k),
                _ => None,
            })
            .collect();
        assert_eq!(leaves.iter().copied().max(), Some(3), "{leaves:?}");
        let (th, om, g, len) = (0.1f64, 0.2f64, 9.81, 0.5);
        let want =
            if source == PENDULUM { -g / len * th.sin() + om * om } else { -g * th.sin() / len + om * om };
        assert_eq!(kernel.eval(&[th, om, g, len]), vec![want]);
    }
}

#[test]
fn printed_parameters_parse_back_to_the_same_program() {
    for source in [PENDULUM, INTERLEAVED] {
        let program = parse_program(source).unwrap();
        let text = print_program(&program);
        assert!(text.contains("# @params 9.81 0.5\nparam g, len\nin th, om\n"), "{text}");
        let again = parse_program(&text).unwrap();
        assert!(program.same_as(&again), "{text}");
        assert_eq!(again.param_values, program.param_values);
    }
}

#[test]
fn a_program_without_parameters_has_none() {
    let program = parse_program("in x\nout y = x^2").unwrap();
    assert!(program.params.is_empty() && program.param_values.is_none());
    assert!(!print_program(&program).contains("param"));
    let kernel = program.kernel().unwrap();
    assert_eq!((kernel.num_inputs(), kernel.num_variables()), (1, 1));
}
