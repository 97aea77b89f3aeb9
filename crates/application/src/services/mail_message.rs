//! Sending e-mail from the outbox: claim due messages under a lease, and record how each hand-over
//! went (the domain decides sent, kept, retry or failed). Handing over is the mail worker's async
//! work through the [`crate::ports::Mailer`] port, outside any transaction. Also the test mailbox.

use crate::error::ApplicationError;
use crate::ports::{in_transaction, reading, Clock, IdGenerator, UnitOfWork};
use crate::scope::Scope;
use payments_domain::mail_message::{MailMessage, MailOutcome};
use payments_domain::retry::RetrySchedule;
use std::sync::Arc;

/// Outbox use cases.
pub struct MailMessageService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    schedule: RetrySchedule,
}

impl MailMessageService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        schedule: RetrySchedule,
    ) -> Self {
        Self { unit_of_work, clock, ids, schedule }
    }

    /// Claims up to `limit` due messages for `lease_ms`: each claim is a versioned update, so no other
    /// instance sends a claimed message before its lease runs out (a crashed worker's messages are
    /// sent again then).
    ///
    /// # Errors
    /// Storage failures.
    pub fn claim_due(&self, limit: u32, lease_ms: i64) -> Result<Vec<MailMessage>, ApplicationError> {
        let now = self.clock.now();
        let due =
            reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.mail_messages().due(now, limit)?))?;
        let mut claimed = Vec::with_capacity(due.len());
        for message in due {
            let mut claim = message.clone();
            if !claim.claim(now, now.plus_millis(lease_ms)) {
                continue;
            }
            let outcome = in_transaction(self.unit_of_work.as_ref(), |repositories| {
                Ok(repositories.mail_messages().update(&claim, message.version())?)
            });
            match outcome {
                Ok(()) => claimed.push(claim),
                Err(ApplicationError::Conflict) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(claimed)
    }

    /// Records how the hand-over of a claimed message went. A message whose claim was taken over
    /// meanwhile (its lease ran out) is left to its new owner.
    ///
    /// # Errors
    /// Storage failures.
    pub fn record(&self, claimed: &MailMessage, outcome: &MailOutcome) -> Result<(), ApplicationError> {
        let now = self.clock.now();
        let mut message = claimed.clone();
        message.record(outcome, &self.schedule, now, self.ids.fraction());
        match in_transaction(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.mail_messages().update(&message, claimed.version())?)
        }) {
            Ok(()) | Err(ApplicationError::Conflict) => Ok(()),
            Err(error) => Err(error),
        }
    }

    /// The scope's latest `limit` messages, newest first, for the test mailbox.
    ///
    /// # Errors
    /// Storage failures.
    pub fn latest(&self, scope: &Scope, limit: u32) -> Result<Vec<MailMessage>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.mail_messages().latest(scope, limit)?))
    }
}
