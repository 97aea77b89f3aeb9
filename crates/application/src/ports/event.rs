//! The event outbox.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::event::{Event, EventType};
use payments_domain::ids::EventId;
use payments_domain::time::Timestamp;

/// The list filters of `GET /events`; every given one must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    pub event_type: Option<EventType>,
    /// The ids of the objects the event may be about (any object when empty).
    pub object_ids: Vec<String>,
}

/// Events, appended in the transaction of the change they describe. An event read back has as
/// `pending_webhooks` the number of its deliveries still outstanding (pending or paused) now.
pub trait EventRepository {
    /// Appends `events` in their order, with a delivery of each to every enabled webhook of its
    /// scope that listens to it, due at `deliveries_due` (real time: a test clock moves events'
    /// times, never deliveries').
    ///
    /// # Errors
    /// Storage failures.
    fn append(&mut self, events: &[Event], deliveries_due: Timestamp) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &EventId) -> Result<Option<Event>, StoreError>;

    /// The events of `ids` that exist, of any account (for the delivery worker, which has each
    /// delivery's account), in no particular order.
    ///
    /// # Errors
    /// Storage failures.
    fn find_many(&mut self, ids: &[EventId]) -> Result<Vec<Event>, StoreError>;

    /// A page of the scope's events that match `filter`, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no event of the scope; storage failures.
    fn list(&mut self, scope: &Scope, filter: &EventFilter, page: &PageRequest) -> Result<Page<Event>, StoreError>;

    /// The scope's events that follow `after` on its stream (from the first when `None`), at most
    /// `limit`, in the stream's order, with `pending_webhooks` uncounted (0).
    ///
    /// The stream holds every event of the scope once, in the order their changes became final, and
    /// an event goes on it only once no event can be appended before it: reading on from the last
    /// event each read returned gives every event exactly once.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when `after` names no event of the scope; storage failures.
    fn stream(&mut self, scope: &Scope, after: Option<&EventId>, limit: u32) -> Result<Vec<Event>, StoreError>;

    /// The last event on the scope's stream so far (`None` before its first): where a reader that
    /// starts now reads on from.
    ///
    /// # Errors
    /// Storage failures.
    fn stream_end(&mut self, scope: &Scope) -> Result<Option<EventId>, StoreError>;
}

/// Where events were appended, as an instance's event streams are told (so a stream reads when
/// there is something to read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appended {
    To(Scope),
    /// Anywhere: the teller was away a while and may have missed some.
    Anywhere,
}

impl Appended {
    /// Whether a stream of `scope` may have something new to read.
    #[must_use]
    pub fn concerns(&self, scope: &Scope) -> bool {
        match self {
            Self::To(appended) => appended == scope,
            Self::Anywhere => true,
        }
    }
}
