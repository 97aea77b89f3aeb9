//! Payouts with their lines, and payout schedules.

use super::{due_of, filtered_page_of, in_scope_of, page_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{
    BalanceRepository, PayoutFilter, PayoutRepository, ReconciledPayment, ReconciliationLine, StoreError,
};
use crate::scope::Scope;
use payments_domain::ids::{PaymentId, PayoutId, PayoutTransactionId};
use payments_domain::payout::{MadePayout, Payout, PayoutSchedule, PayoutTransaction, TransactionSource};
use payments_domain::time::Timestamp;

impl PayoutRepository for State {
    fn insert(&mut self, made: &MadePayout) -> Result<(), StoreError> {
        // As the database claims them: exactly the unpaid entries available by the payout's time.
        let scope = Scope::of(made.payout.account_id(), made.payout.livemode());
        let mut unpaid: Vec<String> =
            self.unpaid(&scope, made.payout.created_at())?.into_iter().map(|entry| entry.id().to_string()).collect();
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

    fn reconciliation(
        &mut self,
        scope: &Scope,
        id: &PayoutId,
        after: Option<&PayoutTransactionId>,
        limit: u32,
    ) -> Result<Vec<ReconciliationLine>, StoreError> {
        let of_payout: Vec<&PayoutTransaction> = self
            .payout_transactions
            .iter()
            .filter(|line| &line.payout_id == id && in_scope_of(&line.account_id, line.livemode, scope))
            .collect();
        let start = match after {
            Some(after) => of_payout.iter().position(|line| &line.id == after).ok_or(StoreError::UnknownCursor)? + 1,
            None => 0,
        };
        let reconciled = |payment_id: &PaymentId| {
            let payment = self.payments.iter().find(|payment| {
                payment.id() == payment_id && in_scope_of(payment.account_id(), payment.livemode(), scope)
            })?;
            let customer_email = payment.customer_id().and_then(|customer_id| {
                self.customers
                    .iter()
                    .find(|customer| &customer.id == customer_id && !customer.is_deleted())
                    .map(|customer| customer.email.as_str().to_owned())
            });
            Some(ReconciledPayment {
                id: payment.id().clone(),
                description: payment.description().map(|description| description.as_str().to_owned()),
                metadata: payment.metadata().cloned(),
                customer_email,
            })
        };
        Ok(of_payout
            .into_iter()
            .skip(start)
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .map(|line| {
                let payment = match &line.source {
                    TransactionSource::Payment(payment) => reconciled(payment),
                    TransactionSource::Refund(refund) => self
                        .refunds
                        .iter()
                        .find(|found| found.id() == refund && in_scope_of(found.account_id(), found.livemode(), scope))
                        .and_then(|found| reconciled(found.payment_id())),
                    TransactionSource::Adjustment(_) => None,
                };
                ReconciliationLine { line: line.clone(), payment }
            })
            .collect())
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
