//! Payment methods saved to customers, in the database.

use super::cursor_seq;
use super::error::store_error;
use super::json::{from_json, invalid, parse_id, to_json};
use super::schema::payment_methods;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{PaymentMethodRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::{AccountId, CustomerId, PaymentMethodId};
use payments_domain::payment_method::{PaymentMethod, Usage, VerifiedCard};
use payments_domain::time::Timestamp;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = payment_methods, treat_none_as_default_value = false)]
struct PaymentMethodRow {
    id: String,
    account_id: String,
    livemode: bool,
    customer_id: String,
    card: String,
    billing: Option<String>,
    processor_reference: String,
    usage: String,
    created_at: i64,
    updated_at: i64,
}

impl PaymentMethodRow {
    fn from_domain(method: &PaymentMethod) -> Result<Self, StoreError> {
        Ok(Self {
            id: method.id.to_string(),
            account_id: method.account_id.to_string(),
            livemode: method.livemode,
            customer_id: method.customer_id.to_string(),
            card: to_json(&method.verified.card)?,
            billing: method.verified.billing.as_ref().map(to_json).transpose()?,
            processor_reference: method.verified.processor_reference.clone(),
            usage: method.usage.as_str().to_owned(),
            created_at: method.created_at.unix_seconds(),
            updated_at: method.updated_at.unix_seconds(),
        })
    }

    fn into_domain(self) -> Result<PaymentMethod, StoreError> {
        Ok(PaymentMethod {
            id: parse_id("payment method id", &self.id, PaymentMethodId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            customer_id: parse_id("customer id", &self.customer_id, CustomerId::parse)?,
            verified: VerifiedCard {
                card: from_json(&self.card)?,
                billing: self.billing.as_deref().map(from_json).transpose()?,
                processor_reference: self.processor_reference,
            },
            usage: Usage::parse(&self.usage).map_err(invalid("usage"))?,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
        })
    }
}

impl DbSession<'_> {
    fn payment_method_seq(&mut self, scope: &Scope, customer_id: &CustomerId, id: &str) -> Result<i64, StoreError> {
        let found = payment_methods::table
            .filter(in_scope!(payment_methods, scope))
            .filter(payment_methods::id.eq(id))
            .filter(payment_methods::customer_id.eq(customer_id.as_str()))
            .select(payment_methods::seq)
            .get_result(self.reading()?)
            .optional();
        cursor_seq(found)
    }
}

impl PaymentMethodRepository for DbSession<'_> {
    fn insert(&mut self, method: &PaymentMethod) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(payment_methods::table).values(PaymentMethodRow::from_domain(method)?),
            Expect::AnyRows,
        )
    }

    fn find(&mut self, scope: &Scope, id: &PaymentMethodId) -> Result<Option<PaymentMethod>, StoreError> {
        payment_methods::table
            .filter(in_scope!(payment_methods, scope))
            .filter(payment_methods::id.eq(id.as_str()))
            .select(PaymentMethodRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(PaymentMethodRow::into_domain)
            .transpose()
    }

    fn list(
        &mut self,
        scope: &Scope,
        customer_id: &CustomerId,
        page: &PageRequest,
    ) -> Result<Page<PaymentMethod>, StoreError> {
        let query = payment_methods::table
            .filter(in_scope!(payment_methods, scope))
            .filter(payment_methods::customer_id.eq(customer_id.as_str()))
            .select(PaymentMethodRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        let query = match page.cursor() {
            None => query.order(payment_methods::seq.desc()),
            Some(Cursor::After(id)) => query
                .filter(payment_methods::seq.lt(self.payment_method_seq(scope, customer_id, id)?))
                .order(payment_methods::seq.desc()),
            Some(Cursor::Before(id)) => query
                .filter(payment_methods::seq.gt(self.payment_method_seq(scope, customer_id, id)?))
                .order(payment_methods::seq.asc()),
        };
        let rows = query.load(self.reading()?).map_err(store_error)?;
        let methods = rows.into_iter().map(PaymentMethodRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(methods, page))
    }

    fn update(&mut self, method: &PaymentMethod) -> Result<bool, StoreError> {
        let row = PaymentMethodRow::from_domain(method)?;
        let scope = Scope::of(&method.account_id, method.livemode);
        let updated = diesel::update(
            payment_methods::table.filter(in_scope!(payment_methods, scope)).filter(payment_methods::id.eq(&row.id)),
        )
        .set((payment_methods::card.eq(&row.card), payment_methods::updated_at.eq(row.updated_at)))
        .execute(self.write_now()?)
        .map_err(store_error)?;
        Ok(updated > 0)
    }

    fn delete(&mut self, scope: &Scope, id: &PaymentMethodId) -> Result<bool, StoreError> {
        let deleted = diesel::delete(
            payment_methods::table
                .filter(in_scope!(payment_methods, scope))
                .filter(payment_methods::id.eq(id.as_str())),
        )
        .execute(self.write_now()?)
        .map_err(store_error)?;
        Ok(deleted > 0)
    }

    fn delete_for_customer(&mut self, scope: &Scope, customer_id: &CustomerId) -> Result<usize, StoreError> {
        diesel::delete(
            payment_methods::table
                .filter(in_scope!(payment_methods, scope))
                .filter(payment_methods::customer_id.eq(customer_id.as_str())),
        )
        .execute(self.write_now()?)
        .map_err(store_error)
    }
}
