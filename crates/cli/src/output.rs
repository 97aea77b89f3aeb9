//! What the commands print: a line for people on standard output, or a JSON line with `--json`;
//! notes about the command itself (connecting, retrying) go to standard error in both modes.

use serde_json::Value;
use std::fmt::Display;
use std::io::Write;

/// Prints results in the mode the command line chose.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Printer {
    json: bool,
}

impl Printer {
    pub(crate) fn new(json: bool) -> Self {
        Self { json }
    }

    /// One result: `human` for people, `json` as one line of JSON.
    pub(crate) fn line(&self, human: impl Display, json: &Value) {
        let mut out = std::io::stdout().lock();
        let written = if self.json { writeln!(out, "{json}") } else { writeln!(out, "{human}") };
        match written.and_then(|()| out.flush()) {
            Ok(()) => {}
            // Whoever read the output is gone (`payments listen | head`): so is the point of going on.
            Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            Err(error) => {
                eprintln!("payments: cannot write the output: {error}");
                std::process::exit(1);
            }
        }
    }

    /// A note on standard error.
    pub(crate) fn note(&self, text: impl Display) {
        eprintln!("{text}");
    }
}
