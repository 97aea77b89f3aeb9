//! The `payments` binary's client commands run as a developer runs them: a process with
//! `PAYMENTS_API_BASE` and `PAYMENTS_KEY`, its output read line by line. A long-running one
//! (`listen`, `logs tail`) is killed when the test drops it.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A command that ran to its end.
#[derive(Debug)]
pub struct Finished {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    /// The standard output's lines as JSON (a command run with `--json`).
    pub fn json_lines(&self) -> Vec<serde_json::Value> {
        json_lines(self.stdout.lines())
    }
}

/// Lines of output as JSON (a command run with `--json`).
fn json_lines<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<serde_json::Value> {
    lines.map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}"))).collect()
}

fn command(address: &str, key: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payments"));
    command.args(args).env("PAYMENTS_API_BASE", address).env("PAYMENTS_KEY", key).env_remove("RUST_BACKTRACE");
    command
}

/// Runs `payments ARGS` against `address` with `key` to its end.
pub async fn payments(address: &str, key: &str, args: &[&str]) -> Finished {
    let mut command = command(address, key, args);
    let output = tokio::task::spawn_blocking(move || command.output()).await.unwrap().expect("run payments");
    Finished {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A command still running, its output collected as it comes.
pub struct Running {
    child: Child,
    stdout: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Running {
    pub fn start(address: &str, key: &str, args: &[&str]) -> Self {
        let mut child =
            command(address, key, args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start payments");
        let collect = |stream: Box<dyn std::io::Read + Send>| {
            let lines: Arc<Mutex<Vec<String>>> = Arc::default();
            let sink = lines.clone();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(stream).lines().map_while(Result::ok) {
                    sink.lock().unwrap_or_else(PoisonError::into_inner).push(line);
                }
            });
            lines
        };
        let stdout = collect(Box::new(child.stdout.take().expect("piped")));
        let stderr = collect(Box::new(child.stderr.take().expect("piped")));
        Self { child, stdout, stderr }
    }

    /// The lines printed on standard output so far.
    pub fn lines(&self) -> Vec<String> {
        self.stdout.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Those lines as JSON (a command run with `--json`).
    pub fn json_lines(&self) -> Vec<serde_json::Value> {
        json_lines(self.lines().iter().map(String::as_str))
    }

    /// Waits until `count` lines of standard output match `wanted`; panics with all the output
    /// after `within`.
    pub async fn wait_for(&self, count: usize, within: Duration, wanted: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + within;
        loop {
            let matching: Vec<String> = self.lines().into_iter().filter(|line| wanted(line)).collect();
            if matching.len() >= count {
                return matching;
            }
            assert!(
                Instant::now() < deadline,
                "{} of {count} lines came.\nstdout: {:#?}\nstderr: {:#?}",
                matching.len(),
                self.lines(),
                self.stderr.lock().unwrap_or_else(PoisonError::into_inner)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
