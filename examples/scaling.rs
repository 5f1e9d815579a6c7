//! Set-up against size on the shape zoo (issue 35): the report of section
//! `zoo` of `examples/peers`, on its own.
//!
//! ```text
//! cargo run --release --example scaling                      # every family, N to 8N
//! cargo run --release --example scaling -- --only chain,tree --long   # 4N to 32N
//! cargo run --release --example scaling -- --print tree flat 100 > tree.dstar   # one instance
//! ```

#[path = "peers/zoo.rs"]
mod zoo;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--zoo-child") {
        return zoo::run_child(&args[1..]);
    }
    if let [flag, family, form, n] = &args[..] {
        if flag == "--print" {
            return zoo::print(family, form, n);
        }
    }
    let mut only = Vec::new();
    let mut long = false;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--only" => {
                only = rest.next().map(|v| v.split(',').map(str::to_string).collect()).unwrap_or_default()
            }
            "--long" => long = true,
            other => {
                eprintln!("scaling: unknown argument {other}\nusage: scaling [--only a,b] [--long] | --print FAMILY FORM N");
                std::process::exit(2);
            }
        }
    }
    zoo::report(&only, long);
}
