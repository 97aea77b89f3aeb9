//! Events, with their deliveries outstanding counted live.

use super::{in_scope_of, State};
use crate::pagination::{Cursor, Page, PageRequest};
use crate::ports::{DeliveryRepository, EventRepository, StoreError};
use crate::scope::Scope;
use payments_domain::event::Event;
use payments_domain::ids::{DeliveryId, EventId};
use payments_domain::webhook_delivery::fan_out;

impl EventRepository for State {
    fn append(&mut self, events: &[Event]) -> Result<(), StoreError> {
        self.events.extend_from_slice(events);
        let mut fanned_out = self.fanned_out;
        let deliveries = fan_out(events, &self.webhooks, || {
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

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Event>, StoreError> {
        let visible: Vec<&Event> =
            self.events.iter().filter(|e| in_scope_of(&e.account_id, e.livemode, scope)).collect();
        let position = |id: &str| visible.iter().position(|e| e.id.as_str() == id).ok_or(StoreError::UnknownCursor);
        let overfetch = page.limit() as usize + 1;
        let live = |e: &&Event| self.with_pending_webhooks(e);
        let rows: Vec<Event> = match page.cursor() {
            None => visible.iter().rev().take(overfetch).map(live).collect(),
            Some(Cursor::After(id)) => visible[..position(id)?].iter().rev().take(overfetch).map(live).collect(),
            Some(Cursor::Before(id)) => visible[position(id)? + 1..].iter().take(overfetch).map(live).collect(),
        };
        Ok(Page::from_overfetched(rows, page))
    }
}

impl State {
    /// `event` with the number of its deliveries outstanding now.
    fn with_pending_webhooks(&self, event: &Event) -> Event {
        let outstanding = self.outstanding_deliveries_of(&event.id);
        Event { pending_webhooks: i64::try_from(outstanding).unwrap_or(i64::MAX), ..event.clone() }
    }
}
