//! E-mail: the outbox in storage, the composer that renders a message, and the mailer that hands a
//! message to a mail server (or keeps it, without one).

use crate::error::StoreError;
use crate::scope::Scope;
use payments_domain::billing_statement::BillingStatement;
use payments_domain::customer::Customer;
use payments_domain::mail_message::{MailContent, MailMessage, MailOutcome};
use payments_domain::time::Timestamp;
use std::future::Future;
use std::pin::Pin;

/// The outbox.
pub trait MailMessageRepository {
    /// # Errors
    /// Storage failures.
    fn insert(&mut self, message: &MailMessage) -> Result<(), StoreError>;

    /// Up to `limit` pending messages of any scope due at `now`, the longest due first.
    ///
    /// # Errors
    /// Storage failures.
    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<MailMessage>, StoreError>;

    /// Writes `message` if its stored version is still `expected_version`.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the version moved on; storage failures.
    fn update(&mut self, message: &MailMessage, expected_version: i64) -> Result<(), StoreError>;

    /// The scope's latest `limit` messages, newest first.
    ///
    /// # Errors
    /// Storage failures.
    fn latest(&mut self, scope: &Scope, limit: u32) -> Result<Vec<MailMessage>, StoreError>;
}

/// What a billing statement's e-mail tells its customer.
#[derive(Debug, Clone, Copy)]
pub struct StatementNotice<'a> {
    pub statement: &'a BillingStatement,
    pub customer: &'a Customer,
    /// The merchant's name, as the statement shows it.
    pub merchant_name: &'a str,
    /// A unique id for the `Message-ID` header.
    pub message_key: &'a str,
}

/// Renders e-mails (the api renders them with its page templates).
pub trait MailComposer: Send + Sync {
    /// The message that sends `notice`'s statement to its customer.
    fn billing_statement(&self, notice: StatementNotice<'_>) -> MailContent;
}

/// A hand-over of one message in progress.
pub type MailSending<'a> = Pin<Box<dyn Future<Output = MailOutcome> + Send + 'a>>;

/// Hands a rendered message to a mail server. Asynchronous, like the webhook sender: it runs in the
/// mail worker, never inside a request or a transaction.
pub trait Mailer: Send + Sync {
    fn send<'a>(&'a self, content: &'a MailContent) -> MailSending<'a>;

    /// Whether messages leave this service (an SMTP server is configured); when not, they are kept
    /// in the outbox for the test mailbox, and live mode cannot send.
    fn delivers(&self) -> bool;
}
