//! Storage of payouts with their lines, and of each account's payout schedule.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::{PaymentId, PayoutId, PayoutTransactionId};
use payments_domain::metadata::Metadata;
use payments_domain::payout::{MadePayout, Payout, PayoutSchedule, PayoutStatus, PayoutTransaction};
use payments_domain::time::Timestamp;

/// One line of a payout with what a merchant reconciles it by: the payment it pays out, or the
/// payment of the refund it takes back (none for an adjustment), with that payment's description,
/// metadata and customer's e-mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconciliationLine {
    pub line: PayoutTransaction,
    pub payment: Option<ReconciledPayment>,
}

/// The payment a payout line comes from, as a merchant knows its order by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconciledPayment {
    pub id: PaymentId,
    pub description: Option<String>,
    pub metadata: Option<Metadata>,
    /// The e-mail of the payment's customer, when it has one (and it was not deleted).
    pub customer_email: Option<String>,
}

/// The filters of a list of payouts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PayoutFilter {
    pub status: Option<PayoutStatus>,
    /// Made at or after, and at or before.
    pub created_from: Option<Timestamp>,
    pub created_to: Option<Timestamp>,
}

impl PayoutFilter {
    /// Whether `payout` passes this filter.
    #[must_use]
    pub fn matches(&self, payout: &Payout) -> bool {
        self.status.is_none_or(|status| payout.status() == status)
            && self.created_from.is_none_or(|from| payout.created_at() >= from)
            && self.created_to.is_none_or(|to| payout.created_at() <= to)
    }
}

/// Payouts, confined to a scope.
pub trait PayoutRepository {
    /// Writes a payout just made with its lines and its balance entry.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when one of its entries is in a payout already (another instance
    /// paid it out first); storage failures.
    fn insert(&mut self, made: &MadePayout) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &PayoutId) -> Result<Option<Payout>, StoreError>;

    /// Writes `payout` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, payout: &Payout, expected_version: i64) -> Result<(), StoreError>;

    /// A page of the scope's payouts that match `filter`, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no payout of the scope; storage failures.
    fn list(&mut self, scope: &Scope, filter: &PayoutFilter, page: &PageRequest) -> Result<Page<Payout>, StoreError>;

    /// A page of the lines of the payout `id`, newest first as every list (the last made first).
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no line of the payout; storage failures.
    fn transactions(
        &mut self,
        scope: &Scope,
        id: &PayoutId,
        page: &PageRequest,
    ) -> Result<Page<PayoutTransaction>, StoreError>;

    /// Up to `limit` lines of the payout `id`, the first made first, after the line `after`, each
    /// with the payment it reconciles to.
    ///
    /// # Errors
    /// Storage failures.
    fn reconciliation(
        &mut self,
        scope: &Scope,
        id: &PayoutId,
        after: Option<&PayoutTransactionId>,
        limit: u32,
    ) -> Result<Vec<ReconciliationLine>, StoreError>;

    /// The payouts of `within` (or of every scope) whose next move is due at `now`, soonest first.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Payout>, StoreError>;

    /// The scope's payout schedule, if it has one yet.
    ///
    /// # Errors
    /// Storage failures.
    fn schedule(&mut self, scope: &Scope) -> Result<Option<PayoutSchedule>, StoreError>;

    /// Writes a schedule: a new one (`expected_version` `None`; a conflict if another was written
    /// first), or one whose stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when another write came first; storage failures.
    fn save_schedule(&mut self, schedule: &PayoutSchedule, expected_version: Option<i64>) -> Result<(), StoreError>;

    /// The schedules of `within` (or of every scope) whose next payout is due at `now`, soonest
    /// first.
    ///
    /// # Errors
    /// Storage failures.
    fn due_schedules(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<PayoutSchedule>, StoreError>;
}
