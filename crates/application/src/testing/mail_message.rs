//! Mail waiting to be sent.

use super::{in_scope_of, replace_versioned, State};
use crate::ports::{MailMessageRepository, StoreError};
use crate::scope::Scope;
use payments_domain::mail_message::{MailMessage, MailStatus};
use payments_domain::time::Timestamp;

impl MailMessageRepository for State {
    fn insert(&mut self, message: &MailMessage) -> Result<(), StoreError> {
        self.mail_messages.push(message.clone());
        Ok(())
    }

    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<MailMessage>, StoreError> {
        let mut due: Vec<&MailMessage> = self
            .mail_messages
            .iter()
            .filter(|m| m.status() == MailStatus::Pending && m.next_attempt_at() <= now)
            .collect();
        due.sort_by_key(|m| m.next_attempt_at());
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }

    fn update(&mut self, message: &MailMessage, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.mail_messages, message, expected_version)
    }

    fn latest(&mut self, scope: &Scope, limit: u32) -> Result<Vec<MailMessage>, StoreError> {
        Ok(self
            .mail_messages
            .iter()
            .rev()
            .filter(|m| in_scope_of(m.account_id(), m.livemode(), scope))
            .take(limit as usize)
            .cloned()
            .collect())
    }
}
