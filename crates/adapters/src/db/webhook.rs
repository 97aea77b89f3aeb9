//! Webhooks in the database.

use super::connection::AnyConnection;
use super::cursor_seq;
use super::error::{corrupt, store_error};
use super::json::{from_json, invalid, parse_id, to_json};
use super::schema::webhooks;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{StoreError, WebhookFilter, WebhookRepository};
use payments_application::Scope;
use payments_domain::description::Description;
use payments_domain::event::EventType;
use payments_domain::ids::{AccountId, WebhookId};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{PreviousSecret, StoredWebhook, Webhook, WebhookSecret, WebhookStatus, WebhookUrl};
use payments_domain::webhook_delivery::EndpointHealth;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = webhooks, treat_none_as_null = true, treat_none_as_default_value = false)]
struct WebhookRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    url: String,
    events: String,
    description: Option<String>,
    secret_key: String,
    previous_secret_key: Option<String>,
    previous_secret_expires_at_ms: Option<i64>,
    status: String,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

impl WebhookRow {
    fn from_domain(webhook: &Webhook) -> Result<Self, StoreError> {
        let events: Vec<&str> = webhook.events().iter().map(|event_type| event_type.as_str()).collect();
        Ok(Self {
            id: webhook.id().to_string(),
            account_id: webhook.account_id().to_string(),
            livemode: webhook.livemode(),
            url: webhook.url().as_str().to_owned(),
            events: to_json(&events)?,
            description: webhook.description().map(|d| d.as_str().to_owned()),
            secret_key: webhook.secret_key().reveal().to_owned(),
            previous_secret_key: webhook.previous_secret().map(|previous| previous.secret_key.reveal().to_owned()),
            previous_secret_expires_at_ms: webhook.previous_secret().map(|previous| previous.expires_at.unix_millis()),
            status: webhook.status().as_str().to_owned(),
            version: webhook.version(),
            created_at: webhook.created_at().unix_seconds(),
            updated_at: webhook.updated_at().unix_seconds(),
        })
    }

    fn into_domain(self) -> Result<Webhook, StoreError> {
        let names: Vec<String> = from_json(&self.events)?;
        Ok(Webhook::restore(StoredWebhook {
            id: parse_id("webhook id", &self.id, WebhookId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            url: WebhookUrl::new(self.url).map_err(invalid("webhook url"))?,
            events: EventType::parse_list(&names).map_err(invalid("webhook events"))?,
            description: self.description.map(Description::new).transpose().map_err(invalid("description"))?,
            secret_key: WebhookSecret::from_stored(self.secret_key),
            previous_secret: self.previous_secret_key.zip(self.previous_secret_expires_at_ms).map(
                |(key, expires_at)| PreviousSecret {
                    secret_key: WebhookSecret::from_stored(key),
                    expires_at: Timestamp::from_unix_millis(expires_at),
                },
            ),
            status: WebhookStatus::parse(&self.status).ok_or_else(|| corrupt("webhook status", &self.status))?,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            version: self.version,
        }))
    }
}

/// The enabled webhooks of `scope`, read on `connection` (deliveries of appended events are made
/// with them, [`super::webhook_delivery::make_deliveries`]).
pub(super) fn enabled_in(connection: &mut AnyConnection, scope: &Scope) -> Result<Vec<Webhook>, StoreError> {
    webhooks::table
        .filter(listed!(webhooks, scope))
        .filter(webhooks::status.eq(WebhookStatus::Enabled.as_str()))
        .select(WebhookRow::as_select())
        .load(connection)
        .map_err(store_error)?
        .into_iter()
        .map(WebhookRow::into_domain)
        .collect()
}

impl DbSession<'_> {
    /// The webhooks `query` selects, with their endpoints' health.
    fn with_health(
        &mut self,
        query: webhooks::BoxedQuery<'_, super::connection::MultiBackend>,
    ) -> Result<Vec<(Webhook, EndpointHealth)>, StoreError> {
        let rows: Vec<(WebhookRow, i64, i64)> = query
            .select((WebhookRow::as_select(), webhooks::unanswered_attempts, webhooks::retry_at_ms))
            .load(self.reading()?)
            .map_err(store_error)?;
        rows.into_iter()
            .map(|(row, unanswered, retry_at_ms)| {
                let health = EndpointHealth { unanswered, retry_at: Timestamp::from_unix_millis(retry_at_ms) };
                Ok((row.into_domain()?, health))
            })
            .collect()
    }

