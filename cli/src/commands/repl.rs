//! `dstar repl` (and `dstar` alone): the interactive derivative REPL.

use super::Failure;
use crate::session::{Session, SessionError};
use clap::Args;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Context, Editor, Helper, Highlighter, Hinter, Validator};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

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
/// A failed line (one that is not UTF-8 too) does not stop the others; if
/// any failed, the exit status says so at the end.
fn scripted(session: &mut Session, echo: bool) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut input = std::io::stdin().lock();
    let mut bytes = vec![];
    let (mut lines, mut failed) = (0usize, 0usize);
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes).map_err(Failure::internal)? == 0 {
            break;
        }
        lines += 1;
        let text = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if echo {
            let _ = writeln!(out, "> {}", String::from_utf8_lossy(text));
        }
        let line = match std::str::from_utf8(text) {
            Ok(line) => line,
            Err(e) => {
                failed += 1;
                let _ = write!(
                    out,
                    "{}",
                    not_utf8(text, &e).render_in_script(&String::from_utf8_lossy(text), lines)
                );
                continue;
            }
        };
        if is_quit(line) {
            break;
        }
        let reply = match session.execute(line) {
            Ok(text) if text.is_empty() => continue,
            Ok(text) => text + "\n",
            Err(e) => {
                failed += 1;
                e.render_in_script(line, lines)
            }
        };
        let _ = out.write_all(reply.as_bytes());
    }
    match failed {
        0 => Ok(()),
        _ => Err(Failure::input(format!("error: {failed} of {lines} lines failed\n"))),
    }
}

/// The error for the line `text`, which is not UTF-8, at its first bad
/// byte (a column of the line decoded lossily).
fn not_utf8(text: &[u8], e: &std::str::Utf8Error) -> SessionError {
    let valid = e.valid_up_to();
    let column = String::from_utf8_lossy(&text[..valid]).chars().count();
    SessionError {
        message: format!("the line is not valid UTF-8 (byte 0x{:02x}); it was skipped", text[valid]),
        span: Some((column, column + 1)),
        printed: String::new(),
    }
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
    let builtin =
        dstar::frontend::Op::function_names().any(|f| f == name) || crate::session::FORMS.contains(&name);
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
    // While a statement computes, the terminal is not in raw mode: Ctrl-C
    // is a SIGINT, which sets this flag instead of ending the process.
    let sigint = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&sigint))
        .map_err(Failure::internal)?;
    println!(
        "dstar {} — derivatives at your fingertips. :help for help, Ctrl-C stops a computation, Ctrl-D quits.",
        env!("CARGO_PKG_VERSION")
    );
    loop {
        editor.set_helper(Some(LineHelper { names: session.complete(""), commands: session.complete(":") }));
        match editor.readline("dstar> ") {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                    // Written as we go: a session that ends badly keeps it.
                    if let Some(h) = &history {
                        let _ = editor.append_history(h);
                    }
                }
                if is_quit(&line) {
                    break;
                }
                match interruptible(session, &line, &sigint) {
                    Ok(text) if text.is_empty() => {}
                    Ok(text) => println!("{text}"),
                    Err(e) => eprint!("{}", e.render(&line)),
                }
            }
            Err(ReadlineError::Interrupted) => continue, // Ctrl-C cancels the line
            Err(ReadlineError::Eof) => break,            // Ctrl-D quits
            Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                eprintln!("error: the line is not valid UTF-8; it was skipped");
            }
            Err(ReadlineError::Signal(_)) => continue, // a resized window
            Err(e) => return Err(Failure::internal(e)),
        }
    }
    Ok(())
}

/// Runs `line` on a copy of the session in a worker thread and keeps the
/// copy only if the line completes. Ctrl-C (`sigint`) returns at once with
/// "interrupted" and the session as it was; the worker is told to stop
/// (long stages check between steps) and its copy is dropped when it does.
fn interruptible(session: &mut Session, line: &str, sigint: &AtomicBool) -> Result<String, SessionError> {
    sigint.store(false, Ordering::SeqCst);
    let stop = Arc::new(AtomicBool::new(false));
    let mut job = session.clone();
    job.set_interrupt(Arc::clone(&stop));
    let (done, result) = mpsc::channel();
    let text = line.to_string();
    std::thread::Builder::new()
        .name("dstar-statement".into())
        // The stages walk DAGs iteratively; the margin is for the JIT.
        .stack_size(64 << 20)
        .spawn(move || {
            let reply = job.execute(&text);
            let _ = done.send((job, reply));
        })
        .map_err(|e| SessionError::new(format!("cannot start the computation: {e}")))?;
    loop {
        match result.recv_timeout(Duration::from_millis(20)) {
            Ok((job, reply)) => {
                *session = job;
                return reply;
            }
            Err(mpsc::RecvTimeoutError::Timeout) if sigint.swap(false, Ordering::SeqCst) => {
                stop.store(true, Ordering::SeqCst);
                return Err(SessionError::interrupted());
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(SessionError::new(
                    "the computation failed unexpectedly; the session is as it was",
                ))
            }
        }
    }
}
