//! E-mail the service sends for a merchant (a billing statement to its customer): written to an
//! outbox in the transaction that asked for it, then sent by a worker and retried until it goes or
//! its retry window closes. Without an SMTP server it is kept in the outbox, where a developer
//! reads it.
//!
//! ```text
//! pending ──sent──▶ sent
//!    ├──no mail server (test mode)──▶ kept
//!    └──retry window over──▶ failed
//! ```

use crate::ids::{AccountId, BillingStatementId, MailMessageId};
use crate::retry::RetrySchedule;
use crate::time::Timestamp;

/// Where an e-mail stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MailStatus {
    Pending,
    Sent,
    /// Kept in the outbox for the test mailbox: no mail server is configured.
    Kept,
    Failed,
}

impl MailStatus {
    pub const ALL: [Self; 4] = [Self::Pending, Self::Sent, Self::Kept, Self::Failed];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Sent => "sent",
            Self::Kept => "kept",
            Self::Failed => "failed",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == value)
    }
}

/// The rendered message: what is sent, and what the mailbox shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailContent {
    pub from: String,
    pub to: String,
    pub subject: String,
    /// The `Message-ID` header's value, with its angle brackets.
    pub message_id: String,
    pub text: String,
    pub html: String,
}

/// How one attempt to hand the message over ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailOutcome {
    Sent,
    /// No mail server: the message stays in the outbox.
    Kept,
    /// The server could not be reached, or refused it for now; tried again later. The reason is
    /// recorded.
    Failed(String),
    /// The server refused it for good (a permanent SMTP reply, such as no such mailbox), or it
    /// cannot be made into a message: never tried again. The reason is recorded.
    Refused(String),
}

/// An e-mail in the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailMessage {
    id: MailMessageId,
    account_id: AccountId,
    livemode: bool,
    billing_statement_id: Option<BillingStatementId>,
    content: MailContent,
    status: MailStatus,
    attempts: i64,
    next_attempt_at: Timestamp,
    last_error: Option<String>,
    created_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// A message as a repository stores it, to restore it with [`MailMessage::restore`].
