//! Storage of billing statements with their line items.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::billing_statement::{BillingStatement, BillingStatementStatus};
use payments_domain::ids::{BillingStatementId, BillingStatementLineItemId, CustomerId, PaymentIntentId};
use payments_domain::time::Timestamp;

/// The list filters of `GET /billing_statements`; every given one must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BillingStatementFilter {
    pub customer_id: Option<CustomerId>,
    pub status: Option<BillingStatementStatus>,
}

/// Billing statements, read whole (with their line items, in the order they were added) and
/// confined to a scope except where the hosted page or a job finds them.
pub trait BillingStatementRepository {
    /// Stores a new statement and its line items.
    ///
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, statement: &BillingStatement) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &BillingStatementId) -> Result<Option<BillingStatement>, StoreError>;

    /// The statement `id` in any scope: the hosted page knows only the client secret, which names
    /// the statement (the caller compares the secret).
    ///
    /// # Errors
    /// Storage failures.
    fn find_for_page(&mut self, id: &BillingStatementId) -> Result<Option<BillingStatement>, StoreError>;

    /// The statement paid through `payment_intent_id`.
    ///
    /// # Errors
    /// Storage failures.
    fn find_by_payment_intent(
        &mut self,
        scope: &Scope,
        payment_intent_id: &PaymentIntentId,
    ) -> Result<Option<BillingStatement>, StoreError>;

    /// The statement holding the line item `id`.
    ///
    /// # Errors
    /// Storage failures.
    fn find_by_line_item(
        &mut self,
        scope: &Scope,
        id: &BillingStatementLineItemId,
    ) -> Result<Option<BillingStatement>, StoreError>;

    /// Writes the statement's own fields if its stored version is still `expected_version`; the line
    /// items are written by [`BillingStatementRepository::replace_line_items`].
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, statement: &BillingStatement, expected_version: i64) -> Result<(), StoreError>;

    /// Stores the statement's line items as they are now, in the same transaction as the
    /// versioned [`BillingStatementRepository::update`] that guards them.
    ///
    /// # Errors
    /// Storage failures.
    fn replace_line_items(&mut self, statement: &BillingStatement) -> Result<(), StoreError>;

    /// Removes a statement and its line items.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when its version moved on; storage failures.
    fn delete(&mut self, statement: &BillingStatement, expected_version: i64) -> Result<(), StoreError>;

    /// A page of the scope's statements that pass `filter`, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no statement of the scope; storage failures.
    fn list(
        &mut self,
        scope: &Scope,
        filter: &BillingStatementFilter,
        page: &PageRequest,
    ) -> Result<Page<BillingStatement>, StoreError>;

    /// Up to `limit` open statements with a reminder due at `now`, in `within` or in any scope, the
    /// longest due first.
    ///
    /// # Errors
    /// Storage failures.
    fn with_notice_due(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<BillingStatement>, StoreError>;
}
