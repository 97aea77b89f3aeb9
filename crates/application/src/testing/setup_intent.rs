//! Setup intents.

use super::{in_scope_of, replace_versioned, State};
use crate::ports::{SetupIntentRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::SetupIntentId;
use payments_domain::setup_intent::{SetupIntent, SetupIntentStatus};
use payments_domain::time::Timestamp;

impl SetupIntentRepository for State {
    fn insert(&mut self, intent: &SetupIntent) -> Result<(), StoreError> {
        self.setup_intents.push(intent.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &SetupIntentId) -> Result<Option<SetupIntent>, StoreError> {
        Ok(self
            .setup_intents
            .iter()
            .find(|i| i.id() == id && in_scope_of(i.account_id(), i.livemode(), scope))
            .cloned())
    }

    fn update(&mut self, intent: &SetupIntent, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.setup_intents, intent, expected_version)
    }

    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<SetupIntent>, StoreError> {
        Ok(self.setup_intents.iter().find(|i| i.redirect_token() == Some(token)).cloned())
    }

    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<SetupIntent>, StoreError> {
        let with_actions = [SetupIntentStatus::AwaitingNextAction, SetupIntentStatus::Processing];
        let mut due: Vec<&SetupIntent> = self
            .setup_intents
            .iter()
            .filter(|i| with_actions.contains(&i.status()) && i.action_due_at().is_some_and(|due| due <= now))
            .collect();
        due.sort_by_key(|i| i.action_due_at());
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }
}
