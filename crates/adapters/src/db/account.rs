//! Accounts and API key digests in the database.

use super::account_data;
use super::connection::AnyConnection;
use super::error::{corrupt, store_error};
use super::schema::{accounts, api_keys, payout_schedules};
use super::session::DbSession;
use super::write_batch::Expect;
use super::Positive;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use payments_application::error::cause_chain;
use payments_application::ports::{AccountRepository, ArchivedRow, ArchivedRows, DeletedCounts, KeyRecord, StoreError};
use payments_application::ports::{
    BalanceRepository, BillingStatementRepository, CheckoutSessionRepository, CustomerRepository,
    CustomerSessionRepository, EventRepository, PageRepository, PaymentIntentRepository, PaymentMethodRepository,
    PaymentRepository, PayoutRepository, PriceRepository, ProductRepository, RefundRepository, SetupIntentRepository,
    WebhookRepository,
};
use payments_application::Scope;
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::ids::{
    AccountId, BalanceEntryId, BillingStatementId, CheckoutSessionId, CustomerId, CustomerSessionId, EventId, PageId,
    PaymentId, PaymentIntentId, PaymentMethodId, PayoutId, PriceId, ProductId, RefundId, SetupIntentId, WebhookId,
};

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
        row.map(account).transpose()
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

    fn list(&mut self, after: Option<&AccountId>, limit: u32) -> Result<Vec<Account>, StoreError> {
        let rows: Vec<(String, String, i64)> = accounts::table
            .filter(accounts::id.gt(after.map_or("", AccountId::as_str)))
            .order(accounts::id.asc())
            .limit(i64::from(limit))
            .select((accounts::id, accounts::name, accounts::created_at))
            .load(self.reading()?)
            .map_err(store_error)?;
        rows.into_iter().map(account).collect()
    }

    fn delete_test_data(&mut self, id: &AccountId) -> Result<DeletedCounts, StoreError> {
        account_data::lock(self.write_now()?, id.as_str())?;
        let deleted = account_data::delete(self.write_now()?, id.as_str(), true)?;
        diesel::update(accounts::table.filter(accounts::id.eq(id.as_str())))
            .set(accounts::test_clock_offset_ms.eq(0))
            .execute(self.write_now()?)
            .map_err(store_error)?;
        Ok(deleted)
    }

    fn delete(&mut self, id: &AccountId) -> Result<bool, StoreError> {
        account_data::lock(self.write_now()?, id.as_str())?;
        account_data::delete(self.write_now()?, id.as_str(), false)?;
        diesel::delete(api_keys::table.filter(api_keys::account_id.eq(id.as_str())))
            .execute(self.write_now()?)
            .map_err(store_error)?;
        diesel::delete(payout_schedules::table.filter(payout_schedules::account_id.eq(id.as_str())))
            .execute(self.write_now()?)
            .map_err(store_error)?;
        diesel::delete(accounts::table.filter(accounts::id.eq(id.as_str())))
            .execute(self.write_now()?)
            .map(|deleted| deleted > 0)
            .map_err(store_error)
    }

    fn has_test_data(&mut self, id: &AccountId) -> Result<bool, StoreError> {
        account_data::has_test_data(self.reading()?, id.as_str())
    }

    fn export_test_data(&mut self, id: &AccountId, limit: usize) -> Result<Vec<ArchivedRow>, StoreError> {
        account_data::export(self.reading()?, id.as_str(), limit)
    }

    fn schema_versions(&mut self) -> Result<Vec<String>, StoreError> {
        account_data::schema_versions(self.reading()?)
    }

    fn import_test_data(
        &mut self,
        id: &AccountId,
        rows: &dyn ArchivedRows,
        from_an_older_schema: bool,
    ) -> Result<usize, StoreError> {
        let stored = account_data::import(self.write_now()?, id.as_str(), rows, from_an_older_schema)?;
        // Read back as the service will read them, once every row is in (an object is read with
        // the rows of its line items and metadata that follow it), so that a row the database took
        // but the service cannot read (an id or a status of no known form) is refused now, not on
        // every later read.
        let scope = Scope { account_id: id.clone(), mode: Mode::Test };
        for (index, row) in rows.records().enumerate() {
            let row = row.map_err(|reason| StoreError::RowRefused { index, reason })?;
            self.read_back(&scope, &row).map_err(|refusal| match refusal {
                Unreadable::Store(error) => error,
                Unreadable::Row(reason) => StoreError::RowRefused { index, reason },
            })?;
        }
        Ok(stored)
    }
}

