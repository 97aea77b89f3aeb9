//! Payment intents.

use super::{in_scope_of, replace_versioned, State};
use crate::ports::{PaymentIntentRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::PaymentIntentId;
use payments_domain::payment_intent::{PaymentIntent, PaymentIntentStatus};
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

    fn update(&mut self, intent: &PaymentIntent, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.payment_intents, intent, expected_version)
    }

    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<PaymentIntent>, StoreError> {
        Ok(self.payment_intents.iter().find(|i| i.redirect_token() == Some(token)).cloned())
    }

    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<PaymentIntent>, StoreError> {
        let with_actions = [
            PaymentIntentStatus::AwaitingNextAction,
            PaymentIntentStatus::Processing,
            PaymentIntentStatus::AwaitingCapture,
        ];
        let mut due: Vec<&PaymentIntent> = self
            .payment_intents
            .iter()
            .filter(|i| with_actions.contains(&i.status()) && i.action_due_at().is_some_and(|due| due <= now))
            .collect();
        due.sort_by_key(|i| i.action_due_at());
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }
}
