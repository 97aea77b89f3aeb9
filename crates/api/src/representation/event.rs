//! An event as the API shows it, and as webhooks receive it.

use payments_domain::event::Event;
use serde::Serialize;
use serde_json::Value;

const RESOURCE: &str = "event";

/// An event as the API shows it.
#[derive(Serialize)]
pub(crate) struct EventResource<'a> {
    id: &'a str,
    resource: &'static str,
    #[serde(rename = "type")]
    event_type: &'a str,
    livemode: bool,
    pending_webhooks: i64,
    data: Value,
    previous_attributes: Value,
    created_at: i64,
    updated_at: i64,
}

impl<'a> EventResource<'a> {
    pub(crate) fn new(event: &'a Event) -> Self {
        Self {
            id: event.id.as_str(),
            resource: RESOURCE,
            event_type: &event.event_type,
            livemode: event.livemode,
            pending_webhooks: event.pending_webhooks,
            data: serde_json::from_str(&event.data).unwrap_or(Value::Null),
            previous_attributes: serde_json::from_str(&event.previous_attributes).unwrap_or(Value::Null),
            created_at: event.created_at.unix_seconds(),
            updated_at: event.updated_at.unix_seconds(),
        }
    }
}
