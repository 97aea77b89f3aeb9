//! Payments.

use super::{filtered_page_of, in_scope_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{PaymentFilter, PaymentRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::{PaymentId, PaymentIntentId};
use payments_domain::payment::Payment;

impl PaymentRepository for State {
    fn insert(&mut self, payment: &Payment) -> Result<(), StoreError> {
        self.payments.push(payment.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        Ok(self.payments.iter().find(|p| p.id() == id && in_scope_of(p.account_id(), p.livemode(), scope)).cloned())
    }

    fn find_many(&mut self, scope: &Scope, ids: &[PaymentId]) -> Result<Vec<Payment>, StoreError> {
        Ok(self
            .payments
            .iter()
            .filter(|p| ids.iter().any(|id| p.id() == id && in_scope_of(p.account_id(), p.livemode(), scope)))
            .cloned()
            .collect())
    }

    fn update(&mut self, payment: &Payment, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.payments, payment, expected_version)
    }

    fn of_intent(&mut self, scope: &Scope, intent_id: &PaymentIntentId) -> Result<Vec<Payment>, StoreError> {
        Ok(self
            .payments
            .iter()
            .filter(|p| p.payment_intent_id() == intent_id && in_scope_of(p.account_id(), p.livemode(), scope))
            .cloned()
            .collect())
    }

    fn list(&mut self, scope: &Scope, filter: &PaymentFilter, page: &PageRequest) -> Result<Page<Payment>, StoreError> {
        let in_scope: Vec<&Payment> =
            self.payments.iter().filter(|p| in_scope_of(p.account_id(), p.livemode(), scope)).collect();
        filtered_page_of(
            &in_scope,
            |p| p.id().as_str(),
            |p| {
                filter.status.is_none_or(|status| p.status() == status)
                    && filter
                        .page_id
                        .as_ref()
                        .is_none_or(|page| p.page_session().is_some_and(|session| session.page_id == page.as_str()))
            },
            page,
        )
    }
}
