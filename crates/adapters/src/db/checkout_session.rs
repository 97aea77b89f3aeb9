//! Checkout sessions in the database; their line items are kept with them as JSON.

use super::cursor_seq;
use super::error::{corrupt, store_error};
use super::json::{description, from_json, invalid, parse_id, to_json};
use super::schema::checkout_sessions;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{CheckoutSessionFilter, CheckoutSessionRepository, StoreError};
use payments_application::Scope;
use payments_domain::checkout_session::{
    BillingDetailsCollection, CheckoutSession, CheckoutSessionStatus, LineItem, NewCheckoutSession,
    StoredCheckoutSession, SubmitType,
};
use payments_domain::ids::{AccountId, CheckoutSessionId, CheckoutSessionLineItemId, ClientSecret, PaymentIntentId};
use payments_domain::money::{Amount, Currency};
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::time::Timestamp;
use serde::{Deserialize, Serialize};

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = checkout_sessions, treat_none_as_null = true, treat_none_as_default_value = false)]
struct CheckoutSessionRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    status: String,
    client_secret: String,
    url: String,
    payment_intent_id: String,
    line_items: String,
    amount: i64,
    currency: String,
    success_url: String,
    cancel_url: String,
    payment_methods: String,
    card_options: String,
    customer_reference_id: Option<String>,
    billing_details_collection: String,
    description: Option<String>,
    submit_type: String,
    statement_descriptor: Option<String>,
    metadata: Option<String>,
    expires_at: i64,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

/// A line item as stored in the `line_items` JSON.
#[derive(Serialize, Deserialize)]
struct LineItemJson {
    id: String,
    name: String,
    amount: i64,
    quantity: i64,
    description: Option<String>,
    image: Option<String>,
}

impl CheckoutSessionRow {
    fn from_domain(session: &CheckoutSession) -> Result<Self, StoreError> {
        let details = session.details();
        let line_items: Vec<LineItemJson> = details
            .line_items
            .iter()
            .map(|item| LineItemJson {
                id: item.id.to_string(),
                name: item.name.clone(),
                amount: item.amount,
                quantity: item.quantity,
                description: item.description.as_ref().map(|text| text.as_str().to_owned()),
                image: item.image.clone(),
            })
            .collect();
        Ok(Self {
            id: session.id().to_string(),
            account_id: session.account_id().to_string(),
            livemode: session.livemode(),
            status: session.status().as_str().to_owned(),
            client_secret: session.client_secret().reveal().to_owned(),
            url: session.url().to_owned(),
            payment_intent_id: session.payment_intent_id().to_string(),
            line_items: to_json(&line_items)?,
            amount: details.amount.centavos(),
            currency: details.currency.code().to_owned(),
            success_url: details.success_url.as_str().to_owned(),
            cancel_url: details.cancel_url.as_str().to_owned(),
            payment_methods: to_json(&details.payment_methods)?,
            card_options: to_json(&details.card_options)?,
            customer_reference_id: details.customer_reference_id.clone(),
            billing_details_collection: details.billing_details_collection.as_str().to_owned(),
            description: details.description.as_ref().map(|text| text.as_str().to_owned()),
            submit_type: details.submit_type.as_str().to_owned(),
            statement_descriptor: details.statement_descriptor.as_ref().map(|text| text.as_str().to_owned()),
            metadata: details.metadata.as_ref().map(to_json).transpose()?,
            expires_at: details.expires_at.unix_seconds(),
            version: session.version(),
            created_at: session.created_at().unix_seconds(),
            updated_at: session.updated_at().unix_seconds(),
        })
    }

