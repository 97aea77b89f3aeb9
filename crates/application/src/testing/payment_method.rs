//! Saved payment methods.

use super::{in_scope_of, page_of, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{PaymentMethodRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::{CustomerId, PaymentMethodId};
use payments_domain::payment_method::PaymentMethod;

impl PaymentMethodRepository for State {
    fn insert(&mut self, method: &PaymentMethod) -> Result<(), StoreError> {
        self.payment_methods.push(method.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PaymentMethodId) -> Result<Option<PaymentMethod>, StoreError> {
        Ok(self.payment_methods.iter().find(|m| &m.id == id && in_scope_of(&m.account_id, m.livemode, scope)).cloned())
    }

    fn list(
        &mut self,
        scope: &Scope,
        customer_id: &CustomerId,
        page: &PageRequest,
    ) -> Result<Page<PaymentMethod>, StoreError> {
        let visible: Vec<&PaymentMethod> = self
            .payment_methods
            .iter()
            .filter(|m| in_scope_of(&m.account_id, m.livemode, scope) && &m.customer_id == customer_id)
            .collect();
        page_of(&visible, |m| m.id.as_str(), page)
    }

    fn update(&mut self, method: &PaymentMethod) -> Result<bool, StoreError> {
        let stored = self
            .payment_methods
            .iter_mut()
            .find(|m| m.id == method.id && m.account_id == method.account_id && m.livemode == method.livemode);
        Ok(stored.map(|stored| *stored = method.clone()).is_some())
    }

    fn delete(&mut self, scope: &Scope, id: &PaymentMethodId) -> Result<bool, StoreError> {
        let before = self.payment_methods.len();
        self.payment_methods.retain(|m| !(&m.id == id && in_scope_of(&m.account_id, m.livemode, scope)));
        Ok(self.payment_methods.len() < before)
    }

    fn delete_for_customer(&mut self, scope: &Scope, customer_id: &CustomerId) -> Result<usize, StoreError> {
        let before = self.payment_methods.len();
        self.payment_methods
            .retain(|m| !(&m.customer_id == customer_id && in_scope_of(&m.account_id, m.livemode, scope)));
        Ok(before - self.payment_methods.len())
    }
}
