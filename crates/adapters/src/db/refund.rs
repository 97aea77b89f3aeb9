//! Refunds in the database.

use super::error::{corrupt, store_error};
use super::json::{description, from_json, invalid, parse_id, to_json};
use super::schema::refunds;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{RefundRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, PaymentId, RefundId};
use payments_domain::money::Currency;
use payments_domain::refund::{Refund, RefundReason, RefundStatus, StoredRefund};
use payments_domain::time::Timestamp;

#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = refunds, treat_none_as_null = true, treat_none_as_default_value = false)]
struct RefundRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    amount: i64,
    currency: String,
    status: String,
    description: Option<String>,
    reason: String,
    remarks: Option<String>,
    metadata: Option<String>,
    payment_id: String,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
}

impl RefundRow {
    fn from_domain(refund: &Refund) -> Result<Self, StoreError> {
        Ok(Self {
            id: refund.id().to_string(),
            account_id: refund.account_id().to_string(),
            livemode: refund.livemode(),
            amount: refund.amount(),
            currency: refund.currency().code().to_owned(),
            status: refund.status().as_str().to_owned(),
            description: refund.description().map(|text| text.as_str().to_owned()),
            reason: refund.reason().as_str().to_owned(),
            remarks: refund.remarks().map(|text| text.as_str().to_owned()),
            metadata: refund.metadata().map(to_json).transpose()?,
            payment_id: refund.payment_id().to_string(),
            version: refund.version(),
            created_at: refund.created_at().unix_seconds(),
            updated_at: refund.updated_at().unix_seconds(),
        })
    }

    fn into_domain(self) -> Result<Refund, StoreError> {
        Ok(Refund::restore(StoredRefund {
            id: parse_id("refund id", &self.id, RefundId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            amount: self.amount,
            currency: Currency::parse(&self.currency).map_err(invalid("currency"))?,
            status: RefundStatus::parse(&self.status).ok_or_else(|| corrupt("refund status", &self.status))?,
            description: description(self.description)?,
            reason: RefundReason::parse(&self.reason).map_err(invalid("refund reason"))?,
            remarks: description(self.remarks)?,
            metadata: self.metadata.as_deref().map(from_json).transpose()?,
            payment_id: parse_id("payment id", &self.payment_id, PaymentId::parse)?,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            version: self.version,
        }))
    }
}

impl DbSession<'_> {
    fn refund_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = refunds::table
            .filter(in_scope!(refunds, scope))
            .filter(refunds::id.eq(id))
            .select(refunds::seq)
            .get_result(self.reading()?)
            .optional();
        super::cursor_seq(found)
    }
}

impl RefundRepository for DbSession<'_> {
    fn insert(&mut self, refund: &Refund) -> Result<(), StoreError> {
        self.write(diesel::insert_into(refunds::table).values(RefundRow::from_domain(refund)?), Expect::AnyRows)
    }

    fn find(&mut self, scope: &Scope, id: &RefundId) -> Result<Option<Refund>, StoreError> {
        refunds::table
            .filter(in_scope!(refunds, scope))
            .filter(refunds::id.eq(id.as_str()))
            .select(RefundRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(RefundRow::into_domain)
            .transpose()
    }

    fn update(&mut self, refund: &Refund, expected_version: i64) -> Result<(), StoreError> {
        let update = diesel::update(
            refunds::table
                .filter(in_scope!(refunds, refund.account_id(), refund.livemode()))
                .filter(refunds::id.eq(refund.id().to_string()))
                .filter(refunds::version.eq(expected_version)),
        )
        .set(RefundRow::from_domain(refund)?);
        self.write(update, Expect::OneRow)
    }

    fn of_payments(&mut self, scope: &Scope, payment_ids: &[PaymentId]) -> Result<Vec<Refund>, StoreError> {
        if payment_ids.is_empty() {
            return Ok(Vec::new());
        }
        refunds::table
            .filter(in_scope!(refunds, scope))
            .filter(refunds::payment_id.eq_any(payment_ids.iter().map(PaymentId::as_str)))
            .order(refunds::seq.asc())
            .select(RefundRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(RefundRow::into_domain)
            .collect()
    }

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Refund>, StoreError> {
        let query = refunds::table
            .filter(in_scope!(refunds, scope))
            .select(RefundRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        let query = match page.cursor() {
            None => query.order(refunds::seq.desc()),
            Some(Cursor::After(id)) => {
                query.filter(refunds::seq.lt(self.refund_seq(scope, id)?)).order(refunds::seq.desc())
            }
            Some(Cursor::Before(id)) => {
                query.filter(refunds::seq.gt(self.refund_seq(scope, id)?)).order(refunds::seq.asc())
            }
        };
        let rows = query.load::<RefundRow>(self.reading()?).map_err(store_error)?;
        let found = rows.into_iter().map(RefundRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(found, page))
    }
}