    fn into_domain(self) -> Result<CheckoutSession, StoreError> {
        let stored_items: Vec<LineItemJson> = from_json(&self.line_items)?;
        let line_items = stored_items
            .into_iter()
            .map(|item| {
                Ok(LineItem {
                    id: parse_id("line item id", &item.id, CheckoutSessionLineItemId::parse)?,
                    name: item.name,
                    amount: item.amount,
                    quantity: item.quantity,
                    description: description(item.description)?,
                    image: item.image,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let details = NewCheckoutSession {
            line_items,
            amount: Amount::new(self.amount).map_err(invalid("checkout session amount"))?,
            currency: Currency::parse(&self.currency).map_err(invalid("currency"))?,
            success_url: RedirectUrl::trusted(self.success_url),
            cancel_url: RedirectUrl::trusted(self.cancel_url),
            payment_methods: from_json(&self.payment_methods)?,
            card_options: from_json(&self.card_options)?,
            customer_reference_id: self.customer_reference_id,
            billing_details_collection: BillingDetailsCollection::parse(&self.billing_details_collection)
                .map_err(invalid("billing details collection"))?,
            description: description(self.description)?,
            submit_type: SubmitType::parse(&self.submit_type).map_err(invalid("submit type"))?,
            statement_descriptor: self
                .statement_descriptor
                .map(StatementDescriptor::new)
                .transpose()
                .map_err(invalid("statement descriptor"))?,
            expires_at: Timestamp::from_unix_seconds(self.expires_at),
            metadata: self.metadata.as_deref().map(from_json).transpose()?,
        };
        Ok(CheckoutSession::restore(StoredCheckoutSession {
            id: parse_id("checkout session id", &self.id, CheckoutSessionId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            status: CheckoutSessionStatus::parse(&self.status)
                .ok_or_else(|| corrupt("checkout session status", &self.status))?,
            client_secret: ClientSecret::from_stored(self.client_secret),
            url: self.url,
            payment_intent_id: parse_id("payment intent id", &self.payment_intent_id, PaymentIntentId::parse)?,
            details,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            version: self.version,
        }))
    }
}

/// The session a query found, if any.
fn found_session(found: QueryResult<Option<CheckoutSessionRow>>) -> Result<Option<CheckoutSession>, StoreError> {
    found.map_err(store_error)?.map(CheckoutSessionRow::into_domain).transpose()
}

impl DbSession<'_> {
    fn checkout_session_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = checkout_sessions::table
            .filter(in_scope!(checkout_sessions, scope))
            .filter(checkout_sessions::id.eq(id))
            .select(checkout_sessions::seq)
            .get_result(self.reading()?)
            .optional();
        cursor_seq(found)
    }
}

impl CheckoutSessionRepository for DbSession<'_> {
    fn insert(&mut self, session: &CheckoutSession) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(checkout_sessions::table).values(CheckoutSessionRow::from_domain(session)?),
            Expect::AnyRows,
        )
    }

    fn find(&mut self, scope: &Scope, id: &CheckoutSessionId) -> Result<Option<CheckoutSession>, StoreError> {
        let query = checkout_sessions::table
            .filter(in_scope!(checkout_sessions, scope))
            .filter(checkout_sessions::id.eq(id.to_string()))
            .select(CheckoutSessionRow::as_select());
        found_session(query.get_result(self.reading()?).optional())
    }

    fn find_for_page(&mut self, id: &CheckoutSessionId) -> Result<Option<CheckoutSession>, StoreError> {
        let query = checkout_sessions::table
            .filter(checkout_sessions::id.eq(id.to_string()))
            .select(CheckoutSessionRow::as_select());
        found_session(query.get_result(self.reading()?).optional())
    }

    fn find_by_payment_intent(
        &mut self,
        scope: &Scope,
        payment_intent_id: &PaymentIntentId,
    ) -> Result<Option<CheckoutSession>, StoreError> {
        let query = checkout_sessions::table
            .filter(in_scope!(checkout_sessions, scope))
            .filter(checkout_sessions::payment_intent_id.eq(payment_intent_id.to_string()))
            .select(CheckoutSessionRow::as_select());
        found_session(query.get_result(self.reading()?).optional())
    }

    fn update(&mut self, session: &CheckoutSession, expected_version: i64) -> Result<(), StoreError> {
        let update = diesel::update(
            checkout_sessions::table
                .filter(in_scope!(checkout_sessions, session.account_id(), session.livemode()))
                .filter(checkout_sessions::id.eq(session.id().to_string()))
                .filter(checkout_sessions::version.eq(expected_version)),
        )
        .set(CheckoutSessionRow::from_domain(session)?);
        self.write(update, Expect::OneRow)
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &CheckoutSessionFilter,
        page: &PageRequest,
    ) -> Result<Page<CheckoutSession>, StoreError> {
        let mut query = checkout_sessions::table
            .filter(listed!(checkout_sessions, scope))
            .select(CheckoutSessionRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(status) = filter.status {
            query = query.filter(checkout_sessions::status.eq(status.as_str()));
        }
        if let Some(reference) = &filter.customer_reference_id {
            query = query.filter(checkout_sessions::customer_reference_id.eq(reference));
        }
        let query = match page.cursor() {
            None => query.order(checkout_sessions::seq.desc()),
            Some(Cursor::After(id)) => query
                .filter(checkout_sessions::seq.lt(self.checkout_session_seq(scope, id)?))
                .order(checkout_sessions::seq.desc()),
            Some(Cursor::Before(id)) => query
                .filter(checkout_sessions::seq.gt(self.checkout_session_seq(scope, id)?))
                .order(checkout_sessions::seq.asc()),
        };
        let rows = query.load(self.reading()?).map_err(store_error)?;
        let sessions = rows.into_iter().map(CheckoutSessionRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(sessions, page))
    }

    fn expired(
        &mut self,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<CheckoutSession>, StoreError> {
        let mut query = checkout_sessions::table.into_boxed();
        if let Some(scope) = within {
            query = query.filter(in_scope!(checkout_sessions, scope));
        }
        query
            .filter(checkout_sessions::status.eq(CheckoutSessionStatus::Active.as_str()))
            .filter(checkout_sessions::expires_at.le(now.unix_seconds()))
            .order(checkout_sessions::expires_at.asc())
            .limit(i64::from(limit))
            .select(CheckoutSessionRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(CheckoutSessionRow::into_domain)
            .collect()
    }
}
