//! The public API as the client commands call it: a secret key by HTTP Basic, JSON bodies, and the
//! API's error answers turned into messages.

use clap::Args;
use reqwest::{Method, StatusCode};
use serde_json::Value;
use std::time::Duration;

/// The service a command talks to, and how it prints.
#[derive(Debug, Clone, Args)]
pub struct Connection {
    /// The service's base URL.
    #[arg(long, env = "PAYMENTS_API_BASE", default_value = "http://127.0.0.1:8080", global = true)]
    pub api_base: url::Url,
    /// A secret API key of the account (sk_test_… or sk_live_…).
    #[arg(long, env = "PAYMENTS_KEY", hide_env_values = true, global = true)]
    pub key: Option<String>,
    /// Print JSON lines instead of lines for people.
    #[arg(long, global = true)]
    pub json: bool,
}

/// How long one API call may take (the event stream excepted).
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// A client of one service, with one account's key.
#[derive(Debug, Clone)]
pub struct Api {
    base: url::Url,
    key: String,
    http: reqwest::Client,
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("a secret API key is needed: pass --key or set PAYMENTS_KEY")]
    NoKey,
    #[error("cannot reach the service at {url}")]
    Unreachable {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    /// The service answered with an error: its status and the details of the API's error body.
    #[error("{method} {path}: {status} {message}")]
    Refused { method: Method, path: String, status: StatusCode, message: String, body: Box<Value> },
}

impl ApiError {
    /// The refusal of `method path` with `status` and the answer's `body`.
    #[must_use]
    pub fn refused(method: Method, path: &str, status: StatusCode, body: &str) -> Self {
        let body: Value = serde_json::from_str(body).unwrap_or_else(|_| Value::String(body.to_owned()));
        Self::Refused { method, path: path.to_owned(), status, message: error_message(&body), body: Box::new(body) }
    }

    /// The status of a refusal.
    #[must_use]
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Self::Refused { status, .. } => Some(*status),
            Self::Unreachable { .. } | Self::NoKey => None,
        }
    }
}

impl Api {
    /// A client of the service at `--api-base` with `--key`.
    ///
    /// # Errors
    /// [`ApiError::NoKey`] when no key was given.
    pub fn new(connection: &Connection) -> Result<Self, ApiError> {
        let key = connection.key.clone().filter(|key| !key.is_empty()).ok_or(ApiError::NoKey)?;
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|source| ApiError::Unreachable { url: connection.api_base.to_string(), source })?;
        Ok(Self { base: connection.api_base.clone(), key, http })
    }

    /// The secret key the client calls with.
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The full URL of `path` (which starts with `/`).
    #[must_use]
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base.as_str().trim_end_matches('/'))
    }

    /// A request to `path` with the key, for callers that read the answer themselves.
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http.request(method, self.url(path)).basic_auth(&self.key, Some(""))
    }

    /// Calls `method path` with `query` and a JSON `body`, and returns the JSON answer.
    ///
    /// # Errors
    /// [`ApiError::Refused`] on an answer outside 2xx; [`ApiError::Unreachable`] when there is none.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&Value>,
    ) -> Result<Value, ApiError> {
        let mut request = self.request(method.clone(), path).query(query).timeout(CALL_TIMEOUT);
        if let Some(body) = body {
            request = request.json(body);
        }
        let unreachable = |source| ApiError::Unreachable { url: self.url(path), source };
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        let text = response.text().await.map_err(unreachable)?;
        if status.is_success() {
            return Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)));
        }
        Err(ApiError::refused(method, path, status, &text))
    }

    /// `GET path?query`.
    ///
    /// # Errors
    /// As [`Api::call`].
    pub async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Value, ApiError> {
        self.call(Method::GET, path, query, None).await
    }
}

/// Text as one path segment, percent-encoded: no id or answer can move a request to another path.
pub(crate) fn segment(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>().replace('+', "%20")
}

/// The details of the API's error body (`{"errors": [{"code", "detail", "parameter"}]}`), one per
/// error, or the body itself when it is not one.
fn error_message(body: &Value) -> String {
    let Some(errors) = body.get("errors").and_then(Value::as_array) else {
        return body.to_string();
    };
    let details: Vec<String> = errors
        .iter()
        .map(|error| {
            let detail = error.get("detail").and_then(Value::as_str).unwrap_or("");
            let code = error.get("code").and_then(Value::as_str).unwrap_or("error");
            match error.get("parameter").and_then(Value::as_str) {
                Some(parameter) => format!("{code} ({parameter}): {detail}"),
                None => format!("{code}: {detail}"),
            }
        })
        .collect();
    details.join("; ")
}

#[cfg(test)]
mod tests {
    use super::error_message;
    use serde_json::json;

    #[test]
    fn an_error_body_reads_as_its_details() {
        let body = json!({"errors": [
            {"code": "parameter_required", "detail": "The parameter amount is required.", "parameter": "amount"},
            {"code": "resource_not_found", "detail": "No such customer."}
        ]});
        assert_eq!(
            error_message(&body),
            "parameter_required (amount): The parameter amount is required.; resource_not_found: No such customer."
        );
        assert_eq!(error_message(&json!("Bad Gateway")), "\"Bad Gateway\"");
    }
}
