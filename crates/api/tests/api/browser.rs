//! A headless Chromium driven through chromedriver (Debian's `chromium` and `chromium-driver`;
//! `.ci/run` installs them) for the hosted pages' browser tests, with JavaScript off as the pages
//! must work without it (on for Payrex.js, which is JavaScript). Screenshots go under `target/screenshots/` for a person to look at.

use crate::helpers::TestApp;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A chromedriver child process and a headless Chromium session on it; both end on drop, with every
/// process they started.
pub(crate) struct Browser {
    pub(crate) client: Client,
    driver: Child,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Chromium runs as chromedriver's children, in the process group chromedriver leads: end the
        // whole group, or every test would leave a browser behind (killing chromedriver alone
        // orphans them, and a few runs of the suite then fill the machine's memory).
        let group = format!("-{}", self.driver.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// A browser with JavaScript off, as the hosted pages must work.
pub(crate) async fn browser() -> Browser {
    launch(false, &[]).await
}

/// A browser with JavaScript on, for the pages that load Payrex.js.
pub(crate) async fn browser_with_javascript() -> Browser {
    launch(true, &[]).await
}

/// A browser with JavaScript on and Chromium's `arguments` besides the usual ones.
pub(crate) async fn browser_with_javascript_and(arguments: &[String]) -> Browser {
    launch(true, arguments).await
}

async fn launch(javascript: bool, arguments: &[String]) -> Browser {
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    let driver = Command::new(std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into()))
        .arg(format!("--port={port}"))
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver runs (install Debian's chromium and chromium-driver, as .ci/run does)");
    let mut capabilities = serde_json::Map::new();
    let javascript_setting = if javascript { 1 } else { 2 };
    let mut options = json!({"args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1280,1000"], "prefs": {"profile.managed_default_content_settings.javascript": javascript_setting}});
    if let Some(args) = options["args"].as_array_mut() {
        args.extend(arguments.iter().map(|argument| json!(argument)));
    }
    if let Ok(binary) = std::env::var("CHROMIUM") {
        options["binary"] = json!(binary);
    }
    capabilities.insert("goog:chromeOptions".into(), options);
    // A page's alert (PayRex's PHP sample reports with one) stays open until the test reads it,
    // rather than being dismissed by whatever command comes while it shows.
    capabilities.insert("unhandledPromptBehavior".into(), json!("ignore"));
    let mut last_error = None;
    for _ in 0..50 {
        let mut builder = ClientBuilder::new(HttpConnector::new());
        match builder.capabilities(capabilities.clone()).connect(&format!("http://127.0.0.1:{port}")).await {
            Ok(client) => return Browser { client, driver },
            Err(error) => last_error = Some(error),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no browser session: {last_error:?}");
}

impl Browser {
    pub(crate) async fn fill(&self, id: &str, text: &str) {
        let input = self.client.find(Locator::Id(id)).await.unwrap();
        input.clear().await.unwrap();
        input.send_keys(text).await.unwrap();
    }

    pub(crate) async fn click(&self, css: &str) {
        let waiting = self.client.wait().at_most(Duration::from_secs(5));
        let Ok(element) = waiting.for_element(Locator::Css(css)).await else {
            panic!("no {css} on {}: {}", self.url().await, self.text().await);
        };
        element.click().await.unwrap();
    }

    pub(crate) async fn fill_card(&self, number: &str) {
        self.click("input[value=card]").await;
        for (id, text) in [("cc-number", number), ("cc-exp-month", "12"), ("cc-exp-year", "35"), ("cc-csc", "123")] {
            self.fill(id, text).await;
        }
        self.fill_billing().await;
    }

    pub(crate) async fn fill_billing(&self) {
        for (id, text) in [
            ("name", "Ana Cruz"),
            ("email", "ana@example.com"),
            ("address-line1", "1 Rizal St"),
            ("address-level2", "Manila"),
            ("postal-code", "1000"),
            ("country", "PH"),
        ] {
            self.fill(id, text).await;
        }
    }

    /// Presses `keys` on the keyboard, one after the other, wherever the focus is (a frame too).
    pub(crate) async fn press(&self, keys: &str) {
        use fantoccini::actions::{InputSource, KeyAction, KeyActions};
        let mut actions = KeyActions::new("keyboard".into());
        for key in keys.chars() {
            actions = actions.then(KeyAction::Down { value: key }).then(KeyAction::Up { value: key });
        }
        self.client.perform_actions(actions).await.unwrap();
    }

    pub(crate) async fn pay(&self) {
        self.click("button.pay").await;
    }

    /// Waits (up to 5 s: a click's navigation may still be under way) until the address contains
    /// `part`, and returns it.
    pub(crate) async fn arrive(&self, part: &str) -> String {
        for _ in 0..50 {
            let url = self.url().await;
            if url.contains(part) {
                return url;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("never arrived at {part}: at {} showing {}", self.url().await, self.text().await);
    }

    /// Waits (up to 5 s) until the page shows `words`, and returns the page's text.
    pub(crate) async fn see(&self, words: &str) -> String {
        for _ in 0..50 {
            let text = self.text().await;
            if text.contains(words) {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("never saw {words:?}: at {} showing {}", self.url().await, self.text().await);
    }

    pub(crate) async fn url(&self) -> String {
        self.client.current_url().await.unwrap().to_string()
    }

    pub(crate) async fn text(&self) -> String {
        match self.client.find(Locator::Css("body")).await {
            Ok(body) => body.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    pub(crate) async fn screenshot(&self, name: &str) {
        let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/screenshots");
        std::fs::create_dir_all(&directory).unwrap();
        std::fs::write(directory.join(format!("{name}.png")), self.client.screenshot().await.unwrap()).unwrap();
    }
}

pub(crate) fn percent(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

pub(crate) fn backend_name(app: &TestApp) -> &'static str {
    match app.database.backend() {
        payments_adapters::db::Backend::Sqlite => "sqlite",
        payments_adapters::db::Backend::Postgres => "postgres",
    }
}
