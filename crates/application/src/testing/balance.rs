//! The ledger.

use super::{in_scope_of, State};
use crate::ports::{BalanceRepository, StoreError};
use crate::scope::Scope;
use payments_domain::balance::{Balance, BalanceEntry};
use payments_domain::ids::BalanceEntryId;
use payments_domain::time::Timestamp;

impl BalanceRepository for State {
    fn insert(&mut self, entry: &BalanceEntry) -> Result<(), StoreError> {
        self.balance_entries.push(entry.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &BalanceEntryId) -> Result<Option<BalanceEntry>, StoreError> {
        Ok(self.balance_entries.iter().find(|e| e.id() == id && in_scope(e, scope)).cloned())
    }

    fn balance(&mut self, scope: &Scope, now: Timestamp) -> Result<Balance, StoreError> {
        Ok(Balance::of(self.balance_entries.iter().filter(|e| in_scope(e, scope)), now))
    }

    fn unpaid(&mut self, scope: &Scope, at: Timestamp) -> Result<Vec<BalanceEntry>, StoreError> {
        Ok(self
            .balance_entries
            .iter()
            .filter(|e| in_scope(e, scope) && e.entry_type().paid_out() && e.available_at() <= at)
            .filter(|e| !self.payout_transactions.iter().any(|line| &line.entry_id == e.id()))
            .cloned()
            .collect())
    }
}

fn in_scope(entry: &BalanceEntry, scope: &Scope) -> bool {
    in_scope_of(entry.account_id(), entry.livemode(), scope)
}
