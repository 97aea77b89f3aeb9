//! Customers in the database.

use super::cursor_seq;
use super::error::{corrupt, store_error, versioned};
use super::json::{from_json, invalid, to_json};
use super::prepared::Prepare;
use super::schema::{customer_metadata, customers};
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{CustomerFilter, CustomerRepository, StoreError};
use payments_application::Scope;
use payments_domain::customer::{Billing, BillingStatementPrefix, Customer, CustomerName, Email, SequenceNumber};
use payments_domain::ids::{AccountId, CustomerId};
use payments_domain::metadata::Metadata;
use payments_domain::money::Currency;
use payments_domain::time::Timestamp;

/// A customer as stored; `seq` is left to the database.
#[derive(Insertable, AsChangeset, Queryable, Selectable)]
#[diesel(table_name = customers, treat_none_as_null = true, treat_none_as_default_value = false)]
struct CustomerRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    name: String,
    email: String,
    currency: String,
    billing_statement_prefix: String,
    next_billing_statement_sequence_number: i64,
    billing: Option<String>,
    metadata: Option<String>,
    version: i64,
    #[diesel(skip_update)]
    created_at: i64,
    updated_at: i64,
    deleted_at: Option<i64>,
}

impl CustomerRow {
    fn from_domain(customer: &Customer) -> Result<Self, StoreError> {
        Ok(Self {
            id: customer.id.to_string(),
            account_id: customer.account_id.to_string(),
            livemode: customer.livemode,
            name: customer.name.as_str().to_owned(),
            email: customer.email.as_str().to_owned(),
            currency: customer.currency.code().to_owned(),
            billing_statement_prefix: customer.billing_statement_prefix.as_str().to_owned(),
            next_billing_statement_sequence_number: customer.next_billing_statement_sequence_number.value(),
            billing: customer.billing.as_ref().map(to_json).transpose()?,
            metadata: customer.metadata.as_ref().map(to_json).transpose()?,
            version: customer.version,
            created_at: customer.created_at.unix_seconds(),
            updated_at: customer.updated_at.unix_seconds(),
            deleted_at: customer.deleted_at.map(Timestamp::unix_seconds),
        })
    }

    fn into_domain(self) -> Result<Customer, StoreError> {
        Ok(Customer {
            id: CustomerId::parse(&self.id).ok_or_else(|| corrupt("customer id", &self.id))?,
            account_id: AccountId::parse(&self.account_id).ok_or_else(|| corrupt("account id", &self.account_id))?,
            livemode: self.livemode,
            name: CustomerName::new(self.name).map_err(invalid("customer name"))?,
            email: Email::new(self.email).map_err(invalid("customer email"))?,
            currency: Currency::parse(&self.currency).map_err(invalid("currency"))?,
            billing_statement_prefix: BillingStatementPrefix::new(self.billing_statement_prefix)
                .map_err(invalid("billing statement prefix"))?,
            next_billing_statement_sequence_number: SequenceNumber::new(self.next_billing_statement_sequence_number)
                .map_err(invalid("sequence number"))?,
            billing: self.billing.as_deref().map(from_json::<Billing>).transpose()?,
            metadata: self.metadata.as_deref().map(from_json::<Metadata>).transpose()?,
            version: self.version,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
            deleted_at: self.deleted_at.map(Timestamp::from_unix_seconds),
        })
    }
}

/// One metadata pair of a customer, kept beside the customer for the list's metadata filter.
#[derive(Insertable)]
#[diesel(table_name = customer_metadata, treat_none_as_default_value = false)]
struct MetadataPairRow {
    customer_id: String,
    account_id: String,
    livemode: bool,
    key: String,
    value: String,
}

impl DbSession<'_> {
    /// Replaces the stored metadata pairs of `customer` with its current ones.
    fn write_metadata_pairs(&mut self, customer: &Customer, replace: bool) -> Result<(), StoreError> {
        if replace {
            let delete = diesel::delete(
                customer_metadata::table
                    .filter(in_scope!(customer_metadata, customer.account_id, customer.livemode))
                    .filter(customer_metadata::customer_id.eq(customer.id.to_string())),
            );
            self.write(delete, Expect::AnyRows)?;
        }
        let Some(metadata) = &customer.metadata else { return Ok(()) };
        let rows: Vec<MetadataPairRow> = metadata
            .pairs()
            .iter()
            .map(|(key, value)| MetadataPairRow {
                customer_id: customer.id.to_string(),
                account_id: customer.account_id.to_string(),
                livemode: customer.livemode,
                key: key.to_owned(),
                value: value.to_owned(),
            })
            .collect();
        self.insert(customer_metadata::table, rows)
    }

    /// The list position of the customer `id` in `scope`.
    fn customer_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = customers::table
            .filter(in_scope!(customers, scope))
            .filter(customers::id.eq(id))
            .select(customers::seq)
            .get_result(self.reading()?)
            .optional();
        cursor_seq(found)
    }
}