/// Why an imported row does not read back.
enum Unreadable {
    Row(String),
    Store(StoreError),
}

impl DbSession<'_> {
    /// Reads an imported object back through its repository; rows of metadata and line items are
    /// read with their parents.
    fn read_back(&mut self, scope: &Scope, row: &ArchivedRow) -> Result<(), Unreadable> {
        let collection = row.collection.as_str();
        let id = row.fields.get("id").and_then(serde_json::Value::as_str).unwrap_or_default();
        macro_rules! read {
            ($repository:ident, $id:ident) => {
                match $id::parse(id) {
                    Some(id) => $repository::find(self, scope, &id).map(drop),
                    None => {
                        return Err(Unreadable::Row(format!(
                            "The {collection} row's id {id} is not a {} id.",
                            $id::PREFIX
                        )))
                    }
                }
            };
        }
        let outcome = match collection {
            "customers" => read!(CustomerRepository, CustomerId),
            "payment_methods" => read!(PaymentMethodRepository, PaymentMethodId),
            "setup_intents" => read!(SetupIntentRepository, SetupIntentId),
            "payment_intents" => read!(PaymentIntentRepository, PaymentIntentId),
            "payments" => read!(PaymentRepository, PaymentId),
            "refunds" => read!(RefundRepository, RefundId),
            "checkout_sessions" => read!(CheckoutSessionRepository, CheckoutSessionId),
            "billing_statements" => read!(BillingStatementRepository, BillingStatementId),
            "customer_sessions" => read!(CustomerSessionRepository, CustomerSessionId),
            "webhooks" => read!(WebhookRepository, WebhookId),
            "events" => match EventId::parse(id) {
                Some(event_id) => match EventRepository::find(self, scope, &event_id) {
                    Ok(Some(event)) => return envelope_of(&event).map_err(Unreadable::Row),
                    other => other.map(drop),
                },
                None => return Err(Unreadable::Row(format!("The events row's id {id} is not an evt_ id."))),
            },
            "payouts" => read!(PayoutRepository, PayoutId),
            "balance_entries" => read!(BalanceRepository, BalanceEntryId),
            "products" => read!(ProductRepository, ProductId),
            "prices" => read!(PriceRepository, PriceId),
            "pages" => read!(PageRepository, PageId),
            // Read with the object they belong to, which comes before them.
            "customer_metadata"
            | "payment_intent_metadata"
            | "billing_statement_line_items"
            | "payout_transactions" => Ok(()),
            // Every exported table has its arm above (the export tests import one of each).
            other => return Err(Unreadable::Row(format!("The {other} rows have no reader in this version."))),
        };
        match outcome {
            Err(StoreError::Other(cause)) => Err(Unreadable::Row(format!(
                "The {collection} row {id} holds values this service cannot read: {}",
                cause_chain(cause.as_ref()).replace('\n', " ")
            ))),
            other => other.map_err(Unreadable::Store),
        }
    }
}

fn account((id, name, created_at): (String, String, i64)) -> Result<Account, StoreError> {
    Ok(Account {
        id: AccountId::parse(&id).ok_or_else(|| corrupt("account id", &id))?,
        name,
        created_at: payments_domain::time::Timestamp::from_unix_seconds(created_at),
    })
}

/// Why an imported event's stored envelope is not the event's own, if it is not: the API answers
/// the envelope as it was stored.
fn envelope_of(event: &payments_domain::event::Event) -> Result<(), String> {
    let envelope: serde_json::Value = serde_json::from_str(&event.body)
        .map_err(|error| format!("The events row {}'s body is not JSON: {error}.", event.id))?;
    let expected = [
        ("id", serde_json::json!(event.id.as_str())),
        ("resource", serde_json::json!("event")),
        ("type", serde_json::json!(event.event_type.as_str())),
        ("livemode", serde_json::json!(false)),
    ];
    match expected.iter().find(|(name, value)| envelope.get(name) != Some(value)) {
        None if envelope["data"].is_object() => Ok(()),
        None => Err(format!("The events row {}'s body has no data object.", event.id)),
        Some((name, value)) => Err(format!("The events row {}'s body does not say {name} {value}.", event.id)),
    }
}
