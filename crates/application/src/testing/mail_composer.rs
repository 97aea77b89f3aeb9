//! A mail composer that writes plain text.

use crate::ports::{MailComposer, StatementNotice};
use payments_domain::mail_message::MailContent;

/// A composer that writes the statement's number and total as plain text.
#[derive(Debug, Default)]
pub struct PlainComposer;

impl MailComposer for PlainComposer {
    fn billing_statement(&self, notice: StatementNotice<'_>) -> MailContent {
        let number = notice.statement.finalization().map(|done| done.number.clone()).unwrap_or_default();
        MailContent {
            from: "billing@shop.example".to_owned(),
            to: notice.customer.email.as_str().to_owned(),
            subject: format!("{} {number}", notice.merchant_name),
            message_id: format!("<{}@shop.example>", notice.message_key),
            text: format!("{number}: {}", notice.statement.amount()),
            html: format!("<p>{number}</p>"),
        }
    }
}