#[derive(Debug, Clone)]
pub struct StoredMailMessage {
    pub id: MailMessageId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub billing_statement_id: Option<BillingStatementId>,
    pub content: MailContent,
    pub status: MailStatus,
    pub attempts: i64,
    pub next_attempt_at: Timestamp,
    pub last_error: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl MailMessage {
    /// A message due at once.
    #[must_use]
    pub fn create(
        id: MailMessageId,
        account_id: AccountId,
        livemode: bool,
        billing_statement_id: Option<BillingStatementId>,
        content: MailContent,
        now: Timestamp,
    ) -> Self {
        Self {
            id,
            account_id,
            livemode,
            billing_statement_id,
            content,
            status: MailStatus::Pending,
            attempts: 0,
            next_attempt_at: now,
            last_error: None,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[must_use]
    pub fn restore(stored: StoredMailMessage) -> Self {
        let StoredMailMessage {
            id,
            account_id,
            livemode,
            billing_statement_id,
            content,
            status,
            attempts,
            next_attempt_at,
            last_error,
            created_at,
            updated_at,
            version,
        } = stored;
        Self {
            id,
            account_id,
            livemode,
            billing_statement_id,
            content,
            status,
            attempts,
            next_attempt_at,
            last_error,
            created_at,
            updated_at,
            version,
        }
    }

    /// Claims the message until `lease_until`: no other worker picks it up before then, and a
    /// crashed worker's claim runs out. Returns `false` unless it is pending.
    pub fn claim(&mut self, now: Timestamp, lease_until: Timestamp) -> bool {
        if self.status != MailStatus::Pending {
            return false;
        }
        self.next_attempt_at = lease_until;
        self.updated_at = now;
        self.version += 1;
        true
    }

    /// Records an attempt made at `now`: sent or kept ends it; a failure is retried after the
    /// schedule's delay (`random` in `[0, 1)` draws the jitter) until the retry window closes.
    pub fn record(&mut self, outcome: &MailOutcome, schedule: &RetrySchedule, now: Timestamp, random: f64) {
        self.attempts += 1;
        self.updated_at = now;
        self.version += 1;
        match outcome {
            MailOutcome::Sent => {
                self.status = MailStatus::Sent;
                self.last_error = None;
            }
            MailOutcome::Kept => self.status = MailStatus::Kept,
            MailOutcome::Failed(reason) => {
                self.last_error = Some(reason.clone());
                if schedule.gives_up(self.created_at, now) {
                    self.status = MailStatus::Failed;
                } else {
                    self.next_attempt_at = now.plus_millis(schedule.delay_ms(self.attempts, random));
                }
            }
            MailOutcome::Refused(reason) => {
                self.last_error = Some(reason.clone());
                self.status = MailStatus::Failed;
            }
        }
    }

    #[must_use]
    pub fn id(&self) -> &MailMessageId {
        &self.id
    }

    #[must_use]
    pub fn account_id(&self) -> &AccountId {
        &self.account_id
    }

    #[must_use]
    pub fn livemode(&self) -> bool {
        self.livemode
    }

    #[must_use]
    pub fn billing_statement_id(&self) -> Option<&BillingStatementId> {
        self.billing_statement_id.as_ref()
    }

    #[must_use]
    pub fn content(&self) -> &MailContent {
        &self.content
    }

    #[must_use]
    pub fn status(&self) -> MailStatus {
        self.status
    }

    #[must_use]
    pub fn attempts(&self) -> i64 {
        self.attempts
    }

    #[must_use]
    pub fn next_attempt_at(&self) -> Timestamp {
        self.next_attempt_at
    }

    #[must_use]
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }

    #[must_use]
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at
    }

    #[must_use]
    pub fn version(&self) -> i64 {
        self.version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEDULE: RetrySchedule =
        RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };
    const RANDOM: &str = "abcdefghijklmnopqrstuvwxyz012345";

    fn message(now: Timestamp) -> MailMessage {
        let content = MailContent {
            from: "billing@shop.example".into(),
            to: "juan@example.com".into(),
            subject: "Statement".into(),
            message_id: "<m@shop.example>".into(),
            text: "t".into(),
            html: "<p>t</p>".into(),
        };
        MailMessage::create(
            MailMessageId::from_random(RANDOM),
            AccountId::from_random(RANDOM),
            false,
            None,
            content,
            now,
        )
    }

    #[test]
    fn a_failed_send_is_retried_with_backoff_until_the_window_closes() {
        let start = Timestamp::from_unix_seconds(1_800_000_000);
        let mut mail = message(start);
        assert!(mail.claim(start, start.plus_seconds(30)));
        mail.record(&MailOutcome::Failed("refused".into()), &SCHEDULE, start, 0.0);
        assert_eq!((mail.status(), mail.next_attempt_at()), (MailStatus::Pending, start.plus_millis(1_000)));
        mail.record(&MailOutcome::Failed("refused".into()), &SCHEDULE, start, 0.0);
        assert_eq!(mail.next_attempt_at(), start.plus_millis(2_000));
        assert_eq!(mail.last_error(), Some("refused"));
        mail.record(&MailOutcome::Failed("refused".into()), &SCHEDULE, start.plus_seconds(60), 0.0);
        assert_eq!(mail.status(), MailStatus::Failed);
        assert!(!mail.claim(start, start), "a failed message is not sent again");
    }

    #[test]
    fn a_permanent_refusal_fails_the_message_at_once() {
        let start = Timestamp::from_unix_seconds(1_800_000_000);
        let mut mail = message(start);
        mail.record(&MailOutcome::Refused("550 Mailbox unavailable".into()), &SCHEDULE, start, 0.0);
        assert_eq!((mail.status(), mail.attempts()), (MailStatus::Failed, 1));
        assert_eq!(mail.last_error(), Some("550 Mailbox unavailable"));
        assert!(!mail.claim(start.plus_seconds(3_600), start.plus_seconds(3_660)), "never tried again");
    }

    #[test]
    fn sent_and_kept_messages_are_done() {
        let now = Timestamp::from_unix_seconds(1_800_000_000);
        let mut sent = message(now);
        sent.record(&MailOutcome::Sent, &SCHEDULE, now, 0.0);
        assert_eq!((sent.status(), sent.attempts()), (MailStatus::Sent, 1));
        let mut kept = message(now);
        kept.record(&MailOutcome::Kept, &SCHEDULE, now, 0.0);
        assert_eq!(kept.status(), MailStatus::Kept);
        assert!(!sent.claim(now, now) && !kept.claim(now, now));
    }
}
