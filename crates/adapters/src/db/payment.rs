//! Payments in the database.

use super::error::{corrupt, store_error};
use super::json::{description, from_json, invalid, parse_id, to_json};
use super::schema::payments;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{PaymentFilter, PaymentRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, CustomerId, PaymentId, PaymentIntentId};
use payments_domain::money::Currency;
use payments_domain::payment::{Payment, PaymentStatus, StoredPayment};
use payments_domain::time::Timestamp;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = payments, treat_none_as_null = true, treat_none_as_default_value = false)]
struct PaymentRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    amount: i64,
    amount_refunded: i64,
    billing: Option<String>,
    currency: String,
    description: Option<String>,
    fee: i64,
    metadata: Option<String>,
    net_amount: i64,
    payment_intent_id: String,
    customer_id: Option<String>,
    origin: String,
    status: String,
    payment_method: String,
    refunded: bool,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
    /// Written once, with the payment.
    #[diesel(skip_update)]
    page_session: Option<String>,
    /// The page of the page session, for a page's payments.
    #[diesel(skip_update)]
    page_id: Option<String>,
}

impl PaymentRow {
    fn from_domain(payment: &Payment) -> Result<Self, StoreError> {
        Ok(Self {
            id: payment.id().to_string(),
            account_id: payment.account_id().to_string(),
            livemode: payment.livemode(),
            amount: payment.amount(),
            amount_refunded: payment.amount_refunded(),
            billing: payment.billing().map(to_json).transpose()?,
            currency: payment.currency().code().to_owned(),
            description: payment.description().map(|text| text.as_str().to_owned()),
            fee: payment.fee(),
            metadata: payment.metadata().map(to_json).transpose()?,
            net_amount: payment.net_amount(),
            payment_intent_id: payment.payment_intent_id().to_string(),
            customer_id: payment.customer_id().map(ToString::to_string),
            origin: payment.origin().to_owned(),
            status: payment.status().as_str().to_owned(),
            payment_method: to_json(payment.payment_method())?,
            refunded: payment.refunded(),
            version: payment.version(),
            created_at: payment.created_at().unix_seconds(),
            updated_at: payment.updated_at().unix_seconds(),
            page_session: payment.page_session().map(to_json).transpose()?,
            page_id: payment.page_session().map(|session| session.page_id.clone()),
        })
    }

    fn into_domain(self) -> Result<Payment, StoreError> {
        Ok(Payment::restore(StoredPayment {
            id: parse_id("payment id", &self.id, PaymentId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            amount: self.amount,
            amount_refunded: self.amount_refunded,
            billing: self.billing.as_deref().map(from_json).transpose()?,
            currency: Currency::parse(&self.currency).map_err(invalid("currency"))?,
            description: description(self.description)?,
            fee: self.fee,
            metadata: self.metadata.as_deref().map(from_json).transpose()?,
            net_amount: self.net_amount,
            payment_intent_id: parse_id("payment intent id", &self.payment_intent_id, PaymentIntentId::parse)?,
            customer_id: self.customer_id.map(|id| parse_id("customer id", &id, CustomerId::parse)).transpose()?,
            origin: self.origin,
            page_session: self.page_session.as_deref().map(from_json).transpose()?,
            status: PaymentStatus::parse(&self.status).ok_or_else(|| corrupt("payment status", &self.status))?,
            payment_method: from_json(&self.payment_method)?,
            refunded: self.refunded,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            version: self.version,
        }))
    }
}

impl DbSession<'_> {
    fn payment_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = payments::table
            .filter(in_scope!(payments, scope))
            .filter(payments::id.eq(id))
            .select(payments::seq)
            .get_result(self.reading()?)
            .optional();
        super::cursor_seq(found)
    }
}

impl PaymentRepository for DbSession<'_> {
    fn insert(&mut self, payment: &Payment) -> Result<(), StoreError> {
        self.write(diesel::insert_into(payments::table).values(PaymentRow::from_domain(payment)?), Expect::AnyRows)
    }

    fn find(&mut self, scope: &Scope, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        payments::table
            .filter(in_scope!(payments, scope))
            .filter(payments::id.eq(id.as_str()))
            .select(PaymentRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PaymentRow::into_domain)
            .transpose()
    }

    fn find_many(&mut self, scope: &Scope, ids: &[PaymentId]) -> Result<Vec<Payment>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = ids.iter().map(PaymentId::as_str).collect();
        payments::table
            .filter(in_scope!(payments, scope))
            .filter(payments::id.eq_any(ids))
            .select(PaymentRow::as_select())
            .load::<PaymentRow>(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(PaymentRow::into_domain)
            .collect()
    }

    fn update(&mut self, payment: &Payment, expected_version: i64) -> Result<(), StoreError> {
        let update = diesel::update(
            payments::table
                .filter(in_scope!(payments, payment.account_id(), payment.livemode()))
                .filter(payments::id.eq(payment.id().to_string()))
                .filter(payments::version.eq(expected_version)),
        )
        .set(PaymentRow::from_domain(payment)?);
        self.write(update, Expect::OneRow)
    }

    fn of_intent(&mut self, scope: &Scope, intent_id: &PaymentIntentId) -> Result<Vec<Payment>, StoreError> {
        payments::table
            .filter(in_scope!(payments, scope))
            .filter(payments::payment_intent_id.eq(intent_id.as_str()))
            .order(payments::seq.asc())
            .select(PaymentRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(PaymentRow::into_domain)
            .collect()
    }

    fn list(&mut self, scope: &Scope, filter: &PaymentFilter, page: &PageRequest) -> Result<Page<Payment>, StoreError> {
        let mut query = payments::table
            .filter(in_scope!(payments, scope))
            .select(PaymentRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(status) = filter.status {
            query = query.filter(payments::status.eq(status.as_str()));
        }
        if let Some(page_id) = &filter.page_id {
            query = query.filter(payments::page_id.eq(page_id.as_str()));
        }
        let query = match page.cursor() {
            None => query.order(payments::seq.desc()),
            Some(Cursor::After(id)) => {
                query.filter(payments::seq.lt(self.payment_seq(scope, id)?)).order(payments::seq.desc())
            }
            Some(Cursor::Before(id)) => {
                query.filter(payments::seq.gt(self.payment_seq(scope, id)?)).order(payments::seq.asc())
            }
        };
        let rows = query.load::<PaymentRow>(self.reading()?).map_err(store_error)?;
        let found = rows.into_iter().map(PaymentRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(found, page))
    }
}
