//! The ledger, payouts with their lines, and payout schedules.

use super::{due_of, filtered_page_of, in_scope_of, page_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{BalanceRepository, PayoutFilter, PayoutRepository, StoreError};
use crate::scope::Scope;
use payments_domain::balance::{Balance, BalanceEntry};
use payments_domain::ids::{BalanceEntryId, PayoutId};
use payments_domain::payout::{MadePayout, Payout, PayoutSchedule, PayoutTransaction};
use payments_domain::time::Timestamp;

impl BalanceRepository for State {
    fn insert(&mut self, entry: &BalanceEntry) -> Result<(), StoreError> {
        self.balance_entries.push(entry.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &BalanceEntryId) -> Result<Option<BalanceEntry>, StoreError> {
        Ok(self.balance_entries.iter().find(|e| &e.id == id && in_scope_of(&e.account_id, e.livemode, scope)).cloned())
    }

    fn balance(&mut self, scope: &Scope, now: Timestamp) -> Result<Balance, StoreError> {
        Ok(Balance::of(self.balance_entries.iter().filter(|e| in_scope_of(&e.account_id, e.livemode, scope)), now))
    }

    fn unpaid(&mut self, scope: &Scope, at: Timestamp) -> Result<Vec<BalanceEntry>, StoreError> {
        Ok(self
            .balance_entries
            .iter()
            .filter(|e| {
                in_scope_of(&e.account_id, e.livemode, scope) && e.entry_type.paid_out() && e.available_at <= at
            })
            .filter(|e| !self.payout_transactions.iter().any(|line| line.entry_id == e.id))
            .cloned()
            .collect())
    }
}

impl PayoutRepository for State {
    fn insert(&mut self, made: &MadePayout) -> Result<(), StoreError> {
        // As the database claims them: exactly the unpaid entries available by the payout's time.
        let scope = Scope::of(made.payout.account_id(), made.payout.livemode());
        let mut unpaid: Vec<String> =
            self.unpaid(&scope, made.payout.created_at())?.into_iter().map(|entry| entry.id.to_string()).collect();
        let mut lines: Vec<String> = made.transactions.iter().map(|line| line.entry_id.to_string()).collect();
        unpaid.sort();
        lines.sort();
        if unpaid != lines {
            return Err(StoreError::Conflict);
        }
        self.payouts.push(made.payout.clone());
        self.payout_transactions.extend(made.transactions.iter().cloned());
        self.balance_entries.push(made.entry.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PayoutId) -> Result<Option<Payout>, StoreError> {
        Ok(self.payouts.iter().find(|p| p.id() == id && in_scope_of(p.account_id(), p.livemode(), scope)).cloned())
    }

    fn update(&mut self, payout: &Payout, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.payouts, payout, expected_version)
    }

    fn list(&mut self, scope: &Scope, filter: &PayoutFilter, page: &PageRequest) -> Result<Page<Payout>, StoreError> {
        let in_scope: Vec<&Payout> =
            self.payouts.iter().filter(|p| in_scope_of(p.account_id(), p.livemode(), scope)).collect();
        filtered_page_of(&in_scope, |p| p.id().as_str(), |p| filter.matches(p), page)
    }

    fn transactions(
        &mut self,
        scope: &Scope,
        id: &PayoutId,
        page: &PageRequest,
    ) -> Result<Page<PayoutTransaction>, StoreError> {
        let lines: Vec<&PayoutTransaction> = self
            .payout_transactions
            .iter()
            .filter(|line| &line.payout_id == id && in_scope_of(&line.account_id, line.livemode, scope))
            .collect();
        page_of(&lines, |line| line.id.as_str(), page)
    }

    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<Payout>, StoreError> {
        Ok(due_of(&self.payouts, within, Payout::action_due_at, now, limit))
    }

    fn schedule(&mut self, scope: &Scope) -> Result<Option<PayoutSchedule>, StoreError> {
        Ok(self.payout_schedules.iter().find(|s| in_scope_of(&s.account_id, s.livemode, scope)).cloned())
    }

    fn save_schedule(&mut self, schedule: &PayoutSchedule, expected_version: Option<i64>) -> Result<(), StoreError> {
        let same = |s: &PayoutSchedule| s.account_id == schedule.account_id && s.livemode == schedule.livemode;
        let stored = self.payout_schedules.iter_mut().find(|s| same(s));
        match (stored, expected_version) {
            (None, None) => self.payout_schedules.push(PayoutSchedule { version: 0, ..schedule.clone() }),
            (Some(stored), Some(version)) if stored.version == version => {
                *stored = PayoutSchedule { version: version + 1, ..schedule.clone() };
            }
            _ => return Err(StoreError::Conflict),
        }
        Ok(())
    }

    fn due_schedules(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<PayoutSchedule>, StoreError> {
        let mut due: Vec<&PayoutSchedule> = self
            .payout_schedules
            .iter()
            .filter(|s| within.is_none_or(|scope| in_scope_of(&s.account_id, s.livemode, scope)))
            .filter(|s| s.next_payout_at.is_some_and(|at| at <= now))
            .collect();
        due.sort_by_key(|s| s.next_payout_at);
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }
}
