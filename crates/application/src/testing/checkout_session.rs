//! Checkout sessions.

use super::{due_of, filtered_page_of, in_scope_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{CheckoutSessionFilter, CheckoutSessionRepository, StoreError};
use crate::scope::Scope;
use payments_domain::checkout_session::{CheckoutSession, CheckoutSessionStatus};
use payments_domain::ids::{CheckoutSessionId, PaymentIntentId};
use payments_domain::time::Timestamp;

impl CheckoutSessionRepository for State {
    fn insert(&mut self, session: &CheckoutSession) -> Result<(), StoreError> {
        self.checkout_sessions.push(session.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &CheckoutSessionId) -> Result<Option<CheckoutSession>, StoreError> {
        Ok(self
            .checkout_sessions
            .iter()
            .find(|s| s.id() == id && in_scope_of(s.account_id(), s.livemode(), scope))
            .cloned())
    }

    fn find_for_page(&mut self, id: &CheckoutSessionId) -> Result<Option<CheckoutSession>, StoreError> {
        Ok(self.checkout_sessions.iter().find(|s| s.id() == id).cloned())
    }

    fn find_by_payment_intent(
        &mut self,
        scope: &Scope,
        payment_intent_id: &PaymentIntentId,
    ) -> Result<Option<CheckoutSession>, StoreError> {
        Ok(self
            .checkout_sessions
            .iter()
            .find(|s| s.payment_intent_id() == payment_intent_id && in_scope_of(s.account_id(), s.livemode(), scope))
            .cloned())
    }

    fn update(&mut self, session: &CheckoutSession, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.checkout_sessions, session, expected_version)
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &CheckoutSessionFilter,
        page: &PageRequest,
    ) -> Result<Page<CheckoutSession>, StoreError> {
        let in_scope: Vec<&CheckoutSession> =
            self.checkout_sessions.iter().filter(|s| in_scope_of(s.account_id(), s.livemode(), scope)).collect();
        let matches = |s: &CheckoutSession| {
            filter.status.is_none_or(|status| s.status() == status)
                && filter
                    .customer_reference_id
                    .as_ref()
                    .is_none_or(|reference| s.details().customer_reference_id.as_ref() == Some(reference))
        };
        filtered_page_of(&in_scope, |s| s.id().as_str(), matches, page)
    }

    fn expired(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<CheckoutSession>, StoreError> {
        let expiry = |session: &CheckoutSession| {
            Some(session.expires_at()).filter(|_| session.status() == CheckoutSessionStatus::Active)
        };
        Ok(due_of(&self.checkout_sessions, within, expiry, now, limit))
    }
}