    fn webhook_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = webhooks::table
            .filter(in_scope!(webhooks, scope))
            .filter(webhooks::id.eq(id))
            .select(webhooks::seq)
            .get_result(self.reading()?)
            .optional();
        cursor_seq(found)
    }
}

impl WebhookRepository for DbSession<'_> {
    fn insert(&mut self, webhook: &Webhook) -> Result<(), StoreError> {
        self.wrote_webhooks();
        self.write(diesel::insert_into(webhooks::table).values(WebhookRow::from_domain(webhook)?), Expect::AnyRows)
    }

    fn find(&mut self, scope: &Scope, id: &WebhookId) -> Result<Option<Webhook>, StoreError> {
        webhooks::table
            .filter(in_scope!(webhooks, scope))
            .filter(webhooks::id.eq(id.as_str()))
            .select(WebhookRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(WebhookRow::into_domain)
            .transpose()
    }

    fn update(&mut self, webhook: &Webhook, expected_version: i64) -> Result<(), StoreError> {
        self.wrote_webhooks();
        let update = diesel::update(
            webhooks::table
                .filter(in_scope!(webhooks, webhook.account_id(), webhook.livemode()))
                .filter(webhooks::id.eq(webhook.id().to_string()))
                .filter(webhooks::version.eq(expected_version)),
        )
        .set(WebhookRow::from_domain(webhook)?);
        self.write(update, Expect::OneRow)
    }

    fn delete(&mut self, webhook: &Webhook) -> Result<(), StoreError> {
        self.wrote_webhooks();
        let delete = diesel::delete(
            webhooks::table
                .filter(in_scope!(webhooks, webhook.account_id(), webhook.livemode()))
                .filter(webhooks::id.eq(webhook.id().to_string())),
        );
        self.write(delete, Expect::AnyRows)
    }

    fn list(&mut self, scope: &Scope, filter: &WebhookFilter, page: &PageRequest) -> Result<Page<Webhook>, StoreError> {
        let mut query = webhooks::table
            .filter(listed!(webhooks, scope))
            .select(WebhookRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(url) = &filter.url {
            query = query.filter(webhooks::url.eq(url));
        }
        if let Some(description) = &filter.description {
            query = query.filter(webhooks::description.eq(description));
        }
        if let Some(status) = filter.status {
            query = query.filter(webhooks::status.eq(status.as_str()));
        }
        query = match page.cursor() {
            None => query.order(webhooks::seq.desc()),
            Some(Cursor::After(id)) => {
                query.filter(webhooks::seq.lt(self.webhook_seq(scope, id)?)).order(webhooks::seq.desc())
            }
            Some(Cursor::Before(id)) => {
                query.filter(webhooks::seq.gt(self.webhook_seq(scope, id)?)).order(webhooks::seq.asc())
            }
        };
        let rows = query.load(self.reading()?).map_err(store_error)?;
        let webhooks = rows.into_iter().map(WebhookRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(webhooks, page))
    }

    fn enabled(&mut self, scope: &Scope) -> Result<Vec<(Webhook, EndpointHealth)>, StoreError> {
        let enabled = webhooks::table
            .filter(listed!(webhooks, scope))
            .filter(webhooks::status.eq(WebhookStatus::Enabled.as_str()))
            .into_boxed();
        self.with_health(enabled)
    }

    fn endpoints(&mut self, ids: &[WebhookId]) -> Result<Vec<(Webhook, EndpointHealth)>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        // The delivery worker's, across accounts: it checks each webhook against its delivery's.
        self.with_health(webhooks::table.filter(webhooks::id.eq_any(ids.iter().map(WebhookId::as_str))).into_boxed())
    }

    fn set_health(&mut self, webhook: &Webhook, health: &EndpointHealth) -> Result<(), StoreError> {
        let of_webhook = webhooks::table
            .filter(in_scope!(webhooks, webhook.account_id(), webhook.livemode()))
            .filter(webhooks::id.eq(webhook.id().to_string()));
        let update = diesel::update(of_webhook).set((
            webhooks::unanswered_attempts.eq(health.unanswered),
            webhooks::retry_at_ms.eq(health.retry_at.unix_millis()),
        ));
        self.write(update, Expect::AnyRows)
    }
}
