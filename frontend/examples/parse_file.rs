//! Parses a problem file and prints its size and the time taken:
//! `cargo run --release -p dstar-frontend --example parse_file -- FILE`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: parse_file FILE");
    let source = std::fs::read_to_string(&path).expect("readable file");
    let start = std::time::Instant::now();
    match frontend::parse_program(&source) {
        Ok(p) => println!(
            "{} nodes, {} ops, parsed in {:.1} ms",
            p.dag.len(),
            p.count_ops(),
            start.elapsed().as_secs_f64() * 1e3
        ),
        Err(e) => eprint!("{}", e.render(&source)),
    }
}
