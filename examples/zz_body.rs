//! temp
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    let p = dstar::frontend::parse_program(&src).unwrap();
    let k = p.kernel().unwrap();
    let d = dstar::factor::plan::maps(&k).unwrap();
    let g = dstar::factor::mapped_gradient(&d);
    for piece in &g.pieces {
        let body = &piece.body;
        eprintln!(
            "body: {} inputs {} outputs {} ops, {} instances",
            body.num_inputs(),
            body.num_outputs(),
            body.count_ops(),
            piece.instances
        );
        let asm = dstar::JitCompiler::new().unwrap().disassemble(body, 2).unwrap();
        std::fs::write(format!("/tmp/body{}.s", piece.instances), asm).unwrap();
    }
}
