//! Customer sessions in the database.

use super::error::store_error;
use super::json::{from_json, parse_id, to_json};
use super::schema::customer_sessions;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{CustomerSessionRepository, StoreError};
use payments_application::Scope;
use payments_domain::customer_session::CustomerSession;
use payments_domain::ids::{AccountId, ClientSecret, CustomerId, CustomerSessionId};
use payments_domain::time::Timestamp;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = customer_sessions, treat_none_as_default_value = false)]
struct CustomerSessionRow {
    id: String,
    account_id: String,
    livemode: bool,
    customer_id: String,
    client_secret: String,
    components: String,
    expired_at: i64,
    created_at: i64,
    updated_at: i64,
}

impl CustomerSessionRow {
    fn from_domain(session: &CustomerSession) -> Result<Self, StoreError> {
        Ok(Self {
            id: session.id.to_string(),
            account_id: session.account_id.to_string(),
            livemode: session.livemode,
            customer_id: session.customer_id.to_string(),
            client_secret: session.client_secret.reveal().to_owned(),
            components: to_json(&session.components)?,
            expired_at: session.expired_at.unix_seconds(),
            created_at: session.created_at.unix_seconds(),
            updated_at: session.updated_at.unix_seconds(),
        })
    }

    fn into_domain(self) -> Result<CustomerSession, StoreError> {
        Ok(CustomerSession {
            id: parse_id("customer session id", &self.id, CustomerSessionId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            customer_id: parse_id("customer id", &self.customer_id, CustomerId::parse)?,
            client_secret: ClientSecret::from_stored(self.client_secret),
            components: from_json(&self.components)?,
            expired_at: Timestamp::from_unix_seconds(self.expired_at),
            created_at: Timestamp::from_unix_seconds(self.created_at),
            updated_at: Timestamp::from_unix_seconds(self.updated_at),
        })
    }
}

impl CustomerSessionRepository for DbSession<'_> {
    fn insert(&mut self, session: &CustomerSession) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(customer_sessions::table).values(CustomerSessionRow::from_domain(session)?),
            Expect::AnyRows,
        )
    }

    fn find(&mut self, scope: &Scope, id: &CustomerSessionId) -> Result<Option<CustomerSession>, StoreError> {
        customer_sessions::table
            .filter(in_scope!(customer_sessions, scope))
            .filter(customer_sessions::id.eq(id.as_str()))
            .select(CustomerSessionRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(CustomerSessionRow::into_domain)
            .transpose()
    }

    fn of_customer(
        &mut self,
        scope: &Scope,
        customer_id: &CustomerId,
        limit: u32,
    ) -> Result<Vec<CustomerSession>, StoreError> {
        customer_sessions::table
            .filter(in_scope!(customer_sessions, scope))
            .filter(customer_sessions::customer_id.eq(customer_id.as_str()))
            .order(customer_sessions::seq.desc())
            .limit(i64::from(limit))
            .select(CustomerSessionRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(CustomerSessionRow::into_domain)
            .collect()
    }
}
