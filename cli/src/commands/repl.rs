//! `dstar repl` (and `dstar` alone): the interactive derivative REPL.

use super::Failure;
use crate::session::Session;
use clap::Args;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Context, Editor, Helper, Highlighter, Hinter, Validator};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

#[derive(Args, Default)]
pub struct ReplArgs {
    /// When reading from a pipe, print each input line (after "> ") before
    /// its result, giving a transcript.
    #[arg(long)]
    echo: bool,
}

pub fn run(args: &ReplArgs) -> Result<(), Failure> {
    let mut session = Session::new();
    if std::io::stdin().is_terminal() {
        interactive(&mut session)
    } else {
        scripted(&mut session, args.echo)
    }
}

/// Reads commands line by line from a pipe; results and errors go to stdout.
fn scripted(session: &mut Session, echo: bool) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(Failure::internal)?;
        if echo {
            let _ = writeln!(out, "> {line}");
        }
        if is_quit(&line) {
            break;
        }
        let reply = match session.execute(&line) {
            Ok(text) if text.is_empty() => continue,
            Ok(text) => text + "\n",
            Err(e) => e.render(&line),
        };
        let _ = out.write_all(reply.as_bytes());
    }
    Ok(())
}

fn is_quit(line: &str) -> bool {
    matches!(line.trim(), ":quit" | ":q" | ":exit")
}

#[derive(Helper, Hinter, Highlighter, Validator)]
struct LineHelper {
    names: Vec<String>,
    commands: Vec<String>,
}

impl Completer for LineHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let start = line[..pos]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .map_or(0, |i| i + 1);
        let word = &line[start..pos];
        let pool = if word.starts_with(':') { &self.commands } else { &self.names };
        let pairs = pool
            .iter()
            .filter(|n| n.starts_with(word))
            .map(|n| Pair { display: n.clone(), replacement: format!("{n}{}", suffix(n)) })
            .collect();
        Ok((start, pairs))
    }
}

/// What completing `name` appends: a space after a command, an opening
/// parenthesis after a built-in function, nothing after a definition.
fn suffix(name: &str) -> &'static str {
    let builtin = dstar::frontend::Op::function_names().any(|f| f == name)
        || matches!(name, "diff" | "grad" | "jacobian" | "hessian");
    if name.starts_with(':') {
        " "
    } else if builtin {
        "("
    } else {
        ""
    }
}

fn history_file() -> Option<PathBuf> {
    std::env::var_os("DSTAR_HISTORY")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".dstar_history")))
}

fn interactive(session: &mut Session) -> Result<(), Failure> {
    let mut editor: Editor<LineHelper, DefaultHistory> = Editor::new().map_err(Failure::internal)?;
    let history = history_file();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!(
        "dstar {} — derivatives at your fingertips. :help for help, Ctrl-D to quit.",
        env!("CARGO_PKG_VERSION")
    );
    loop {
        editor.set_helper(Some(LineHelper { names: session.complete(""), commands: session.complete(":") }));
        match editor.readline("dstar> ") {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                if is_quit(&line) {
                    break;
                }
                match session.execute(&line) {
                    Ok(text) if text.is_empty() => {}
                    Ok(text) => println!("{text}"),
                    Err(e) => eprint!("{}", e.render(&line)),
                }
            }
            Err(ReadlineError::Interrupted) => continue, // Ctrl-C cancels the line
            Err(ReadlineError::Eof) => break,            // Ctrl-D quits
            Err(e) => return Err(Failure::internal(e)),
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}
