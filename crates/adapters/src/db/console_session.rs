//! Developer console sessions in the database, by the digest of their token.

use super::error::store_error;
use super::json::parse_id;
use super::schema::console_sessions as sessions;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{ConsoleSessionRepository, StoreError};
use payments_domain::account::Mode;
use payments_domain::console_session::ConsoleSession;
use payments_domain::ids::AccountId;
use payments_domain::time::Timestamp;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = sessions, treat_none_as_default_value = false)]
struct ConsoleSessionRow {
    digest: String,
    account_id: String,
    livemode: bool,
    form_token: String,
    created_at: i64,
    last_seen_at: i64,
}

impl ConsoleSessionRepository for DbSession<'_> {
    fn insert(&mut self, session: &ConsoleSession) -> Result<(), StoreError> {
        let row = ConsoleSessionRow {
            digest: session.digest.clone(),
            account_id: session.account_id.to_string(),
            livemode: session.mode.is_live(),
            form_token: session.form_token.clone(),
            created_at: session.created_at.unix_seconds(),
            last_seen_at: session.last_seen_at.unix_seconds(),
        };
        diesel::insert_into(sessions::table).values(row).execute(self.write_now()?).map(drop).map_err(store_error)
    }

    fn find(&mut self, digest: &str) -> Result<Option<ConsoleSession>, StoreError> {
        let row = sessions::table
            .find(digest)
            .select(ConsoleSessionRow::as_select())
            .get_result::<ConsoleSessionRow>(self.reading()?)
            .optional()
            .map_err(store_error)?;
        row.map(|row| {
            Ok(ConsoleSession {
                digest: row.digest,
                account_id: parse_id("account id", &row.account_id, AccountId::parse)?,
                mode: Mode::from_livemode(row.livemode),
                form_token: row.form_token,
                created_at: Timestamp::from_unix_seconds(row.created_at),
                last_seen_at: Timestamp::from_unix_seconds(row.last_seen_at),
            })
        })
        .transpose()
    }

    fn touch(&mut self, digest: &str, at: Timestamp) -> Result<(), StoreError> {
        let update =
            diesel::update(sessions::table.find(digest.to_owned())).set(sessions::last_seen_at.eq(at.unix_seconds()));
        self.write(update, Expect::AnyRows)
    }

    fn delete(&mut self, digest: &str) -> Result<(), StoreError> {
        self.write(diesel::delete(sessions::table.find(digest.to_owned())), Expect::AnyRows)
    }

    fn delete_seen_before(&mut self, cutoff: Timestamp) -> Result<usize, StoreError> {
        diesel::delete(sessions::table.filter(sessions::last_seen_at.lt(cutoff.unix_seconds())))
            .execute(self.write_now()?)
            .map_err(store_error)
    }
}
