//! Storage of idempotency keys and the responses they replay.

use crate::error::StoreError;
use crate::scope::Caller;
use payments_domain::time::Timestamp;

/// Where the first request with a key stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyState {
    /// Still being processed.
    InFlight,
    /// Finished; its response is replayed to every retry.
    Completed { status: u16, body: Vec<u8> },
}

/// An idempotency key of one API key (an account, a mode and a key kind) and what it recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    pub caller: Caller,
    pub key: String,
    /// Digest of the method, path and body of the first request.
    pub fingerprint: String,
    pub state: IdempotencyState,
    pub created_at: Timestamp,
}

/// Idempotency keys, confined to the API key that sent them.
pub trait IdempotencyRepository {
    /// # Errors
    /// Storage failures.
    fn find(&mut self, caller: &Caller, key: &str) -> Result<Option<IdempotencyRecord>, StoreError>;

    /// # Errors
    /// [`StoreError::UniqueViolation`] when the key exists in the scope; storage failures.
    fn insert(&mut self, record: &IdempotencyRecord) -> Result<(), StoreError>;

    /// Records the response of an in-flight key.
    ///
    /// # Errors
    /// Storage failures.
    fn complete(&mut self, caller: &Caller, key: &str, status: u16, body: &[u8]) -> Result<(), StoreError>;

    /// Forgets a key.
    ///
    /// # Errors
    /// Storage failures.
    fn delete(&mut self, caller: &Caller, key: &str) -> Result<(), StoreError>;

    /// Forgets every key created before `cutoff`; returns how many.
    ///
    /// # Errors
    /// Storage failures.
    fn delete_created_before(&mut self, cutoff: Timestamp) -> Result<usize, StoreError>;
}
