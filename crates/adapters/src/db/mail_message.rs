//! The e-mail outbox in the database; times in milliseconds.

use super::error::{corrupt, store_error};
use super::json::parse_id;
use super::schema::mail_messages;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{MailMessageRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, BillingStatementId, MailMessageId};
use payments_domain::mail_message::{MailContent, MailMessage, MailStatus, StoredMailMessage};
use payments_domain::time::Timestamp;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = mail_messages, treat_none_as_null = true, treat_none_as_default_value = false)]
struct MailMessageRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    billing_statement_id: Option<String>,
    sender: String,
    recipient: String,
    subject: String,
    message_id: String,
    text_body: String,
    html_body: String,
    status: String,
    attempts: i64,
    next_attempt_at: i64,
    last_error: Option<String>,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

impl MailMessageRow {
    fn from_domain(message: &MailMessage) -> Self {
        let content = message.content();
        Self {
            id: message.id().to_string(),
            account_id: message.account_id().to_string(),
            livemode: message.livemode(),
            billing_statement_id: message.billing_statement_id().map(ToString::to_string),
            sender: content.from.clone(),
            recipient: content.to.clone(),
            subject: content.subject.clone(),
            message_id: content.message_id.clone(),
            text_body: content.text.clone(),
            html_body: content.html.clone(),
            status: message.status().as_str().to_owned(),
            attempts: message.attempts(),
            next_attempt_at: message.next_attempt_at().unix_millis(),
            last_error: message.last_error().map(str::to_owned),
            version: message.version(),
            created_at: message.created_at().unix_millis(),
            updated_at: message.updated_at().unix_millis(),
        }
    }

    fn into_domain(self) -> Result<MailMessage, StoreError> {
        Ok(MailMessage::restore(StoredMailMessage {
            id: parse_id("mail message id", &self.id, MailMessageId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            billing_statement_id: self
                .billing_statement_id
                .map(|id| parse_id("billing statement id", &id, BillingStatementId::parse))
                .transpose()?,
            content: MailContent {
                from: self.sender,
                to: self.recipient,
                subject: self.subject,
                message_id: self.message_id,
                text: self.text_body,
                html: self.html_body,
            },
            status: MailStatus::parse(&self.status).ok_or_else(|| corrupt("mail status", &self.status))?,
            attempts: self.attempts,
            next_attempt_at: Timestamp::from_unix_millis(self.next_attempt_at),
            last_error: self.last_error,
            created_at: Timestamp::from_unix_millis(self.created_at),
            updated_at: Timestamp::from_unix_millis(self.updated_at),
            version: self.version,
        }))
    }
}

fn all(rows: QueryResult<Vec<MailMessageRow>>) -> Result<Vec<MailMessage>, StoreError> {
    rows.map_err(store_error)?.into_iter().map(MailMessageRow::into_domain).collect()
}

impl MailMessageRepository for DbSession<'_> {
    fn insert(&mut self, message: &MailMessage) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(mail_messages::table).values(MailMessageRow::from_domain(message)),
            Expect::AnyRows,
        )?;
        self.queued.mail = true;
        Ok(())
    }

    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<MailMessage>, StoreError> {
        all(mail_messages::table
            .filter(mail_messages::status.eq(MailStatus::Pending.as_str()))
            .filter(mail_messages::next_attempt_at.le(now.unix_millis()))
            .order(mail_messages::next_attempt_at.asc())
            .limit(i64::from(limit))
            .select(MailMessageRow::as_select())
            .load(self.reading()?))
    }

    fn update(&mut self, message: &MailMessage, expected_version: i64) -> Result<(), StoreError> {
        let update = diesel::update(
            mail_messages::table
                .filter(in_scope!(mail_messages, message.account_id(), message.livemode()))
                .filter(mail_messages::id.eq(message.id().to_string()))
                .filter(mail_messages::version.eq(expected_version)),
        )
        .set(MailMessageRow::from_domain(message));
        self.write(update, Expect::OneRow)
    }

    fn latest(&mut self, scope: &Scope, limit: u32) -> Result<Vec<MailMessage>, StoreError> {
        all(mail_messages::table
            .filter(listed!(mail_messages, scope))
            .order(mail_messages::seq.desc())
            .limit(i64::from(limit))
            .select(MailMessageRow::as_select())
            .load(self.reading()?))
    }
}
