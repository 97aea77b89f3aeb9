//! `payments ready`: whether the service answers `GET /readyz` with 200, as an exit status, for a
//! container's health check (the image has no curl) and for scripts waiting on a start.

use crate::api::ApiError;
use crate::api::Connection;
use crate::error::CliError;
use crate::output::Printer;
use reqwest::{Method, StatusCode};
use std::time::Duration;

/// How long the check waits for an answer.
const TIMEOUT: Duration = Duration::from_secs(3);

/// Asks `GET /readyz` once; no key needed.
///
/// # Errors
/// The service cannot be reached, or answers anything but 200.
pub(crate) async fn run(connection: &Connection, printer: &Printer) -> Result<(), CliError> {
    let url = connection.api_base.join("readyz").map_err(|error| CliError::Usage(error.to_string()))?;
    let client = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .build()
        .map_err(|source| ApiError::Unreachable { url: url.to_string(), source })?;
    let answer = client
        .get(url.clone())
        .send()
        .await
        .map_err(|source| ApiError::Unreachable { url: url.to_string(), source })?;
    let status = answer.status();
    let body = answer.text().await.unwrap_or_default();
    if status != StatusCode::OK {
        return Err(ApiError::refused(Method::GET, "/readyz", status, &body).into());
    }
    printer.line(format!("ready: {url}"), &serde_json::json!({"type": "ready", "url": url.as_str()}));
    Ok(())
}
