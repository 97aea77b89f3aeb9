//! Real `payments` processes on one database, for scale-out and crash tests: each is started on a
//! port of its own with a short webhook lease, and killed (SIGKILL, no clean shutdown) when the test
//! says so or when it is dropped, so a failing test leaves none behind.

use serde_json::Value;
use std::io::BufRead;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// A running service process.
pub struct Instance {
    child: std::process::Child,
    pub address: String,
    /// What the process printed on standard output (the first account's keys, on a first start).
    printed: Arc<Mutex<String>>,
}

impl Instance {
    /// Starts the binary on `database_url` and waits until it is ready.
    pub async fn start(database_url: &str) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        Self::start_on(database_url, port).await
    }

    /// Starts the binary on `database_url` listening on `port` (again, after a kill) and waits
    /// until it is ready.
    pub async fn start_on(database_url: &str, port: u16) -> Self {
        Self::start_with(database_url, port, &[]).await
    }

    /// As [`Instance::start_on`], with more settings as `PAYMENTS__…` variables.
    pub async fn start_with(database_url: &str, port: u16, settings: &[(&str, &str)]) -> Self {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_payments"))
            .arg("serve")
            .env("PAYMENTS__DATABASE__URL", database_url)
            .env("PAYMENTS__SERVER__LISTEN", format!("127.0.0.1:{port}"))
            .env("PAYMENTS__SERVER__PUBLIC_BASE_URL", format!("http://127.0.0.1:{port}"))
            .env("PAYMENTS__SERVER__WORKERS", "2")
            .env("PAYMENTS__WEBHOOKS__LEASE_SECONDS", "3")
            .env("PAYMENTS__WEBHOOKS__TIMEOUT_SECONDS", "2")
            .env("PAYMENTS__WEBHOOKS__POLL_INTERVAL_MS", "200")
            .env("PAYMENTS__LOG__LEVEL", "warn")
            .envs(settings.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the payments binary");
        let printed = Arc::new(Mutex::new(String::new()));
        let stdout = child.stdout.take().expect("piped standard output");
        let sink = printed.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                let mut text = sink.lock().unwrap_or_else(PoisonError::into_inner);
                text.push_str(&line);
                text.push('\n');
            }
        });
        // Built before waiting, so that a start that never gets ready is killed when dropped.
        let instance = Self { child, address: format!("http://127.0.0.1:{port}"), printed };
        let client = reqwest::Client::new();
        for _ in 0..150 {
            let ready = client.get(format!("{}/readyz", instance.address)).send().await;
            if ready.is_ok_and(|r| r.status() == 200) {
                return instance;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the instance on port {port} did not become ready");
    }

    /// The test secret key this instance printed as the first account's, once it has printed it.
    pub fn printed_key(&self) -> Option<String> {
        let text = self.printed.lock().unwrap_or_else(PoisonError::into_inner).clone();
        // The account is printed as pretty JSON, closed by a line holding only "}".
        let json = &text[..text.find("\n}\n")? + 2];
        Some(serde_json::from_str::<Value>(json).ok()?["test"]["secret_key"].as_str()?.to_owned())
    }

    /// Waits up to ten seconds for [`Instance::printed_key`].
    pub async fn wait_for_printed_key(&self) -> String {
        for _ in 0..100 {
            if let Some(key) = self.printed_key() {
                return key;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no first account was printed")
    }

    /// Asks the process to stop, as an orchestrator does (SIGTERM).
    pub fn terminate(&self) {
        let sent = std::process::Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        assert!(sent.is_ok_and(|status| status.success()), "send SIGTERM");
    }

    /// Waits up to `within` for the process to exit, and answers its exit status.
    pub async fn exited_within(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        None
    }

    /// Kills the process at once, as a crash would.
    pub fn kill_now(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// `a=1&b[]=2` as form pairs for reqwest, keeping the keys as written.
pub fn form_pairs(body: &str) -> Vec<(String, String)> {
    body.split('&').filter_map(|pair| pair.split_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
}
