//! Storage of the ledger: every balance entry of an account in a mode, never changed once written.

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::balance::{Balance, BalanceEntry};
use payments_domain::ids::BalanceEntryId;
use payments_domain::time::Timestamp;

/// Balance entries, confined to a scope.
pub trait BalanceRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, entry: &BalanceEntry) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &BalanceEntryId) -> Result<Option<BalanceEntry>, StoreError>;

    /// The balance of the scope at `now`: the sums of its entries made by then, available by then
    /// or later.
    ///
    /// # Errors
    /// Storage failures.
    fn balance(&mut self, scope: &Scope, now: Timestamp) -> Result<Balance, StoreError>;

    /// The scope's entries that a payout at `at` pays out: available by then, of a type payouts pay
    /// out, and in no payout yet; oldest first.
    ///
    /// # Errors
    /// Storage failures.
    fn unpaid(&mut self, scope: &Scope, at: Timestamp) -> Result<Vec<BalanceEntry>, StoreError>;
}
