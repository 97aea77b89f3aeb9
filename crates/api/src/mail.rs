//! E-mail rendered with the pages' templates and money and date formats (the `MailComposer` port):
//! a billing statement's number, amount, due date, line items and link, in plain text and HTML,
//! with no tracking of any kind.

use crate::formatting::{long_date, pesos, statement_lines, StatementLine};
use askama::Template;
use payments_application::ports::{MailComposer, StatementNotice};
use payments_domain::mail_message::MailContent;

/// What a statement's e-mail says, in both parts.
struct StatementFacts<'a> {
    customer_name: &'a str,
    merchant_name: &'a str,
    number: &'a str,
    amount: String,
    due_date: String,
    items: Vec<StatementLine<'a>>,
    url: &'a str,
}

#[derive(Template)]
#[template(path = "mail/billing_statement.txt")]
struct StatementText<'a> {
    mail: &'a StatementFacts<'a>,
}

#[derive(Template)]
#[template(path = "mail/billing_statement.html")]
struct StatementHtml<'a> {
    mail: &'a StatementFacts<'a>,
}

/// Renders the service's e-mail.
#[derive(Debug, Clone)]
pub struct TemplateComposer {
    /// The configured sender.
    pub from: String,
    /// The domain of `Message-ID`s: the host of the public base URL.
    pub message_domain: String,
}

impl MailComposer for TemplateComposer {
    fn billing_statement(&self, notice: StatementNotice<'_>) -> MailContent {
        let statement = notice.statement;
        let merchant_name = if notice.merchant_name.is_empty() { "The merchant" } else { notice.merchant_name };
        let mail = StatementFacts {
            customer_name: notice.customer.name.as_str(),
            merchant_name,
            number: statement.finalization().map(|done| done.number.as_str()).unwrap_or_default(),
            amount: pesos(statement.amount()),
            due_date: statement.details().due_at.map(long_date).unwrap_or_default(),
            items: statement_lines(statement),
            url: statement.url().unwrap_or_default(),
        };
        let StatementFacts { number, amount, due_date, url, .. } = &mail;
        MailContent {
            from: self.from.clone(),
            to: notice.customer.email.as_str().to_owned(),
            subject: format!("Billing statement {number} from {merchant_name}: {amount} due {due_date}"),
            message_id: format!("<{}@{}>", notice.message_key, self.message_domain),
            text: StatementText { mail: &mail }.render().unwrap_or_else(|error| {
                tracing::error!(%error, "the statement e-mail's text could not be rendered");
                format!("{merchant_name} sent you billing statement {number} for {amount}, due {due_date}: {url}")
            }),
            html: StatementHtml { mail: &mail }.render().unwrap_or_else(|error| {
                tracing::error!(%error, "the statement e-mail's HTML could not be rendered");
                String::new()
            }),
        }
    }
}
