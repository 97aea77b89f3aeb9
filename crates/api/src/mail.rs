//! E-mail rendered with the pages' templates and money and date formats (the `MailComposer` port):
//! a billing statement's number, amount, due date, line items and link, in plain text and HTML,
//! with no tracking of any kind.

use crate::pages::{long_date, pesos};
use askama::Template;
use payments_application::ports::{MailComposer, StatementNotice};
use payments_domain::mail_message::MailContent;

struct ItemLine<'a> {
    description: &'a str,
    quantity: i64,
    unit_price: String,
    total: String,
}

#[derive(Template)]
#[template(path = "mail/billing_statement.txt")]
struct StatementText<'a> {
    customer_name: &'a str,
    merchant_name: &'a str,
    number: &'a str,
    amount: &'a str,
    due_date: &'a str,
    items: &'a [ItemLine<'a>],
    url: &'a str,
}

#[derive(Template)]
#[template(path = "mail/billing_statement.html")]
struct StatementHtml<'a> {
    customer_name: &'a str,
    merchant_name: &'a str,
    number: &'a str,
    amount: &'a str,
    due_date: &'a str,
    items: &'a [ItemLine<'a>],
    url: &'a str,
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
        let number = statement.finalization().map(|done| done.number.as_str()).unwrap_or_default();
        let url = statement.url().unwrap_or_default();
        let amount = pesos(statement.amount());
        let due_date = statement.details().due_at.map(long_date).unwrap_or_default();
        let items: Vec<ItemLine<'_>> = statement
            .line_items()
            .iter()
            .map(|item| ItemLine {
                description: &item.description,
                quantity: item.quantity,
                unit_price: pesos(item.unit_price),
                total: pesos(item.total()),
            })
            .collect();
        let customer_name = notice.customer.name.as_str();
        let merchant_name = if notice.merchant_name.is_empty() { "The merchant" } else { notice.merchant_name };
        let text = StatementText {
            customer_name,
            merchant_name,
            number,
            amount: &amount,
            due_date: &due_date,
            items: &items,
            url,
        };
        let html = StatementHtml {
            customer_name,
            merchant_name,
            number,
            amount: &amount,
            due_date: &due_date,
            items: &items,
            url,
        };
        MailContent {
            from: self.from.clone(),
            to: notice.customer.email.as_str().to_owned(),
            subject: format!("Billing statement {number} from {merchant_name}: {amount} due {due_date}"),
            message_id: format!("<{}@{}>", notice.message_key, self.message_domain),
            text: text.render().unwrap_or_else(|error| {
                tracing::error!(%error, "the statement e-mail's text could not be rendered");
                format!("{merchant_name} sent you billing statement {number} for {amount}, due {due_date}: {url}")
            }),
            html: html.render().unwrap_or_else(|error| {
                tracing::error!(%error, "the statement e-mail's HTML could not be rendered");
                String::new()
            }),
        }
    }
}
