//! E-mail: the SMTP mailer (lettre), the outbox-only mailer used when no SMTP server is configured,
//! and the worker that sends the outbox.

mod outbox;
mod smtp;
mod worker;

pub use outbox::OutboxMailer;
pub use smtp::{valid_sender, SmtpMailer, SmtpSettingsError};
pub use worker::{MailWorker, MailWorkerSettings};
