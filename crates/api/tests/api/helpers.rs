//! `spawn_app` and request helpers shared by the tests.

use payments_adapters::db::testing::TestDatabase;
use payments_adapters::db::Backend;
use payments_api::settings::Settings;
use payments_api::startup::Application;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, RequestBuilder, Response};
use serde_json::Value;

/// The four keys of a test account.
pub struct Keys {
    pub secret_test: String,
    pub public_test: String,
    pub secret_live: String,
}

/// A running application with two accounts.
pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub keys: Keys,
    /// The test secret key of a second account.
    pub other_account_key: String,
    pub database: TestDatabase,
}

/// Starts the application on a random port over a fresh database of `backend`.
pub async fn spawn_app(backend: Backend) -> TestApp {
    let database = tokio::task::spawn_blocking(move || TestDatabase::new(backend)).await.expect("create the database");
    let mut settings = Settings::load().expect("load settings");
    settings.server.listen = "127.0.0.1:0".into();
    settings.server.workers = 2;
    settings.database.url = database.url().to_owned();
    settings.database.pool_size = 4;
    settings.database.connect_timeout_seconds = 1;
    let settings = settings.validate().expect("valid test settings");
    let application = Application::build(settings).await.expect("build the application");
    let accounts = application.services().accounts.clone();
    let (keys, other_account_key) = tokio::task::spawn_blocking(move || {
        let (_, keys) = accounts.create("Acme").expect("create the account");
        let (_, other) = accounts.create("Other").expect("create the other account");
        (
            Keys {
                secret_test: keys.secret_test.reveal().to_owned(),
                public_test: keys.public_test.reveal().to_owned(),
                secret_live: keys.secret_live.reveal().to_owned(),
            },
            other.secret_test.reveal().to_owned(),
        )
    })
    .await
    .expect("create accounts");
    let address = format!("http://127.0.0.1:{}", application.port());
    tokio::spawn(application.run_until_stopped());
    TestApp { address, client: reqwest::Client::new(), keys, other_account_key, database }
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
