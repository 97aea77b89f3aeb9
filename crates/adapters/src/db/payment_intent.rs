//! Payment intents in the database.

use super::cursor_seq;
use super::error::store_error;
use super::json::{description, from_json, invalid, parse_id, to_json};
use super::schema::{payment_intent_metadata, payment_intents};
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{IntentOutcome, PaymentIntentFilter, PaymentIntentRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, ClientSecret, CustomerId, PaymentId, PaymentIntentId};
use payments_domain::money::{Amount, Currency};
use payments_domain::payment_intent::{IntentOwner, PaymentIntent, PaymentIntentStatus, StoredPaymentIntent};
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::time::Timestamp;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = payment_intents, treat_none_as_null = true, treat_none_as_default_value = false)]
struct PaymentIntentRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    amount: i64,
    amount_received: i64,
    amount_capturable: i64,
    currency: String,
    payment_methods: String,
    statement_descriptor: Option<String>,
    status: String,
    client_secret: String,
    description: Option<String>,
    last_payment_error: Option<String>,
    latest_payment_id: Option<String>,
    metadata: Option<String>,
    return_url: Option<String>,
    payment_method_id: Option<String>,
    card_options: String,
    capture_before_at: Option<i64>,
    customer_id: Option<String>,
    pending_attempt: Option<String>,
    redirect_token: Option<String>,
    action_due_at: Option<i64>,
    owner: Option<String>,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
    /// Written once, with the intent.
    #[diesel(skip_update)]
    page_session: Option<String>,
}

impl PaymentIntentRow {
    fn from_domain(intent: &PaymentIntent) -> Result<Self, StoreError> {
        Ok(Self {
            id: intent.id().to_string(),
            account_id: intent.account_id().to_string(),
            livemode: intent.livemode(),
            amount: intent.amount().centavos(),
            amount_received: intent.amount_received(),
            amount_capturable: intent.amount_capturable(),
            currency: intent.currency().code().to_owned(),
            payment_methods: to_json(&intent.payment_methods())?,
            statement_descriptor: intent.statement_descriptor().map(|d| d.as_str().to_owned()),
            status: intent.status().as_str().to_owned(),
            client_secret: intent.client_secret().reveal().to_owned(),
            description: intent.description().map(|text| text.as_str().to_owned()),
            last_payment_error: intent.last_payment_error().map(to_json).transpose()?,
            latest_payment_id: intent.latest_payment_id().map(ToString::to_string),
            metadata: intent.metadata().map(to_json).transpose()?,
            return_url: intent.return_url().map(str::to_owned),
            payment_method_id: intent.payment_method_id().map(str::to_owned),
            card_options: to_json(intent.card_options())?,
            capture_before_at: intent.capture_before_at().map(Timestamp::unix_seconds),
            customer_id: intent.customer_id().map(ToString::to_string),
            pending_attempt: intent.pending().map(to_json).transpose()?,
            redirect_token: intent.redirect_token().map(str::to_owned),
            action_due_at: intent.action_due_at().map(Timestamp::unix_seconds),
            owner: intent.owner().map(|owner| owner.as_str().to_owned()),
            version: intent.version(),
            created_at: intent.created_at().unix_seconds(),
            updated_at: intent.updated_at().unix_seconds(),
            page_session: intent.page_session().map(to_json).transpose()?,
        })
    }

