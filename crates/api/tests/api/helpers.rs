//! `spawn_app` and request helpers shared by the tests.

use payments_adapters::clock::RealTime;
use payments_adapters::db::testing::TestDatabase;
use payments_adapters::db::Backend;
use payments_adapters::webhooks::DeliveryWorker;
use payments_api::settings::Settings;
use payments_api::startup::Application;
use payments_api::state::Services;
use reqwest::header::CONTENT_TYPE;
use reqwest::redirect::Policy;
use reqwest::{Method, RequestBuilder, Response};
use serde_json::Value;
use std::sync::Arc;

/// The four keys of a test account.
pub struct Keys {
    pub secret_test: String,
    pub public_test: String,
    pub secret_live: String,
    pub public_live: String,
}

/// A running application with two accounts.
pub struct TestApp {
    /// Stopped first when the app is dropped, before its database goes.
    _serving: Serving,
    pub address: String,
    pub client: reqwest::Client,
    pub keys: Keys,
    /// The test secret key of a second account.
    pub other_account_key: String,
    pub database: TestDatabase,
    /// The application's clock, which tests move forward.
    /// This instance's real time, which tests move forward (test clocks move with the API).
    pub clock: Arc<RealTime>,
    pub services: Services,
    /// The webhook worker when the test drives it (see [`spawn_app_stepping_deliveries`]); `None`
    /// when it runs in the background.
    worker: Option<Arc<DeliveryWorker>>,
}

/// Starts the application on a random port over a fresh database of `backend`.
pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, |_| {}).await
}

/// As [`spawn_app`], with the test settings changed by `configure` first.
pub async fn spawn_app_with(backend: Backend, configure: impl FnOnce(&mut Settings)) -> TestApp {
    launch(backend, configure, Deliveries::InBackground).await
}

/// As [`spawn_app`], with no webhook worker in the background: the test sends due deliveries with
/// [`TestApp::deliver_due`] and moves time with the clock. Retries wait 10 s, 20 s, 40 s …, so no
/// retry falls due between two steps of a test by itself.
pub async fn spawn_app_stepping_deliveries(backend: Backend) -> TestApp {
    let configure = |settings: &mut Settings| {
        settings.webhooks.retry_base_ms = 10_000;
        settings.webhooks.retry_cap_ms = 3_600_000;
    };
    launch(backend, configure, Deliveries::Stepped).await
}

/// As [`spawn_app`], serving requests only: no background job sends anything to the database, so
/// what a request sends can be counted alone. Its request log is off (nothing would write it).
pub async fn spawn_app_serving_requests_only(backend: Backend) -> TestApp {
    launch(backend, |settings| settings.request_log.enabled = false, Deliveries::None).await
}

/// Who runs the webhook worker, and whether the other background jobs run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Deliveries {
    InBackground,
    Stepped,
    /// No background job at all.
    None,
}

