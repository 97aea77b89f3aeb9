//! Storage of payments.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::{PageId, PaymentId, PaymentIntentId};
use payments_domain::payment::{Payment, PaymentStatus};

/// The filters of a list of payments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaymentFilter {
    pub status: Option<PaymentStatus>,
    /// Only the payments of orders placed on this page.
    pub page_id: Option<PageId>,
}

/// Payments, confined to a scope.
pub trait PaymentRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, payment: &Payment) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &PaymentId) -> Result<Option<Payment>, StoreError>;

    /// The payments of the scope among `ids`, in no set order; an id of none is left out.
    ///
    /// # Errors
    /// Storage failures.
    fn find_many(&mut self, scope: &Scope, ids: &[PaymentId]) -> Result<Vec<Payment>, StoreError>;

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

    /// A page of the scope's payments that match `filter`, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no payment of the scope; storage failures.
    fn list(&mut self, scope: &Scope, filter: &PaymentFilter, page: &PageRequest) -> Result<Page<Payment>, StoreError>;
}
