//! Parameters in the problem format (issue 27): `param` lines anywhere
//! before use, numbered after the inputs wherever they are declared,
//! `# @params` defaults, and printing that parses back to the same program;
//! parameters in single expressions (the REPL's `param a`).

use frontend::{parse_expr_in, parse_program, print_program, Functions, Op, Program};

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

/// Functions and parameters declared outside the expression, as the REPL's.
struct Declared {
    functions: Vec<(&'static str, Program)>,
    params: &'static [&'static str],
}

impl Functions for Declared {
    fn function(&self, name: &str) -> Option<&Program> {
        self.functions.iter().find(|(n, _)| *n == name).map(|(_, p)| p)
    }

    fn is_parameter(&self, name: &str) -> bool {
        self.params.contains(&name)
    }
}

#[test]
fn declared_parameters_of_an_expression_are_not_its_variables() {
    let declared = Declared { functions: vec![], params: &["b", "a"] };
    // Discovered variables; parameters in order of first appearance.
    let p = parse_expr_in("a*x + y*b - a", None, &declared).unwrap();
    assert_eq!(p.inputs, ["x", "y"]);
    assert_eq!(p.params, ["a", "b"]);
    let kernel = p.kernel().unwrap();
    assert_eq!((kernel.num_inputs(), kernel.num_variables()), (4, 2));
    assert_eq!(kernel.eval(&[2.0, 3.0, 10.0, 100.0]), vec![10.0 * 2.0 + 3.0 * 100.0 - 10.0]);
    // Given variables: a parameter is not "not one of the given variables".
    let p = parse_expr_in("a*x", Some(&["x"]), &declared).unwrap();
    assert_eq!(p.inputs, ["x"]);
    assert_eq!(p.params, ["a"]);
    assert!(parse_expr_in("a*x", Some(&["x"]), &frontend::parser::NoFunctions).is_err());
    // A given variable of the same name is the variable.
    let p = parse_expr_in("a*x", Some(&["x", "a"]), &declared).unwrap();
    assert!(p.params.is_empty());
}

#[test]
fn an_inlined_function_keeps_its_parameters_by_name() {
    // g(x) = c * x^2 with the parameter c; h = c + d.
    let g = parse_program("param c\nin x\nout c * x^2").unwrap();
    let h = parse_expr_in("c + d", Some(&[]), &Declared { functions: vec![], params: &["c", "d"] }).unwrap();
    let declared = Declared { functions: vec![("g", g), ("h", h)], params: &["d"] };
    let p = parse_expr_in("d * g(y + 1) + h", None, &declared).unwrap();
    assert_eq!(p.inputs, ["y"]);
    assert_eq!(p.params, ["d", "c"]);
    let (y, d, c) = (0.5f64, 3.0, 7.0);
    assert_eq!(p.kernel().unwrap().eval(&[y, d, c]), vec![d * (c * ((y + 1.0) * (y + 1.0))) + (c + d)]);
    // A function's parameter named like a variable of the expression.
    let e = parse_expr_in("g(1) + c", Some(&["c"]), &declared).unwrap_err();
    assert_eq!(
        e.to_string(),
        "1:1: 'c' is a parameter of a function called here and a variable of the expression"
    );
}