async fn launch(backend: Backend, configure: impl FnOnce(&mut Settings), deliveries: Deliveries) -> TestApp {
    let database = tokio::task::spawn_blocking(move || TestDatabase::new(backend)).await.expect("create the database");
    let mut settings = Settings::load().expect("load settings");
    // The port is reserved first so the public base URL (redirect pages) names the real address.
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    settings.server.listen = format!("127.0.0.1:{port}");
    settings.server.public_base_url = format!("http://127.0.0.1:{port}");
    settings.server.workers = 2;
    settings.database.url = database.url().to_owned();
    settings.database.pool_size = 4;
    settings.database.connect_timeout_seconds = 1;
    // A short webhook schedule without jitter, so retries and takeovers happen within a test.
    settings.webhooks.retry_base_ms = 300;
    settings.webhooks.retry_cap_ms = 5_000;
    settings.webhooks.jitter = 0.0;
    settings.webhooks.timeout_seconds = 1;
    settings.webhooks.lease_seconds = 2;
    settings.webhooks.poll_interval_ms = 200;
    // A short body deadline, so a trickled body is cut off within a test.
    settings.server.request_timeout_seconds = 2;
    configure(&mut settings);
    let settings = settings.validate().expect("valid test settings");
    let clock = Arc::new(RealTime::default());
    let mut application = Application::build_with_clock(settings, clock.clone()).await.expect("build the application");
    let worker = match deliveries {
        Deliveries::InBackground | Deliveries::None => None,
        Deliveries::Stepped => application.detach_delivery_worker().map(Arc::new),
    };
    let services = application.services().clone();
    let accounts = application.services().accounts.clone();
    let (keys, other_account_key) = tokio::task::spawn_blocking(move || {
        let (_, keys) = accounts.create("Acme").expect("create the account");
        let (_, other) = accounts.create("Other").expect("create the other account");
        (
            Keys {
                secret_test: keys.secret_test.reveal().to_owned(),
                public_test: keys.public_test.reveal().to_owned(),
                secret_live: keys.secret_live.reveal().to_owned(),
                public_live: keys.public_live.reveal().to_owned(),
            },
            other.secret_test.reveal().to_owned(),
        )
    })
    .await
    .expect("create accounts");
    let address = format!("http://127.0.0.1:{}", application.port());
    let serving = Serving::start(application, deliveries != Deliveries::None);
    TestApp {
        _serving: serving,
        address,
        client: reqwest::Client::new(),
        keys,
        other_account_key,
        database,
        clock,
        services,
        worker,
    }
}

/// The application served on a thread and runtime of its own until the test's app is dropped. The
/// HTTP server's workers are threads that hold the services; left running after their test (as when
/// served on the test's runtime, which ends without stopping them), their pools call a dropped
/// database again and again, thousands of failed connections a minute over a whole suite.
struct Serving {
    server: actix_web::dev::ServerHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Serving {
    fn start(application: Application, background_jobs: bool) -> Self {
        let server = application.server_handle();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            let _ = if background_jobs {
                runtime.block_on(application.run_until_stopped())
            } else {
                runtime.block_on(application.serve_requests_only())
            };
        });
        Self { server, thread: Some(thread) }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        // The command is sent now; the server's own thread acts on it.
        drop(self.server.stop(false));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl TestApp {
    /// A request with Basic authentication as PayRex's clients send it (`key:`).
    pub fn request(&self, method: Method, path: &str, key: &str) -> RequestBuilder {
        self.client.request(method, format!("{}{path}", self.address)).basic_auth(key, Some(""))
    }

    /// A form-encoded request, with the body exactly as given.
    pub async fn form(&self, method: Method, path: &str, key: &str, body: &str) -> Response {
        self.request(method, path, key)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body.to_owned())
            .send()
            .await
            .expect("send the request")
    }

    /// A JSON request.
    pub async fn json(&self, method: Method, path: &str, key: &str, body: &Value) -> Response {
        self.request(method, path, key).json(body).send().await.expect("send the request")
    }

    /// A GET with the test secret key.
    pub async fn get(&self, path: &str) -> Response {
        self.request(Method::GET, path, &self.keys.secret_test).send().await.expect("send the request")
    }

    /// Sends the webhook deliveries due now, records their attempts, and returns how many it sent.
    ///
    /// # Panics
    /// When the worker runs in the background (the app was not spawned stepping deliveries).
    pub async fn deliver_due(&self) -> usize {
        self.worker.as_ref().expect("an app stepping deliveries").tick().await
    }

    /// Moves the application's clock forward and runs the background actions that became due.
    pub async fn advance_and_run_due_actions(&self, seconds: i64) -> usize {
        self.clock.advance(seconds);
        let services = self.services.clone();
        tokio::task::spawn_blocking(move || services.run_due_actions(1_000).unwrap()).await.unwrap()
    }

