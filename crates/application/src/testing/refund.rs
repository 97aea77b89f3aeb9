//! Refunds.

use super::{in_scope_of, page_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{RefundRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::{PaymentId, RefundId};
use payments_domain::refund::Refund;

impl RefundRepository for State {
    fn insert(&mut self, refund: &Refund) -> Result<(), StoreError> {
        self.refunds.push(refund.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &RefundId) -> Result<Option<Refund>, StoreError> {
        Ok(self.refunds.iter().find(|r| r.id() == id && in_scope_of(r.account_id(), r.livemode(), scope)).cloned())
    }

    fn update(&mut self, refund: &Refund, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.refunds, refund, expected_version)
    }

    fn of_payments(&mut self, scope: &Scope, payment_ids: &[PaymentId]) -> Result<Vec<Refund>, StoreError> {
        Ok(self
            .refunds
            .iter()
            .filter(|r| payment_ids.contains(r.payment_id()) && in_scope_of(r.account_id(), r.livemode(), scope))
            .cloned()
            .collect())
    }

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Refund>, StoreError> {
        let in_scope: Vec<&Refund> =
            self.refunds.iter().filter(|r| in_scope_of(r.account_id(), r.livemode(), scope)).collect();
        page_of(&in_scope, |r| r.id().as_str(), page)
    }
}
