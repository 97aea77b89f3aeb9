//! Storage of payments.

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::ids::{PaymentId, PaymentIntentId};
use payments_domain::payment::Payment;

/// Payments, confined to a scope.
pub trait PaymentRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, payment: &Payment) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &PaymentId) -> Result<Option<Payment>, StoreError>;

    /// Writes `payment` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, payment: &Payment, expected_version: i64) -> Result<(), StoreError>;

    /// The scope's payments of the intent `intent_id`, oldest first.
    ///
    /// # Errors
    /// Storage failures.
    fn of_intent(&mut self, scope: &Scope, intent_id: &PaymentIntentId) -> Result<Vec<Payment>, StoreError>;
}
