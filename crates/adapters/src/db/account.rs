//! Accounts and API key digests in the database.

use super::connection::AnyConnection;
use super::error::{corrupt, store_error};
use super::schema::{accounts, api_keys};
use super::session::DbSession;
use super::write_batch::Expect;
use super::Positive;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use payments_application::ports::{AccountRepository, KeyRecord, StoreError};
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::ids::AccountId;

/// The advisory lock that serializes first-account checks on PostgreSQL.
const FIRST_ACCOUNT_LOCK: i64 = 0x6669_7273_745f_6163;

#[derive(Insertable)]
#[diesel(table_name = accounts, treat_none_as_default_value = false)]
struct AccountRow {
    id: String,
    name: String,
    created_at: i64,
}

#[derive(Insertable)]
#[diesel(table_name = api_keys, treat_none_as_default_value = false)]
struct ApiKeyRow {
    key_digest: String,
    account_id: String,
    kind: &'static str,
    livemode: bool,
    created_at: i64,
}

impl AccountRepository for DbSession<'_> {
    fn insert(&mut self, account: &Account, keys: &[(String, KeyKind, Mode)]) -> Result<(), StoreError> {
        let created_at = account.created_at.unix_seconds();
        let row = AccountRow { id: account.id.to_string(), name: account.name.clone(), created_at };
        self.write(diesel::insert_into(accounts::table).values(row), Expect::AnyRows)?;
        let keys: Vec<ApiKeyRow> = keys
            .iter()
            .map(|(digest, kind, mode)| ApiKeyRow {
                key_digest: digest.clone(),
                account_id: account.id.to_string(),
                kind: kind.as_str(),
                livemode: mode.is_live(),
                created_at,
            })
            .collect();
        self.insert(api_keys::table, keys)
    }

    fn find_key(&mut self, digest: &str) -> Result<Option<KeyRecord>, StoreError> {
        let row: Option<(String, String, bool)> = api_keys::table
            .filter(api_keys::key_digest.eq(digest))
            .select((api_keys::account_id, api_keys::kind, api_keys::livemode))
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?;
        row.map(|(account_id, kind, livemode)| {
            Ok(KeyRecord {
                account_id: AccountId::parse(&account_id).ok_or_else(|| corrupt("account id", &account_id))?,
                kind: KeyKind::parse(&kind).ok_or_else(|| corrupt("key kind", &kind))?,
                mode: Mode::from_livemode(livemode),
            })
        })
        .transpose()
    }

    fn find(&mut self, id: &AccountId) -> Result<Option<Account>, StoreError> {
        let row: Option<(String, String, i64)> = accounts::table
            .filter(accounts::id.eq(id.as_str()))
            .select((accounts::id, accounts::name, accounts::created_at))
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?;
        row.map(|(account_id, name, created_at)| {
            Ok(Account {
                id: AccountId::parse(&account_id).ok_or_else(|| corrupt("account id", &account_id))?,
                name,
                created_at: payments_domain::time::Timestamp::from_unix_seconds(created_at),
            })
        })
        .transpose()
    }

    fn count(&mut self) -> Result<i64, StoreError> {
        accounts::table.count().get_result(self.reading()?).map_err(store_error)
    }

    fn lock_first_account(&mut self) -> Result<(), StoreError> {
        // A lock held to the end of the transaction: the unit of work needs one now.
        match self.write_now()? {
            // Held to the end of the transaction: a second instance counts after the first commits.
            AnyConnection::Postgresql(connection) => connection
                .batch_execute(&format!("SELECT pg_advisory_xact_lock({FIRST_ACCOUNT_LOCK})"))
                .map_err(store_error),
            // Write transactions begin IMMEDIATE: SQLite runs them one at a time already.
            AnyConnection::Sqlite(_) => Ok(()),
        }
    }

    fn test_clock_offset(&mut self, id: &AccountId) -> Result<i64, StoreError> {
        accounts::table
            .filter(accounts::id.eq(id.as_str()))
            .select(accounts::test_clock_offset_ms)
            .get_result(self.reading()?)
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(store_error)
    }

    fn move_test_clock(&mut self, id: &AccountId, from: i64, to: i64) -> Result<bool, StoreError> {
        diesel::update(
            accounts::table.filter(accounts::id.eq(id.as_str())).filter(accounts::test_clock_offset_ms.eq(from)),
        )
        .set(accounts::test_clock_offset_ms.eq(to))
        .execute(self.write_now()?)
        .map(|moved| moved > 0)
        .map_err(store_error)
    }

    fn with_moved_test_clock(&mut self, after: Option<&AccountId>, limit: u32) -> Result<Vec<AccountId>, StoreError> {
        let ids: Vec<String> = accounts::table
            .filter(Positive(accounts::test_clock_offset_ms))
            .filter(accounts::id.gt(after.map_or("", AccountId::as_str)))
            .order(accounts::id.asc())
            .limit(i64::from(limit))
            .select(accounts::id)
            .load(self.reading()?)
            .map_err(store_error)?;
        ids.iter().map(|id| AccountId::parse(id).ok_or_else(|| corrupt("account id", id))).collect()
    }
}
