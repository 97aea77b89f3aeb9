//! Storage of refunds.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::{PaymentId, RefundId};
use payments_domain::refund::Refund;

/// Refunds, confined to a scope.
pub trait RefundRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, refund: &Refund) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &RefundId) -> Result<Option<Refund>, StoreError>;

    /// Writes `refund` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, refund: &Refund, expected_version: i64) -> Result<(), StoreError>;

    /// The scope's refunds of the payment `payment_id`, oldest first.
    ///
    /// # Errors
    /// Storage failures.
    fn of_payments(&mut self, scope: &Scope, payment_ids: &[PaymentId]) -> Result<Vec<Refund>, StoreError>;

    /// A page of the scope's refunds, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no refund of the scope; storage failures.
    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Refund>, StoreError>;
}
