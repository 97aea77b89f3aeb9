//! Events: reading the outbox, and the helper every service uses to append to it.

use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    reading, Clock, DeliveryAttempt, EventFilter, IdGenerator, Presenter, Repositories, StoreError, UnitOfWork,
    WebhookFilter,
};
use crate::scope::Scope;
use payments_domain::event::{Event, EventType};
use payments_domain::ids::{AccountId, EventId};
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use payments_domain::webhook::Webhook;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What an event's page shows: the event, every attempt to deliver it, and the scope's webhooks (up
/// to a page of them) to send it to again.
#[derive(Debug, Clone)]
pub struct EventPage {
    pub event: Event,
    pub attempts: Vec<DeliveryAttempt>,
    pub webhooks: Vec<Webhook>,
}

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

    /// An event's page: the event, its delivery attempts (oldest first) and the scope's first
    /// `webhooks` webhooks. One read.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn page(&self, scope: &Scope, id: &str, webhooks: u32) -> Result<EventPage, ApplicationError> {
        let not_found = || ApplicationError::NotFound { resource: "event", id: id.to_owned() };
        let event_id = EventId::parse(id).ok_or_else(not_found)?;
        let shown = PageRequest::new(Some(i64::from(webhooks.min(PageRequest::MAX_LIMIT))), None, None)
            .map_err(ApplicationError::Validation)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            let event = repositories.events().find(scope, &event_id)?.ok_or_else(not_found)?;
            let attempts = repositories.deliveries().attempts_of_event(scope, &event.id)?;
            let webhooks = repositories.webhooks().list(scope, &WebhookFilter::default(), &shown)?.data;
            Ok(EventPage { event, attempts, webhooks })
        })
    }

    /// Every attempt to deliver the event `id` to a webhook, oldest first.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn attempts(&self, scope: &Scope, id: &str) -> Result<Vec<DeliveryAttempt>, ApplicationError> {
        let event = self.retrieve(scope, id)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.deliveries().attempts_of_event(scope, &event.id)?)
        })
    }

    /// # Errors
    /// `parameter_invalid` on an unknown cursor; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        filter: &EventFilter,
        page: &PageRequest,
    ) -> Result<Page<Event>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.events().list(scope, filter, page).map_err(|error| page.explain(error))
        })
    }

    /// Where a reader of the scope's event stream starts: after the event `last_event_id` when it
    /// resumes, from the first event for [`STREAM_BEGINNING`], else after the last event so far
    /// (`None`: from the first event).
    ///
    /// # Errors
    /// `resource_not_found` on `Last-Event-ID` when the id names no event of the scope; storage
    /// failures.
    pub fn stream_start(
        &self,
        scope: &Scope,
        last_event_id: Option<&str>,
    ) -> Result<Option<EventId>, ApplicationError> {
        let Some(id) = last_event_id else {
            return reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.events().stream_end(scope)?));
        };
        if id == STREAM_BEGINNING {
            return Ok(None);
        }
        let unknown = || {
            ApplicationError::invalid(FieldError::missing(
                STREAM_CURSOR,
                format!("No event with id {id} to resume the stream from."),
            ))
        };
        let event_id = EventId::parse(id).ok_or_else(unknown)?;
        match reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.events().find(scope, &event_id)?))? {
            Some(_) => Ok(Some(event_id)),
            None => Err(unknown()),
        }
    }

    /// The next events on the scope's stream after `after` (from its first when `None`), at most
    /// `limit`, oldest first; reading on from the last one returned gives every event once.
    ///
    /// # Errors
    /// `resource_not_found` on `Last-Event-ID` when `after` is no event of the scope; storage failures.
    pub fn stream(&self, scope: &Scope, after: Option<&EventId>, limit: u32) -> Result<Vec<Event>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| match repositories.events().stream(scope, after, limit) {
            Err(StoreError::UnknownCursor) => Err(ApplicationError::invalid(FieldError::missing(
                STREAM_CURSOR,
                "The event the stream was reading from is gone.",
            ))),
            read => Ok(read?),
        })
    }
}

/// The header a reader of the event stream resumes with.
const STREAM_CURSOR: &str = "Last-Event-ID";
/// The stream position before a scope's first event, as `Last-Event-ID` names it.
pub const STREAM_BEGINNING: &str = "start";

/// Appends events in the transaction of the change they describe.
pub(crate) struct EventLog<'a> {
    pub ids: &'a dyn IdGenerator,
    pub presenter: &'a dyn Presenter,
    pub account_id: &'a AccountId,
    pub livemode: bool,
    /// The scope's time: the events' `created_at`.
    pub now: Timestamp,
    /// Real time: when their deliveries fall due.
    pub real_now: Timestamp,
}

/// One event to append: its type, the resource after the change, and before it (`None` on creation).
pub(crate) type NewEvent<'v> = (EventType, &'v Value, Option<&'v Value>);

impl<'a> EventLog<'a> {
    /// The log of `scope`'s events made at `now` (the scope's time), their deliveries due at the
    /// real time `clock` tells.
    pub fn new(
        ids: &'a dyn IdGenerator,
        presenter: &'a dyn Presenter,
        scope: &'a Scope,
        now: Timestamp,
        clock: &dyn Clock,
    ) -> Self {
        Self { ids, presenter, account_id: &scope.account_id, livemode: scope.livemode(), now, real_now: clock.now() }
    }

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

    /// Appends the events of one change in their order. Each envelope is
    /// rendered here, once; the store delivers each event to the webhooks that listen to it, and
    /// the envelope's `pending_webhooks` is filled in whenever it is read or sent.
    pub fn append_all(
        &self,
        repositories: &mut dyn Repositories,
        new: &[NewEvent<'_>],
    ) -> Result<(), ApplicationError> {
        if new.is_empty() {
            return Ok(());
        }
        let events: Vec<Event> = new
            .iter()
            .map(|&(event_type, after, before)| {
                let mut event = Event {
                    id: EventId::from_random(&self.ids.id_part()),
                    account_id: self.account_id.clone(),
                    livemode: self.livemode,
                    event_type,
                    object_id: after.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
                    pending_webhooks: 0,
                    created_at: self.now,
                    body: String::new(),
                };
                event.body = self.presenter.event(&event, after, &previous_attributes(before, after));
                event
            })
            .collect();
        Ok(repositories.events().append(&events, self.real_now)?)
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