    fn into_domain(self) -> Result<PaymentIntent, StoreError> {
        Ok(PaymentIntent::restore(StoredPaymentIntent {
            id: parse_id("payment intent id", &self.id, PaymentIntentId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            amount: Amount::new(self.amount).map_err(invalid("amount"))?,
            amount_received: self.amount_received,
            amount_capturable: self.amount_capturable,
            currency: Currency::parse(&self.currency).map_err(invalid("currency"))?,
            payment_methods: from_json(&self.payment_methods)?,
            statement_descriptor: self
                .statement_descriptor
                .map(StatementDescriptor::new)
                .transpose()
                .map_err(invalid("statement descriptor"))?,
            status: PaymentIntentStatus::parse(&self.status)
                .ok_or_else(|| super::error::corrupt("payment intent status", &self.status))?,
            client_secret: ClientSecret::from_stored(self.client_secret),
            description: description(self.description)?,
            last_payment_error: self.last_payment_error.as_deref().map(from_json).transpose()?,
            latest_payment_id: self
                .latest_payment_id
                .map(|id| parse_id("payment id", &id, PaymentId::parse))
                .transpose()?,
            metadata: self.metadata.as_deref().map(from_json).transpose()?,
            return_url: self.return_url.map(RedirectUrl::trusted),
            payment_method_id: self.payment_method_id,
            card_options: from_json(&self.card_options)?,
            capture_before_at: self.capture_before_at.map(Timestamp::from_unix_seconds),
            customer_id: self.customer_id.map(|id| parse_id("customer id", &id, CustomerId::parse)).transpose()?,
            pending: self.pending_attempt.as_deref().map(from_json).transpose()?,
            redirect_token: self.redirect_token,
            action_due_at: self.action_due_at.map(Timestamp::from_unix_seconds),
            owner: self
                .owner
                .map(|owner| {
                    IntentOwner::parse(&owner).ok_or_else(|| super::error::corrupt("payment intent owner", &owner))
                })
                .transpose()?,
            page_session: self.page_session.as_deref().map(from_json).transpose()?,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            version: self.version,
        }))
    }
}

/// One metadata pair of an intent, kept beside it for the search by value.
#[derive(Insertable, Clone)]
#[diesel(table_name = payment_intent_metadata, treat_none_as_default_value = false)]
struct MetadataPairRow {
    payment_intent_id: String,
    account_id: String,
    livemode: bool,
    key: String,
    value: String,
}

impl DbSession<'_> {
    /// Writes the metadata pairs of `intent`: inserted with a new intent, upserted with a changed one
    /// (one statement, so a change's writes still go out together on PostgreSQL). An intent without
    /// metadata writes nothing. A pair of a key the intent no longer has stays behind; the search
    /// checks the intent's own metadata too (see `list`), so it is never found by it.
    fn write_intent_metadata_pairs(&mut self, intent: &PaymentIntent, replace: bool) -> Result<(), StoreError> {
        let Some(metadata) = intent.metadata() else { return Ok(()) };
        let rows: Vec<MetadataPairRow> = metadata
            .pairs()
            .iter()
            .map(|(key, value)| MetadataPairRow {
                payment_intent_id: intent.id().to_string(),
                account_id: intent.account_id().to_string(),
                livemode: intent.livemode(),
                key: key.clone(),
                value: value.clone(),
            })
            .collect();
        if !replace {
            return self.insert(payment_intent_metadata::table, rows);
        }
        use diesel::upsert::excluded;
        use payment_intent_metadata as pairs;
        let each: Vec<_> = rows
            .iter()
            .map(|row| {
                diesel::insert_into(payment_intent_metadata::table)
                    .values(row.clone())
                    .on_conflict((pairs::payment_intent_id, pairs::key))
                    .do_update()
                    .set(pairs::value.eq(excluded(pairs::value)))
            })
            .collect();
        // PostgreSQL's key names the account too (migration `2026-12-04-000029_keys_of_the_account`).
        let all = diesel::insert_into(payment_intent_metadata::table)
            .values(rows)
            .on_conflict((pairs::payment_intent_id, pairs::key, pairs::account_id))
            .do_update()
            .set(pairs::value.eq(excluded(pairs::value)));
        self.write_each_way(all, each)
    }

    fn payment_intent_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = payment_intents::table
            .filter(in_scope!(payment_intents, scope))
            .filter(payment_intents::id.eq(id))
            .select(payment_intents::seq)
            .get_result(self.reading()?)
            .optional();
        cursor_seq(found)
    }
}

