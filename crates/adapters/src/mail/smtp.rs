//! The SMTP mailer: a multipart message (plain text and HTML) with `Date`, `Message-ID`, `From`,
//! `To` and `Subject`, handed to the configured server through lettre. `smtp://host:port` speaks
//! plain SMTP (STARTTLS when the URL adds `?tls=required`), `smtps://` implicit TLS; credentials go
//! in the URL's user part.

use lettre::message::{header::ContentType, Mailbox, MultiPart, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use payments_application::ports::{MailSending, Mailer};
use payments_domain::mail_message::{MailContent, MailOutcome};
use std::time::Duration;

/// Whether `from` can be the sender of a message: an address, with or without a display name.
#[must_use]
pub fn valid_sender(from: &str) -> bool {
    from.parse::<Mailbox>().is_ok()
}

/// Why the SMTP settings cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("mail.smtp_url is not a usable SMTP URL (smtp://host:port or smtps://user:password@host:port)")]
pub struct SmtpSettingsError(#[source] lettre::transport::smtp::Error);

/// Sends through one SMTP server.
#[derive(Clone)]
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl SmtpMailer {
    /// A mailer for the server at `url`, giving up on a conversation after `timeout`.
    ///
    /// # Errors
    /// When `url` is not an SMTP URL lettre understands.
    pub fn new(url: &str, timeout: Duration) -> Result<Self, SmtpSettingsError> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(SmtpSettingsError)?
            .timeout(Some(timeout))
            .build();
        Ok(Self { transport })
    }

    fn message(content: &MailContent) -> Result<Message, String> {
        let from: Mailbox = content.from.parse().map_err(|error| format!("bad sender address: {error}"))?;
        let to: Mailbox = content.to.parse().map_err(|error| format!("bad recipient address: {error}"))?;
        Message::builder()
            .from(from)
            .to(to)
            .subject(content.subject.clone())
            .message_id(Some(content.message_id.clone()))
            .multipart(
                MultiPart::alternative()
                    .singlepart(SinglePart::builder().header(ContentType::TEXT_PLAIN).body(content.text.clone()))
                    .singlepart(SinglePart::builder().header(ContentType::TEXT_HTML).body(content.html.clone())),
            )
            .map_err(|error| format!("the message could not be built: {error}"))
    }
}

impl Mailer for SmtpMailer {
    fn send<'a>(&'a self, content: &'a MailContent) -> MailSending<'a> {
        Box::pin(async move {
            let message = match Self::message(content) {
                Ok(message) => message,
                // The same content would fail the same way next time.
                Err(reason) => return MailOutcome::Refused(reason),
            };
            match self.transport.send(message).await {
                Ok(_) => MailOutcome::Sent,
                Err(error) if error.is_permanent() => MailOutcome::Refused(smtp_reason(&error)),
                Err(error) => MailOutcome::Failed(smtp_reason(&error)),
            }
        })
    }

    fn delivers(&self) -> bool {
        true
    }
}

/// The error with its causes on one line, for the outbox's `last_error`.
fn smtp_reason(error: &lettre::transport::smtp::Error) -> String {
    let mut reason = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        reason.push_str(": ");
        reason.push_str(&cause.to_string());
        source = cause.source();
    }
    reason
}