    /// A POST with a form body and the test secret key, answered as status and JSON.
    pub async fn post(&self, path: &str, body: &str) -> (u16, Value) {
        read(self.form(Method::POST, path, &self.keys.secret_test, body).await).await
    }

    /// A form request with the test secret key, answered as status and JSON; owns its arguments so
    /// several can run at once.
    pub async fn call(&self, method: Method, path: String, body: String) -> (u16, Value) {
        read(self.form(method, &path, &self.keys.secret_test, &body).await).await
    }

    /// The test mailbox, read with the test secret key until it shows `words` (up to 5 s: the mail
    /// worker runs beside the request that queued the message).
    pub async fn mailbox_showing(&self, words: &str) -> String {
        let mut page = String::new();
        for _ in 0..50 {
            let response = browser()
                .get(format!("{}/test/mailbox", self.address))
                .basic_auth(&self.keys.secret_test, Some(""))
                .send()
                .await
                .expect("open the mailbox");
            assert_eq!(response.status(), 200);
            page = response.text().await.expect("the mailbox");
            if page.contains(words) {
                return page;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("the mailbox never showed {words:?}: {page}");
    }

    /// Creates a payment intent with the test secret key from extra form fields.
    pub async fn create_intent(&self, amount: i64, extra: &str) -> Value {
        let body = format!(
            "amount={amount}&currency=PHP&payment_methods[]=card&payment_methods[]=gcash&payment_methods[]=maya\
             &payment_methods[]=billease&payment_methods[]=qrph&return_url=https%3A%2F%2Fshop.example%2Fdone{extra}"
        );
        let (status, intent) = self.post("/payment_intents", &body).await;
        assert_eq!(status, 200, "{intent}");
        intent
    }

    /// Attaches a test card to an intent; returns the status and body of the answer.
    pub async fn attach_card(&self, intent_id: &str, number: &str) -> (u16, Value) {
        let body = format!(
            "payment_method[type]=card&payment_method[card][number]={number}&payment_method[card][exp_month]=12\
             &payment_method[card][exp_year]=2035&payment_method[card][cvc]=123"
        );
        self.post(&format!("/payment_intents/{intent_id}/attach"), &body).await
    }

    /// The types of the test account's events, oldest first.
    pub async fn event_types(&self) -> Vec<String> {
        let (status, events) = read(self.get("/events?limit=100").await).await;
        assert_eq!(status, 200, "{events}");
        let mut types: Vec<String> =
            events["data"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap().to_owned()).collect();
        types.reverse();
        types
    }

    /// Creates a customer with the test secret key and returns it.
    pub async fn create_customer(&self, name: &str) -> Value {
        let body = format!("name={name}&email={}%40example.com&currency=PHP", name.to_lowercase());
        let response = self.form(Method::POST, "/customers", &self.keys.secret_test, &body).await;
        let (status, customer) = read(response).await;
        assert_eq!(status, 200, "{customer}");
        customer
    }
}

/// The status and JSON body of a response, asserting the JSON content type.
pub async fn read(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let text = response.text().await.expect("read the body");
    assert!(content_type.starts_with("application/json"), "status {status}, content type {content_type:?}: {text}");
    let body =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("status {status}: body is not JSON ({e}): {text}"));
    (status, body)
}

/// The `(parameter, code)` pairs of an error body.
pub fn error_codes(body: &Value) -> Vec<(String, String)> {
    body["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("not an error body: {body}"))
        .iter()
        .map(|e| (e["parameter"].as_str().unwrap_or("").to_owned(), e["code"].as_str().unwrap_or("").to_owned()))
        .collect()
}

/// Asserts a single error with `code` and returns its detail.
pub fn single_error(body: &Value, code: &str) -> String {
    let errors = body["errors"].as_array().unwrap_or_else(|| panic!("not an error body: {body}"));
    assert_eq!(errors.len(), 1, "{body}");
    assert_eq!(errors[0]["code"], code, "{body}");
    errors[0]["detail"].as_str().unwrap_or_default().to_owned()
}

/// The ids of a list body, in order.
pub fn ids(list: &Value) -> Vec<String> {
    list["data"].as_array().expect("a list").iter().map(|c| c["id"].as_str().expect("an id").to_owned()).collect()
}

/// A client that does not follow redirects, so the 303 back to the shop can be inspected.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder().redirect(Policy::none()).build().expect("a client")
}

pub async fn open_page(url: &str) -> (u16, String) {
    let response = browser().get(url).send().await.expect("open the page");
    let status = response.status().as_u16();
    let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    (status, response.text().await.expect("the page"))
}

pub async fn decide(url: &str, decision: &str) -> reqwest::Response {
    browser()
        .post(url)
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(format!("decision={decision}"))
        .send()
        .await
        .expect("submit the page")
}

/// Whether `number` (a CVC, say) appears in `text` as a number of its own: digits inside a random
/// id, a UUID, a timestamp or a duration are not a CVC (`req_…AK987pz`, `…-4d10-9173-…` failed
/// CI runs).
pub fn contains_number(text: &str, number: &str) -> bool {
    let standalone = |c: Option<char>| c.is_none_or(|c| !c.is_ascii_alphanumeric() && c != '.' && c != '-');
    text.match_indices(number).any(|(at, _)| {
        standalone(text[..at].chars().next_back()) && standalone(text[at + number.len()..].chars().next())
    })
}

#[test]
fn a_number_of_its_own_is_found_and_digits_inside_ids_are_not() {
    assert!(contains_number(r#"{"cvc":"987"}"#, "987") && contains_number("cvc=987&x", "987"));
    assert!(!contains_number("req_AK987pz", "987") && !contains_number("c1aef483-e958-4d10-9173-6817d76ac660", "9173"));
}

/// localstripe, the Stripe API emulator, run by `scripts/localstripe` on a port of the test's own
/// and stopped with it. Its Python comes from `PAYMENTS_TEST_LOCALSTRIPE_PYTHON` (scripts/test
/// installs localstripe into a virtual environment of its own and names its Python there).
pub struct LocalStripe {
    child: std::process::Child,
    pub url: String,
    client: reqwest::Client,
}

impl LocalStripe {
    pub async fn start() -> Self {
        let python = std::env::var("PAYMENTS_TEST_LOCALSTRIPE_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/localstripe");
        let child = std::process::Command::new(&python)
            .arg(script)
            .args(["--port", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot run {python}: {error}"));
        let emulator = Self { child, url: format!("http://127.0.0.1:{port}"), client: reqwest::Client::new() };
        for _ in 0..200 {
            if emulator
                .client
                .get(format!("{}/v1/payment_intents", emulator.url))
                .basic_auth("sk_test_x", Some(""))
                .send()
                .await
                .is_ok()
            {
                return emulator;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("localstripe did not start with {python}: run the tests with scripts/test, which installs localstripe==1.15.10");
    }

    /// A payment method for a card, as the browser makes it at the processor (localstripe takes
    /// a publishable key only for tokens and sources, so the emulator's secret key makes it here).
    pub async fn card_token(&self, number: &str) -> String {
        let form = [
            ("type", "card"),
            ("card[number]", number),
            ("card[exp_month]", "12"),
            ("card[exp_year]", "2035"),
            ("card[cvc]", "123"),
        ];
        let answer = self
            .client
            .post(format!("{}/v1/payment_methods", self.url))
            .basic_auth("sk_test_x", Some(""))
            .form(&form)
            .send()
            .await
            .unwrap();
        let method: Value = answer.json().await.unwrap();
        method["id"].as_str().unwrap_or_else(|| panic!("no payment method: {method}")).to_owned()
    }

    /// Posts `form` to the emulator's `path` with its secret key, as the processor's own dashboard
    /// or Stripe.js would act: an authentication, a cancel made there.
    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> Value {
        let answer = self
            .client
            .post(format!("{}{path}", self.url))
            .basic_auth("sk_test_x", Some(""))
            .form(form)
            .send()
            .await
            .unwrap();
        answer.json().await.unwrap()
    }

    /// Every payment intent the emulator holds.
    pub async fn payment_intents(&self) -> Vec<Value> {
        let answer = self
            .client
            .get(format!("{}/v1/payment_intents?limit=100", self.url))
            .basic_auth("sk_test_x", Some(""))
            .send()
            .await
            .unwrap();
        let page: Value = answer.json().await.unwrap();
        page["data"].as_array().cloned().unwrap_or_default()
    }
}

impl Drop for LocalStripe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A proxy in front of a processor that can act as a network does when it fails: forward a
/// request and lose the answer (the processor acted, the service never heard), or refuse
/// connections. It speaks just enough HTTP/1.1 to tell requests apart on a kept-alive connection:
/// each request goes to the processor on a connection of its own.
pub struct FaultProxy {
    pub url: String,
    /// Requests whose path contains this lose their answer, once each, while the count lasts.
    losing: Arc<std::sync::Mutex<Option<(String, usize)>>>,
    task: tokio::task::JoinHandle<()>,
}

impl FaultProxy {
    pub async fn start(upstream: &str) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let upstream = upstream.trim_start_matches("http://").to_owned();
        let losing: Arc<std::sync::Mutex<Option<(String, usize)>>> = Arc::default();
        let rule = losing.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(Self::serve(client, upstream.clone(), rule.clone()));
            }
        });
        Self { url, losing, task }
    }

    /// Loses the answer to the next request whose path contains `path`.
    pub fn lose_answer_to(&self, path: &str) {
        *self.losing.lock().unwrap() = Some((path.to_owned(), 1));
    }

    async fn serve(
        mut client: tokio::net::TcpStream,
        upstream: String,
        rule: Arc<std::sync::Mutex<Option<(String, usize)>>>,
    ) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut buffer = Vec::new();
        loop {
            // One request: its head, then as many bytes of body as it says.
            let head_end = loop {
                if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
                    break end + 4;
                }
                let mut chunk = [0_u8; 4096];
                match client.read(&mut chunk).await {
                    Ok(0) | Err(_) => return,
                    Ok(read) => buffer.extend_from_slice(&chunk[..read]),
                }
            };
            let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
            let length = head
                .lines()
                .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-length:").map(|n| n.trim().to_owned()))
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(0);
            while buffer.len() < head_end + length {
                let mut chunk = [0_u8; 4096];
                match client.read(&mut chunk).await {
                    Ok(0) | Err(_) => return,
                    Ok(read) => buffer.extend_from_slice(&chunk[..read]),
                }
            }
            let request: Vec<u8> = buffer.drain(..head_end + length).collect();
            let request_line = head.lines().next().unwrap_or_default().to_owned();
            // The processor gets the request on a connection of its own, closed after its answer.
            let mut lines: Vec<&str> =
                head.trim_end().lines().filter(|line| !line.to_ascii_lowercase().starts_with("connection:")).collect();
            lines.push("Connection: close");
            let mut forwarded = format!("{}\r\n\r\n", lines.join("\r\n")).into_bytes();
            forwarded.extend_from_slice(&request[head_end..]);
            let Ok(mut processor) = tokio::net::TcpStream::connect(&upstream).await else { return };
            if processor.write_all(&forwarded).await.is_err() {
                return;
            }
            let mut answer = Vec::new();
            let _ = processor.read_to_end(&mut answer).await;
            let lose = {
                let mut rule = rule.lock().unwrap();
                match rule.as_mut() {
                    Some((path, left)) if *left > 0 && request_line.contains(path.as_str()) => {
                        *left -= 1;
                        true
                    }
                    _ => false,
                }
            };
            if lose || client.write_all(&answer).await.is_err() {
                return;
            }
        }
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}
