//! The event outbox.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::event::Event;
use payments_domain::ids::EventId;

/// Events, appended in the transaction of the change they describe. An event read back has as
/// `pending_webhooks` the number of its deliveries still outstanding (pending or paused) now.
pub trait EventRepository {
    /// Appends `events` in their order.
    ///
    /// # Errors
    /// Storage failures.
    fn append(&mut self, events: &[Event]) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &EventId) -> Result<Option<Event>, StoreError>;

    /// The events of `ids` that exist, of any account (for the delivery worker, which has each
    /// delivery's account), in no particular order.
    ///
    /// # Errors
    /// Storage failures.
    fn find_many(&mut self, ids: &[EventId]) -> Result<Vec<Event>, StoreError>;

    /// A page of the scope's events, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no event of the scope; storage failures.
    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Event>, StoreError>;
}
