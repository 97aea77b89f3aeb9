//! A logged request as the API and the console show it.

use payments_domain::request_log::{RequestLog, RequestSource};
use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

const RESOURCE: &str = "request_log";

/// A logged request: what was asked and answered, bodies redacted (card numbers, CVCs, keys and
/// secrets never kept).
#[derive(Serialize, ToSchema)]
#[schema(as = RequestLog)]
pub(crate) struct RequestLogResource<'a> {
    id: &'a str,
    resource: &'static str,
    livemode: bool,
    /// `api` for a request with an API key, `dashboard` for an action taken in the console.
    #[schema(schema_with = source_schema)]
    source: &'static str,
    /// The kind of key the request was made with.
    #[schema(schema_with = key_kind_schema)]
    key_kind: &'static str,
    method: &'a str,
    path: &'a str,
    /// The query string, without its `?`; empty when there was none.
    query: &'a str,
    status: u16,
    duration_ms: i64,
    idempotency_key: Option<&'a str>,
    /// Whether the answer was the stored one of an earlier request with the same idempotency key.
    idempotent_replayed: bool,
    /// The object the request was about: the id in its path, else the id of the object it answered.
    object_id: Option<&'a str>,
    /// The body sent, as JSON (a form as the parameters it holds).
    #[schema(value_type = Option<serde_json::Value>)]
    request_body: Option<&'a RawValue>,
    /// The body answered, as JSON.
    #[schema(value_type = Option<serde_json::Value>)]
    response_body: Option<&'a RawValue>,
    created_at: i64,
}

impl<'a> RequestLogResource<'a> {
    pub(crate) fn new(entry: &'a RequestLog) -> Self {
        Self {
            id: entry.id.as_str(),
            resource: RESOURCE,
            livemode: entry.livemode,
            source: entry.source.as_str(),
            key_kind: entry.key_kind.as_str(),
            method: &entry.method,
            path: &entry.path,
            query: &entry.query,
            status: entry.status,
            duration_ms: entry.duration_ms,
            idempotency_key: entry.idempotency_key.as_deref(),
            idempotent_replayed: entry.replayed,
            object_id: entry.object_id.as_deref(),
            request_body: entry.request_body.as_deref().and_then(as_json),
            response_body: entry.response_body.as_deref().and_then(as_json),
            created_at: entry.created_at.unix_seconds(),
        }
    }
}

/// A stored body as JSON; every body is stored as JSON, so `None` only for a row written otherwise.
fn as_json(text: &str) -> Option<&RawValue> {
    serde_json::from_str(text).ok()
}

fn source_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(RequestSource::ALL, RequestSource::as_str))
}

fn key_kind_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(vec!["secret", "public"])
}
