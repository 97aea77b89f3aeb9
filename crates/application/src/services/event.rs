//! Events: reading the outbox, and the helper every service uses to append to it.

use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{reading, IdGenerator, Presenter, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::account::Mode;
use payments_domain::event::{Event, EventType};
use payments_domain::ids::{AccountId, DeliveryId, EventId};
use payments_domain::time::Timestamp;
use payments_domain::webhook::Webhook;
use payments_domain::webhook_delivery::Delivery;
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
    pub presenter: &'a dyn Presenter,
    pub account_id: &'a AccountId,
    pub livemode: bool,
    pub now: Timestamp,
}

/// One event to append: its type, the resource after the change, and before it (`None` on creation).
pub(crate) type NewEvent<'v> = (EventType, &'v Value, Option<&'v Value>);

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
        self.append_all(repositories, &[(event_type, after, before)])
    }

    /// Appends the events of one change in their order, with the scope's webhooks read once, the
    /// events written in one statement and their deliveries in another. Each envelope is rendered
    /// here, once: the API and every webhook get these bytes.
    pub fn append_all(
        &self,
        repositories: &mut dyn Repositories,
        new: &[NewEvent<'_>],
    ) -> Result<(), ApplicationError> {
        if new.is_empty() {
            return Ok(());
        }
        let webhooks = self.webhooks(repositories)?;
        self.append_all_to(repositories, &webhooks, new)
    }

    /// The scope's enabled webhooks, for [`EventLog::append_all_to`]: read before a change's first
    /// write when its writes are batched.
    pub fn webhooks(&self, repositories: &mut dyn Repositories) -> Result<Vec<Webhook>, ApplicationError> {
        let scope = Scope { account_id: self.account_id.clone(), mode: Mode::from_livemode(self.livemode) };
        Ok(repositories.webhooks().enabled(&scope)?)
    }

    /// [`EventLog::append_all`] with the scope's enabled `webhooks` already read: fan-out in the
    /// same change, so every one listing an event's type gets a delivery.
    pub fn append_all_to(
        &self,
        repositories: &mut dyn Repositories,
        webhooks: &[Webhook],
        new: &[NewEvent<'_>],
    ) -> Result<(), ApplicationError> {
        if new.is_empty() {
            return Ok(());
        }
        let mut events = Vec::with_capacity(new.len());
        let mut deliveries = Vec::new();
        for &(event_type, after, before) in new {
            let receivers: Vec<&Webhook> = webhooks.iter().filter(|webhook| webhook.receives(event_type)).collect();
            let mut event = Event {
                id: EventId::from_random(&self.ids.id_part()),
                account_id: self.account_id.clone(),
                livemode: self.livemode,
                event_type,
                pending_webhooks: i64::try_from(receivers.len()).unwrap_or(i64::MAX),
                created_at: self.now,
                body: String::new(),
            };
            event.body = self.presenter.event(&event, after, &previous_attributes(before, after));
            deliveries.extend(receivers.into_iter().map(|webhook| {
                let id = DeliveryId::from_random(&self.ids.id_part());
                Delivery::new(id, webhook, event.id.clone(), self.now)
            }));
            events.push(event);
        }
        repositories.events().append(&events)?;
        repositories.deliveries().insert(&deliveries)?;
        Ok(())
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
