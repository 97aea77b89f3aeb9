//! Idempotency keys in the database.

use super::error::{corrupt, store_error};
use super::prepared::Prepare;
use super::schema::idempotency_keys as keys;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{IdempotencyRecord, IdempotencyRepository, IdempotencyState, StoreError};
use payments_application::Caller;
use payments_domain::time::Timestamp;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = keys, treat_none_as_default_value = false)]
struct IdempotencyRow {
    fingerprint: String,
    response_status: Option<i32>,
    response_body: Option<String>,
    created_at: i64,
}

#[derive(Insertable)]
#[diesel(table_name = keys, treat_none_as_default_value = false)]
struct NewIdempotencyRow<'a> {
    account_id: &'a str,
    livemode: bool,
    key_kind: &'a str,
    idempotency_key: &'a str,
    fingerprint: &'a str,
    created_at: i64,
}

/// The row of `key` for the API key of `caller`.
fn primary_key<'a>(caller: &'a Caller, key: &'a str) -> (&'a str, bool, &'static str, &'a str) {
    (caller.scope.account_id.as_str(), caller.scope.livemode(), caller.key_kind.as_str(), key)
}

/// [`primary_key`], owned: for a statement held back.
fn owned_primary_key(caller: &Caller, key: &str) -> (String, bool, &'static str, String) {
    (caller.scope.account_id.to_string(), caller.scope.livemode(), caller.key_kind.as_str(), key.to_owned())
}

impl IdempotencyRepository for DbSession<'_> {
    fn find(&mut self, caller: &Caller, key: &str) -> Result<Option<IdempotencyRecord>, StoreError> {
        let row: Option<IdempotencyRow> = keys::table
            .find(primary_key(caller, key))
            .select(IdempotencyRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?;
        row.map(|row| {
            let state = match (row.response_status, row.response_body) {
                (Some(status), Some(body)) => IdempotencyState::Completed {
                    status: u16::try_from(status).map_err(|e| corrupt("response status", e))?,
                    body: body.into_bytes(),
                },
                _ => IdempotencyState::InFlight,
            };
            Ok(IdempotencyRecord {
                caller: caller.clone(),
                key: key.to_owned(),
                fingerprint: row.fingerprint,
                state,
                created_at: Timestamp::from_unix_seconds(row.created_at),
            })
        })
        .transpose()
    }

    fn insert(&mut self, record: &IdempotencyRecord) -> Result<(), StoreError> {
        diesel::insert_into(keys::table)
            .values(NewIdempotencyRow {
                account_id: record.caller.scope.account_id.as_str(),
                livemode: record.caller.scope.livemode(),
                key_kind: record.caller.key_kind.as_str(),
                idempotency_key: &record.key,
                fingerprint: &record.fingerprint,
                created_at: record.created_at.unix_seconds(),
            })
            .prepared()
            // A concurrent first use's unique violation is the use case's to report.
            .execute(self.write_now()?)
            .map(drop)
            .map_err(store_error)
    }

    fn complete(&mut self, caller: &Caller, key: &str, status: u16, body: &[u8]) -> Result<(), StoreError> {
        let body = std::str::from_utf8(body).map_err(|e| StoreError::Other(e.into()))?.to_owned();
        let update = diesel::update(keys::table.find(owned_primary_key(caller, key)))
            .set((keys::response_status.eq(i32::from(status)), keys::response_body.eq(body)));
        self.write(update, Expect::AnyRows)
    }

    fn delete(&mut self, caller: &Caller, key: &str) -> Result<(), StoreError> {
        self.write(diesel::delete(keys::table.find(owned_primary_key(caller, key))), Expect::AnyRows)
    }

    fn delete_created_before(&mut self, cutoff: Timestamp) -> Result<usize, StoreError> {
        diesel::delete(keys::table.filter(keys::created_at.lt(cutoff.unix_seconds())))
            .execute(self.write_now()?)
            .map_err(store_error)
    }
}
