//! The events live processors sent.

use super::{in_scope_of, State};
use crate::ports::{ProcessorEventRepository, StoreError};
use crate::scope::Scope;
use payments_domain::processor_event::ProcessorEvent;
use payments_domain::time::Timestamp;

impl ProcessorEventRepository for State {
    fn insert(&mut self, event: &ProcessorEvent) -> Result<(), StoreError> {
        if !self.processor_events.iter().any(|kept| kept.id == event.id) {
            self.processor_events.push(event.clone());
        }
        Ok(())
    }

    fn unprocessed(&mut self, within: Option<&Scope>, limit: u32) -> Result<Vec<ProcessorEvent>, StoreError> {
        let mut due: Vec<ProcessorEvent> = self
            .processor_events
            .iter()
            .filter(|event| event.processed_at.is_none())
            .filter(|event| within.is_none_or(|scope| in_scope_of(&event.account_id, event.livemode, scope)))
            .cloned()
            .collect();
        due.sort_by_key(|event| event.received_at);
        due.truncate(limit as usize);
        Ok(due)
    }

    fn find(&mut self, scope: &Scope, id: &str) -> Result<Option<ProcessorEvent>, StoreError> {
        Ok(self
            .processor_events
            .iter()
            .find(|event| event.id == id && in_scope_of(&event.account_id, event.livemode, scope))
            .cloned())
    }

    fn mark_processed(&mut self, scope: &Scope, id: &str, at: Timestamp) -> Result<(), StoreError> {
        for event in self.processor_events.iter_mut() {
            if event.id == id && in_scope_of(&event.account_id, event.livemode, scope) {
                event.processed_at.get_or_insert(at);
            }
        }
        Ok(())
    }
}