impl CustomerRepository for DbSession<'_> {
    fn insert(&mut self, customer: &Customer) -> Result<(), StoreError> {
        // A statement prefix taken meanwhile (a unique violation) is the use case's to report.
        diesel::insert_into(customers::table)
            .values(CustomerRow::from_domain(customer)?)
            .prepared()
            .execute(self.write_now()?)
            .map_err(store_error)?;
        self.write_metadata_pairs(customer, false)
    }

    fn find(&mut self, scope: &Scope, id: &CustomerId) -> Result<Option<Customer>, StoreError> {
        customers::table
            .filter(in_scope!(customers, scope))
            .filter(customers::id.eq(id.as_str()))
            .select(CustomerRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(CustomerRow::into_domain)
            .transpose()
    }

    fn find_many(&mut self, scope: &Scope, ids: &[CustomerId]) -> Result<Vec<Customer>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = ids.iter().map(CustomerId::as_str).collect();
        customers::table
            .filter(in_scope!(customers, scope))
            .filter(customers::id.eq_any(ids))
            .select(CustomerRow::as_select())
            .load::<CustomerRow>(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(CustomerRow::into_domain)
            .collect()
    }

    fn update(&mut self, customer: &Customer, expected_version: i64) -> Result<(), StoreError> {
        let updated = diesel::update(
            customers::table
                .filter(in_scope!(customers, customer.account_id, customer.livemode))
                .filter(customers::id.eq(customer.id.as_str()))
                .filter(customers::version.eq(expected_version)),
        )
        .set(CustomerRow::from_domain(customer)?)
        .prepared()
        .execute(self.write_now()?)
        .map_err(store_error)?;
        versioned(updated)?;
        self.write_metadata_pairs(customer, true)
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &CustomerFilter,
        page: &PageRequest,
    ) -> Result<Page<Customer>, StoreError> {
        let mut query = customers::table
            .filter(listed!(customers, scope))
            .filter(customers::deleted_at.is_null())
            .select(CustomerRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(name) = &filter.name {
            query = query.filter(customers::name.eq(name));
        }
        if let Some(email) = &filter.email {
            query = query.filter(customers::email.eq(email));
        }
        for condition in &filter.metadata {
            let having = customer_metadata::table
                .filter(in_scope!(customer_metadata, scope))
                .filter(customer_metadata::key.eq(condition.key.clone()))
                .select(customer_metadata::customer_id);
            query = match &condition.value {
                Some(value) => {
                    query.filter(customers::id.eq_any(having.filter(customer_metadata::value.eq(value.clone()))))
                }
                None => query.filter(customers::id.eq_any(having)),
            };
        }
        query = match page.cursor() {
            None => query.order(customers::seq.desc()),
            Some(Cursor::After(id)) => {
                query.filter(customers::seq.lt(self.customer_seq(scope, id)?)).order(customers::seq.desc())
            }
            Some(Cursor::Before(id)) => {
                query.filter(customers::seq.gt(self.customer_seq(scope, id)?)).order(customers::seq.asc())
            }
        };
        let rows = query.load(self.reading()?).map_err(store_error)?;
        let customers = rows.into_iter().map(CustomerRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(customers, page))
    }

    fn prefix_in_use(
        &mut self,
        scope: &Scope,
        prefix: &BillingStatementPrefix,
        except: Option<&CustomerId>,
    ) -> Result<bool, StoreError> {
        let mut query = customers::table
            .filter(in_scope!(customers, scope))
            .filter(customers::deleted_at.is_null())
            .filter(customers::billing_statement_prefix.eq(prefix.as_str()))
            .into_boxed();
        if let Some(except) = except {
            query = query.filter(customers::id.ne(except.as_str()));
        }
        // Counted rather than fetched with `first` (whose bound `LIMIT` SQLite compiles anew each time):
        // the unique prefix leaves at most one row to count.
        let count: i64 = query.count().get_result(self.reading()?).map_err(store_error)?;
        Ok(count > 0)
    }
}
