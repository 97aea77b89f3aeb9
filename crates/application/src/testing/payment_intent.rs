//! Payment intents.

use super::{due_of, filtered_page_of, in_scope_of, replace_versioned, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{IntentOutcome, PaymentIntentFilter, PaymentIntentRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::PaymentIntentId;
use payments_domain::payment_intent::PaymentIntent;
use payments_domain::time::Timestamp;

impl PaymentIntentRepository for State {
    fn insert(&mut self, intent: &PaymentIntent) -> Result<(), StoreError> {
        self.payment_intents.push(intent.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PaymentIntentId) -> Result<Option<PaymentIntent>, StoreError> {
        Ok(self
            .payment_intents
            .iter()
            .find(|i| i.id() == id && in_scope_of(i.account_id(), i.livemode(), scope))
            .cloned())
    }

    fn find_many(&mut self, scope: &Scope, ids: &[PaymentIntentId]) -> Result<Vec<PaymentIntent>, StoreError> {
        Ok(self
            .payment_intents
            .iter()
            .filter(|i| ids.iter().any(|id| i.id() == id && in_scope_of(i.account_id(), i.livemode(), scope)))
            .cloned()
            .collect())
    }

    fn update(&mut self, intent: &PaymentIntent, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.payment_intents, intent, expected_version)
    }

    fn find_for_page(&mut self, id: &PaymentIntentId) -> Result<Option<PaymentIntent>, StoreError> {
        Ok(self.payment_intents.iter().find(|i| i.id() == id).cloned())
    }

    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<PaymentIntent>, StoreError> {
        Ok(self.payment_intents.iter().find(|i| i.redirect_token() == Some(token)).cloned())
    }

    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<PaymentIntent>, StoreError> {
        let with_action =
            |intent: &PaymentIntent| intent.action_due_at().filter(|_| intent.status().due_action().is_some());
        Ok(due_of(&self.payment_intents, within, with_action, now, limit))
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &PaymentIntentFilter,
        page: &PageRequest,
    ) -> Result<Page<PaymentIntent>, StoreError> {
        let in_scope: Vec<&PaymentIntent> =
            self.payment_intents.iter().filter(|i| in_scope_of(i.account_id(), i.livemode(), scope)).collect();
        filtered_page_of(&in_scope, |i| i.id().as_str(), |i| filter.matches(i), page)
    }

    fn latest_outcomes(&mut self, scope: &Scope, limit: u32) -> Result<Vec<IntentOutcome>, StoreError> {
        Ok(self
            .payment_intents
            .iter()
            .rev()
            .filter(|i| in_scope_of(i.account_id(), i.livemode(), scope))
            .take(limit as usize)
            .map(|i| IntentOutcome {
                status: i.status(),
                amount_received: i.amount_received(),
                created_at: i.created_at(),
            })
            .collect())
    }
}
