//! Setup intents.

use super::{due_of, in_scope_of, replace_versioned, State};
use crate::ports::{SetupIntentRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::SetupIntentId;
use payments_domain::setup_intent::SetupIntent;
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

    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<SetupIntent>, StoreError> {
        let with_action =
            |intent: &SetupIntent| intent.action_due_at().filter(|_| intent.status().due_action().is_some());
        Ok(due_of(&self.setup_intents, within, with_action, now, limit))
    }
}
