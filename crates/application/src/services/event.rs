//! Events: reading the outbox, and the helper every service uses to append to it.

use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{reading, IdGenerator, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::account::Mode;
use payments_domain::event::{Event, EventType};
use payments_domain::ids::{AccountId, DeliveryId, EventId, RANDOM_PART_LENGTH};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{Delivery, DeliveryStatus, Webhook};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Event use cases.
pub struct EventService {
    unit_of_work: Arc<dyn UnitOfWork>,
}

impl EventService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>) -> Self {
        Self { unit_of_work }
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<Event, ApplicationError> {
        let not_found = || ApplicationError::NotFound { resource: "event", id: id.to_owned() };
        let event_id = EventId::parse(id).ok_or_else(not_found)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.events().find(scope, &event_id)?.ok_or_else(not_found)
        })
    }

    /// # Errors
    /// `parameter_invalid` on an unknown cursor; storage failures.
    pub fn list(&self, scope: &Scope, page: &PageRequest) -> Result<Page<Event>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.events().list(scope, page).map_err(|error| page.explain(error))
        })
    }
}

/// Appends events in the transaction of the change they describe.
pub(crate) struct EventLog<'a> {
    pub ids: &'a dyn IdGenerator,
    pub account_id: &'a AccountId,
    pub livemode: bool,
    pub now: Timestamp,
}

impl EventLog<'_> {
    /// Appends an event of `event_type` whose data is `after`; `before` is the resource before the
    /// change (`None` on creation) from which the changed fields' old values are taken.
    pub fn append(
        &self,
        repositories: &mut dyn Repositories,
        event_type: EventType,
        after: &Value,
        before: Option<&Value>,
    ) -> Result<(), ApplicationError> {
        let scope = Scope { account_id: self.account_id.clone(), mode: Mode::from_livemode(self.livemode) };
        // Fan-out in the same transaction: every enabled webhook listing the type gets a delivery.
        let webhooks: Vec<Webhook> = repositories
            .webhooks()
            .enabled(&scope)?
            .into_iter()
            .filter(|webhook| webhook.receives(event_type.as_str()))
            .collect();
        let event = Event {
            id: EventId::from_random(&self.ids.alphanumeric(RANDOM_PART_LENGTH)),
            account_id: self.account_id.clone(),
            livemode: self.livemode,
            event_type: event_type.as_str().to_owned(),
            data: after.to_string(),
            previous_attributes: previous_attributes(before, after).to_string(),
            pending_webhooks: i64::try_from(webhooks.len()).unwrap_or(i64::MAX),
            created_at: self.now,
            updated_at: self.now,
        };
        repositories.events().append(&event)?;
        for webhook in webhooks {
            let delivery = new_delivery(self.ids, &webhook, &event.id, self.now.unix_seconds().saturating_mul(1_000));
            repositories.deliveries().insert(&delivery)?;
        }
        Ok(())
    }
}

/// A delivery of `event_id` to `webhook`, due at once.
pub(crate) fn new_delivery(ids: &dyn IdGenerator, webhook: &Webhook, event_id: &EventId, now_ms: i64) -> Delivery {
    Delivery {
        id: DeliveryId::from_random(&ids.alphanumeric(RANDOM_PART_LENGTH)),
        account_id: webhook.account_id.clone(),
        livemode: webhook.livemode,
        webhook_id: webhook.id.clone(),
        event_id: event_id.clone(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at_ms: now_ms,
        created_at_ms: now_ms,
    }
}

/// The top-level fields that changed, with their values before the change.
fn previous_attributes(before: Option<&Value>, after: &Value) -> Value {
    let mut changed = Map::new();
    if let (Some(Value::Object(before)), Value::Object(after)) = (before, after) {
        for (key, old) in before {
            if after.get(key) != Some(old) {
                changed.insert(key.clone(), old.clone());
            }
        }
    }
    Value::Object(changed)
}

#[cfg(test)]
mod tests {
    use super::previous_attributes;
    use serde_json::json;

    #[test]
    fn previous_attributes_hold_the_old_values_of_changed_fields_only() {
        let before = json!({"status": "awaiting_capture", "amount": 5000, "amount_received": 0});
        let after = json!({"status": "succeeded", "amount": 5000, "amount_received": 5000});
        assert_eq!(
            previous_attributes(Some(&before), &after),
            json!({"status": "awaiting_capture", "amount_received": 0})
        );
        assert_eq!(previous_attributes(None, &after), json!({}));
    }
}
