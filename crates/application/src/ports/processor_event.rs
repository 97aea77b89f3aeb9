//! Where the events live processors sent are kept until they are acted on.

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::processor_event::ProcessorEvent;
use payments_domain::time::Timestamp;

/// The processors' events.
pub trait ProcessorEventRepository {
    /// Keeps an event; one sent again (the same id) is kept once.
    ///
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, event: &ProcessorEvent) -> Result<(), StoreError>;

    /// Up to `limit` events of `within` (or of every scope) not acted on yet, the oldest first.
    ///
    /// # Errors
    /// Storage failures.
    fn unprocessed(&mut self, within: Option<&Scope>, limit: u32) -> Result<Vec<ProcessorEvent>, StoreError>;

    /// The scope's event `id`.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &str) -> Result<Option<ProcessorEvent>, StoreError>;

    /// Marks the scope's event `id` acted on at `at`.
    ///
    /// # Errors
    /// Storage failures.
    fn mark_processed(&mut self, scope: &Scope, id: &str, at: Timestamp) -> Result<(), StoreError>;
}
