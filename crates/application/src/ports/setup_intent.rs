//! Storage of setup intents.

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::ids::SetupIntentId;
use payments_domain::setup_intent::SetupIntent;
use payments_domain::time::Timestamp;

/// Setup intents, confined to a scope except where a secret token or a job finds them.
pub trait SetupIntentRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, intent: &SetupIntent) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &SetupIntentId) -> Result<Option<SetupIntent>, StoreError>;

    /// Writes `intent` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, intent: &SetupIntent, expected_version: i64) -> Result<(), StoreError>;

    /// The setup intent whose latest test authorization page has this secret token, in any scope.
    ///
    /// # Errors
    /// Storage failures.
    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<SetupIntent>, StoreError>;

    /// Up to `limit` setup intents, awaiting a redirect or the processor, whose background action
    /// is due at `now`, in `within` or in any scope, the longest due first.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<SetupIntent>, StoreError>;
}
