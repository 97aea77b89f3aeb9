//! Storage of developer console sessions, by the digest of their token.

use crate::error::StoreError;
use payments_domain::console_session::ConsoleSession;
use payments_domain::time::Timestamp;

/// Console sessions.
pub trait ConsoleSessionRepository {
    /// # Errors
    /// [`StoreError::UniqueViolation`] when the digest exists; storage failures.
    fn insert(&mut self, session: &ConsoleSession) -> Result<(), StoreError>;

    /// The session stored under `digest`, if any.
    ///
    /// # Errors
    /// Storage failures.
    fn find(&mut self, digest: &str) -> Result<Option<ConsoleSession>, StoreError>;

    /// Records `at` as the session's last-seen time.
    ///
    /// # Errors
    /// Storage failures.
    fn touch(&mut self, digest: &str, at: Timestamp) -> Result<(), StoreError>;

    /// Ends a session; ending one that is gone is no error.
    ///
    /// # Errors
    /// Storage failures.
    fn delete(&mut self, digest: &str) -> Result<(), StoreError>;

    /// Ends every session last seen before `cutoff`; returns how many.
    ///
    /// # Errors
    /// Storage failures.
    fn delete_seen_before(&mut self, cutoff: Timestamp) -> Result<usize, StoreError>;
}
