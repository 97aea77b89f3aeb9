//! Storage of payment intents.

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::ids::PaymentIntentId;
use payments_domain::payment_intent::PaymentIntent;
use payments_domain::time::Timestamp;

/// Payment intents, confined to a scope except where a secret token or a job finds them.
pub trait PaymentIntentRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, intent: &PaymentIntent) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &PaymentIntentId) -> Result<Option<PaymentIntent>, StoreError>;

    /// Writes `intent` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, intent: &PaymentIntent, expected_version: i64) -> Result<(), StoreError>;

    /// The intent whose pending redirect has this secret token, in any scope.
    ///
    /// # Errors
    /// Storage failures.
    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<PaymentIntent>, StoreError>;

    /// Up to `limit` intents of any scope whose background action is due at `now`.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<PaymentIntent>, StoreError>;
}
