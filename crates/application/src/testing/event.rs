//! Events, with their deliveries outstanding counted live.

use super::{filtered_page_of, in_scope_of, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{DeliveryRepository, EventFilter, EventRepository, StoreError};
use crate::scope::Scope;
use payments_domain::event::Event;
use payments_domain::ids::{DeliveryId, EventId};
use payments_domain::time::Timestamp;
use payments_domain::webhook_delivery::fan_out;

impl EventRepository for State {
    fn append(&mut self, events: &[Event], deliveries_due: Timestamp) -> Result<(), StoreError> {
        self.events.extend_from_slice(events);
        let mut fanned_out = self.fanned_out;
        let deliveries = fan_out(events, &self.webhooks, deliveries_due, || {
            fanned_out += 1;
            DeliveryId::from_random(&format!("fanout{fanned_out}"))
        });
        self.fanned_out = fanned_out;
        DeliveryRepository::insert(self, &deliveries)
    }

    fn find(&mut self, scope: &Scope, id: &EventId) -> Result<Option<Event>, StoreError> {
        let found = self.events.iter().find(|e| &e.id == id && in_scope_of(&e.account_id, e.livemode, scope));
        Ok(found.map(|event| self.with_pending_webhooks(event)))
    }

    fn find_many(&mut self, ids: &[EventId]) -> Result<Vec<Event>, StoreError> {
        Ok(self.events.iter().filter(|e| ids.contains(&e.id)).map(|event| self.with_pending_webhooks(event)).collect())
    }

    fn list(&mut self, scope: &Scope, filter: &EventFilter, page: &PageRequest) -> Result<Page<Event>, StoreError> {
        let in_scope: Vec<&Event> =
            self.events.iter().filter(|e| in_scope_of(&e.account_id, e.livemode, scope)).collect();
        let matches = |e: &Event| {
            filter.event_type.is_none_or(|event_type| e.event_type == event_type)
                && (filter.object_ids.is_empty() || filter.object_ids.contains(&e.object_id))
        };
        let mut found = filtered_page_of(&in_scope, |e| e.id.as_str(), matches, page)?;
        found.data = found.data.iter().map(|e| self.with_pending_webhooks(e)).collect();
        Ok(found)
    }

    fn stream(&mut self, scope: &Scope, after: Option<&EventId>, limit: u32) -> Result<Vec<Event>, StoreError> {
        let in_scope = self.events.iter().filter(|e| in_scope_of(&e.account_id, e.livemode, scope));
        let mut following: Vec<&Event> = in_scope.collect();
        if let Some(after) = after {
            let position = following.iter().position(|e| &e.id == after).ok_or(StoreError::UnknownCursor)?;
            following.drain(..=position);
        }
        Ok(following.into_iter().take(limit as usize).map(|e| Event { pending_webhooks: 0, ..e.clone() }).collect())
    }

    fn stream_end(&mut self, scope: &Scope) -> Result<Option<EventId>, StoreError> {
        let mut in_scope = self.events.iter().filter(|e| in_scope_of(&e.account_id, e.livemode, scope));
        Ok(in_scope.next_back().map(|e| e.id.clone()))
    }
}

impl State {
    /// `event` with the number of its deliveries outstanding now.
    fn with_pending_webhooks(&self, event: &Event) -> Event {
        let outstanding = self.outstanding_deliveries_of(&event.id);
        Event { pending_webhooks: i64::try_from(outstanding).unwrap_or(i64::MAX), ..event.clone() }
    }
}
