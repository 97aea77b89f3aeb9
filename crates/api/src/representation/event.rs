//! An event as the API shows it and webhooks receive it: the envelope, rendered once when the event
//! is appended and served as stored from then on.

use payments_domain::event::Event;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use utoipa::ToSchema;

const RESOURCE: &str = "event";

/// The envelope of an event being appended.
#[derive(Serialize, ToSchema)]
#[schema(as = Event)]
pub(crate) struct EventResource<'a> {
    id: &'a str,
    resource: &'static str,
    #[serde(rename = "type")]
    event_type: &'static str,
    livemode: bool,
    pending_webhooks: i64,
    data: &'a Value,
    previous_attributes: &'a Value,
    created_at: i64,
    updated_at: i64,
}

impl<'a> EventResource<'a> {
    pub(crate) fn new(event: &'a Event, data: &'a Value, previous_attributes: &'a Value) -> Self {
        let created_at = event.created_at.unix_seconds();
        Self {
            id: event.id.as_str(),
            resource: RESOURCE,
            event_type: event.event_type.as_str(),
            livemode: event.livemode,
            pending_webhooks: event.pending_webhooks,
            data,
            previous_attributes,
            created_at,
            // Events never change after they happen.
            updated_at: created_at,
        }
    }
}

/// The stored envelope of an event, to embed as is (in a list). Fails only for a stored body that is
/// not JSON, which this service never writes.
pub(crate) fn stored_envelope(event: &Event) -> Result<&RawValue, serde_json::Error> {
    serde_json::from_str(&event.body)
}
