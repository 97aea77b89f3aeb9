//! An event as the API shows it and webhooks receive it: the envelope, rendered once when the event
//! is appended. A webhook is sent it as stored; the API serves it with `pending_webhooks` as it is
//! now (how many webhooks still wait for it), everything else as stored.

use payments_domain::event::Event;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
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

/// A stored envelope read back: the fields of [`EventResource`] in its order, the data as stored.
#[derive(Serialize, Deserialize)]
struct StoredEnvelope<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    resource: Cow<'a, str>,
    #[serde(borrow, rename = "type")]
    event_type: Cow<'a, str>,
    livemode: bool,
    pending_webhooks: i64,
    #[serde(borrow)]
    data: &'a RawValue,
    #[serde(borrow)]
    previous_attributes: &'a RawValue,
    created_at: i64,
    updated_at: i64,
}

/// The envelope of a stored event with its `pending_webhooks` as the event was read (the count of
/// its deliveries outstanding now). Fails only for a stored body that is not an envelope, which this
/// service never writes.
pub(crate) fn live_envelope(event: &Event) -> Result<Box<RawValue>, serde_json::Error> {
    let mut envelope: StoredEnvelope<'_> = serde_json::from_str(&event.body)?;
    envelope.pending_webhooks = event.pending_webhooks;
    RawValue::from_string(serde_json::to_string(&envelope)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use payments_domain::event::EventType;
    use payments_domain::ids::{AccountId, EventId};
    use payments_domain::time::Timestamp;
    use serde_json::json;

    #[test]
    fn the_live_envelope_is_the_stored_one_with_the_count_of_now() {
        let mut event = Event {
            id: EventId::from_random("e1"),
            account_id: AccountId::from_random("a1"),
            livemode: false,
            event_type: EventType::PaymentPaid,
            object_id: "pay_1".into(),
            pending_webhooks: 2,
            created_at: Timestamp::from_unix_seconds(1_700_000_000),
            body: String::new(),
        };
        let data = json!({"id": "pay_1", "amount": 10_000, "metadata": {"z": "1", "a": "é \\\" <"}});
        event.body = serde_json::to_string(&EventResource::new(&event, &data, &json!({}))).unwrap();
        assert_eq!(live_envelope(&event).unwrap().get(), event.body, "the same bytes while the count is the same");
        event.pending_webhooks = 0;
        let live = live_envelope(&event).unwrap();
        assert_eq!(live.get(), event.body.replace("\"pending_webhooks\":2", "\"pending_webhooks\":0"));
    }
}
