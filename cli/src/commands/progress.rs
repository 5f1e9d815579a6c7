//! A spinner on stderr for work that runs longer than about a second; never
//! shown when stderr is not a terminal. Each stage it names is also the one
//! the memory guard names ([`crate::memory`]).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// Shows `message` with a spinner once the work has taken a second; clears
/// it when dropped.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// Starts timing; the spinner appears only if the work outlasts a second.
    pub fn start(message: &'static str) -> Progress {
        crate::memory::stage(message);
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"));
        bar.set_message(message.to_string());
        let delayed = bar.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            if !delayed.is_finished() {
                // `stderr()` hides itself when stderr is not a terminal.
                delayed.set_draw_target(ProgressDrawTarget::stderr());
                delayed.enable_steady_tick(Duration::from_millis(100));
            }
        });
        Progress { bar }
    }

    /// Names the current stage.
    pub fn stage(&self, message: &'static str) {
        crate::memory::stage(message);
        self.bar.set_message(message.to_string());
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
