//! The mailer without a mail server: every message stays in the outbox, where the test mailbox
//! shows it. The embedded default, so sending a statement works with no setup.

use payments_application::ports::{MailSending, Mailer};
use payments_domain::mail_message::{MailContent, MailOutcome};

/// Keeps every message in the outbox.
#[derive(Debug, Default, Clone, Copy)]
pub struct OutboxMailer;

impl Mailer for OutboxMailer {
    fn send<'a>(&'a self, _content: &'a MailContent) -> MailSending<'a> {
        Box::pin(async { MailOutcome::Kept })
    }

    fn delivers(&self) -> bool {
        false
    }
}