impl PaymentIntentRepository for DbSession<'_> {
    fn insert(&mut self, intent: &PaymentIntent) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(payment_intents::table).values(PaymentIntentRow::from_domain(intent)?),
            Expect::AnyRows,
        )?;
        self.write_intent_metadata_pairs(intent, false)
    }

    fn find(&mut self, scope: &Scope, id: &PaymentIntentId) -> Result<Option<PaymentIntent>, StoreError> {
        payment_intents::table
            .filter(in_scope!(payment_intents, scope))
            .filter(payment_intents::id.eq(id.as_str()))
            .select(PaymentIntentRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PaymentIntentRow::into_domain)
            .transpose()
    }

    fn find_many(&mut self, scope: &Scope, ids: &[PaymentIntentId]) -> Result<Vec<PaymentIntent>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = ids.iter().map(PaymentIntentId::as_str).collect();
        payment_intents::table
            .filter(in_scope!(payment_intents, scope))
            .filter(payment_intents::id.eq_any(ids))
            .select(PaymentIntentRow::as_select())
            .load::<PaymentIntentRow>(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(PaymentIntentRow::into_domain)
            .collect()
    }

    fn update(&mut self, intent: &PaymentIntent, expected_version: i64) -> Result<(), StoreError> {
        let statement = diesel::update(
            payment_intents::table
                .filter(in_scope!(payment_intents, intent.account_id(), intent.livemode()))
                .filter(payment_intents::id.eq(intent.id().to_string()))
                .filter(payment_intents::version.eq(expected_version)),
        )
        .set(PaymentIntentRow::from_domain(intent)?);
        self.write(statement, Expect::OneRow)?;
        self.write_intent_metadata_pairs(intent, true)
    }

    fn find_for_page(&mut self, id: &PaymentIntentId) -> Result<Option<PaymentIntent>, StoreError> {
        payment_intents::table
            .filter(payment_intents::id.eq(id.as_str()))
            .select(PaymentIntentRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PaymentIntentRow::into_domain)
            .transpose()
    }

    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<PaymentIntent>, StoreError> {
        payment_intents::table
            .filter(payment_intents::redirect_token.eq(token))
            .select(PaymentIntentRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PaymentIntentRow::into_domain)
            .transpose()
    }

    fn due(&mut self, within: Option<&Scope>, now: Timestamp, limit: u32) -> Result<Vec<PaymentIntent>, StoreError> {
        let mut query = payment_intents::table.into_boxed();
        if let Some(scope) = within {
            query = query.filter(in_scope!(payment_intents, scope));
        }
        query
            .filter(payment_intents::action_due_at.le(now.unix_seconds()))
            .filter(payment_intents::status.eq_any(with_due_actions()))
            .order(payment_intents::action_due_at.asc())
            .limit(i64::from(limit))
            .select(PaymentIntentRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(PaymentIntentRow::into_domain)
            .collect()
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &PaymentIntentFilter,
        page: &PageRequest,
    ) -> Result<Page<PaymentIntent>, StoreError> {
        let mut query = payment_intents::table
            .filter(listed!(payment_intents, scope))
            .select(PaymentIntentRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(status) = filter.status {
            query = query.filter(payment_intents::status.eq(status.as_str()));
        }
        if let Some(customers) = &filter.customers {
            query = query.filter(payment_intents::customer_id.eq_any(customers.iter().map(ToString::to_string)));
        }
        if let Some(from) = filter.amount_from {
            query = query.filter(payment_intents::amount.ge(from));
        }
        if let Some(to) = filter.amount_to {
            query = query.filter(payment_intents::amount.le(to));
        }
        if let Some(from) = filter.created_from {
            query = query.filter(payment_intents::created_at.ge(from.unix_seconds()));
        }
        if let Some(to) = filter.created_to {
            query = query.filter(payment_intents::created_at.le(to.unix_seconds()));
        }
        if let Some(value) = &filter.metadata_value {
            let having = payment_intent_metadata::table
                .filter(in_scope!(payment_intent_metadata, scope))
                .filter(payment_intent_metadata::value.eq(value.clone()))
                .select(payment_intent_metadata::payment_intent_id);
            // A pair left from a key the intent no longer has is passed over: its own metadata must
            // hold the value (as JSON, `…:"value"…`).
            let held = format!("%:{}%", like_escaped(&serde_json::Value::String(value.clone()).to_string()));
            query = query
                .filter(payment_intents::id.eq_any(having))
                .filter(payment_intents::metadata.like(held).escape('\\'));
        }
        let query = match page.cursor() {
            None => query.order(payment_intents::seq.desc()),
            Some(Cursor::After(id)) => query
                .filter(payment_intents::seq.lt(self.payment_intent_seq(scope, id)?))
                .order(payment_intents::seq.desc()),
            Some(Cursor::Before(id)) => query
                .filter(payment_intents::seq.gt(self.payment_intent_seq(scope, id)?))
                .order(payment_intents::seq.asc()),
        };
        let rows = query.load::<PaymentIntentRow>(self.reading()?).map_err(store_error)?;
        let intents = rows.into_iter().map(PaymentIntentRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(intents, page))
    }

    fn latest_outcomes(&mut self, scope: &Scope, limit: u32) -> Result<Vec<IntentOutcome>, StoreError> {
        let rows: Vec<(String, i64, i64)> = payment_intents::table
            .filter(listed!(payment_intents, scope))
            .order(payment_intents::seq.desc())
            .limit(i64::from(limit))
            .select((payment_intents::status, payment_intents::amount_received, payment_intents::created_at))
            .load(self.reading()?)
            .map_err(store_error)?;
        rows.into_iter()
            .map(|(status, amount_received, created_at)| {
                let status = PaymentIntentStatus::parse(&status)
                    .ok_or_else(|| super::error::corrupt("payment intent status", &status))?;
                Ok(IntentOutcome { status, amount_received, created_at: Timestamp::from_unix_seconds(created_at) })
            })
            .collect()
    }
}

/// The statuses with a background action, as stored.
fn with_due_actions() -> Vec<&'static str> {
    PaymentIntentStatus::with_due_actions().map(PaymentIntentStatus::as_str).collect()
}

/// `text` with the wildcards of `LIKE` (and its escape character) escaped by `\`.
fn like_escaped(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '%' | '_') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}
