//! Accounts: creating merchants with their four keys, authenticating API keys, and the operator's
//! verbs (list, delete test data or the whole account, export test data and import it elsewhere).

use super::PayoutRails;
use crate::error::{ApplicationError, StateRefusal, StoreError};
use crate::ports::{
    in_transaction, reading, retry_on_conflict, ArchivedRow, ArchivedRows, Clock, DeletedCounts, IdGenerator,
    Repositories, UnitOfWork,
};
use crate::scope::{Caller, Scope};
use payments_domain::account::{Account, AccountKeys, ApiKey, KeyKind, Mode};
use payments_domain::ids::AccountId;
use payments_domain::payout::PayoutSchedule;
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

/// Most resolved keys kept in memory; past this the memo starts over.
const MAX_REMEMBERED_KEYS: usize = 10_000;
/// How long a resolved key is trusted before it is looked up again: a key of an account deleted
/// by another instance stops working here within this time (at once on the instance deleting it).
const KEY_REMEMBERED_FOR_MILLIS: i64 = 10_000;
/// Most accounts one list answers.
pub const MAX_ACCOUNTS_LISTED: u32 = 100;
/// Most rows one export holds; an account past this is too large to export in one piece.
pub const MAX_EXPORTED_ROWS: usize = 200_000;
/// The first line of an export: what it is, so an import can tell it from any other file.
pub const EXPORT_FORMAT: &str = "payments.account_test_data";
/// Length of the random part of a new API key.
const KEY_RANDOM_LENGTH: usize = 40;
/// Longest accepted account name.
const MAX_NAME_LENGTH: usize = 255;

/// Account use cases.
pub struct AccountService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    /// Where a new account's schedules pay out until it names a bank account.
    rails: PayoutRails,
    /// Keys already resolved, by digest, with when they were looked up; only keys that exist are
    /// remembered, and for [`KEY_REMEMBERED_FOR_MILLIS`] (a deleted account's keys stop working).
    resolved: RwLock<HashMap<String, (Caller, Timestamp)>>,
}

/// An account's test-mode objects as exported: the header's facts and the stored rows.
#[derive(Debug, Clone, PartialEq)]
pub struct TestDataExport {
    pub account_id: AccountId,
    /// The store's schema version the rows have the fields of (its newest migration).
    pub schema: String,
    /// How far the account's test clock stood ahead of real time, in milliseconds.
    pub test_clock_offset_ms: i64,
    pub rows: Vec<ArchivedRow>,
}

/// An export being imported: its header's facts, and its rows, read as they are stored.
pub struct TestDataImport {
    /// The schema version the export names; `None` for an export made before exports named one
    /// (as old as the schema `2026-12-01-000026` or older).
    pub schema: Option<String>,
    /// How far the account's test clock stood ahead of real time, in milliseconds.
    pub test_clock_offset_ms: i64,
    /// How many rows the export's header says it holds.
    pub declared_rows: usize,
    pub rows: Box<dyn ArchivedRows + Send>,
}

impl AccountService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        rails: PayoutRails,
    ) -> Self {
        Self { unit_of_work, clock, ids, rails, resolved: RwLock::default() }
    }

    /// Creates an account and its four keys. The keys are returned once and stored only as digests.
    ///
    /// # Errors
    /// `parameter_invalid` on `name` for a blank or over-long name; storage failures.
    pub fn create(&self, name: &str) -> Result<(Account, AccountKeys), ApplicationError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_LENGTH {
            return Err(ApplicationError::invalid(FieldError::invalid(
                "name",
                format!("The account name must be 1 to {MAX_NAME_LENGTH} characters long."),
            )));
        }
        let (account, keys) = self.new_account(name);
        in_transaction(self.unit_of_work.as_ref(), |repositories| self.insert(repositories, &account, &keys))?;
        Ok((account, keys))
    }

    /// Creates a first account when none exists, so a new installation can be called at once. Several
    /// instances starting at once on an empty database create one between them.
    ///
    /// # Errors
    /// Storage failures.
    pub fn create_first(&self, name: &str) -> Result<Option<(Account, AccountKeys)>, ApplicationError> {
        let (account, keys) = self.new_account(name);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            repositories.accounts().lock_first_account()?;
            if repositories.accounts().count()? > 0 {
                return Ok(None);
            }
            self.insert(repositories, &account, &keys)?;
            Ok(Some((account, keys)))
        })
    }

    /// Writes a new account with its keys, and its payout schedule in each mode (daily in test mode
    /// from its creation, to the rail's default bank account; none in live mode).
    fn insert(
        &self,
        repositories: &mut dyn Repositories,
        account: &Account,
        keys: &AccountKeys,
    ) -> Result<(), ApplicationError> {
        repositories.accounts().insert(account, &digests(keys))?;
        for livemode in [false, true] {
            let destination = self.rails.default_destination(livemode, &account.name);
            let schedule = PayoutSchedule::default_for(&account.id, livemode, destination, account.created_at);
            repositories.payouts().save_schedule(&schedule, None)?;
        }
        Ok(())
    }

    /// Resolves a presented key to its account, mode and kind.
    ///
    /// # Errors
    /// [`ApplicationError::Unauthenticated`] for a malformed or unknown key; storage failures.
    pub fn authenticate(&self, presented: &str) -> Result<Caller, ApplicationError> {
        let key = ApiKey::parse(presented).ok_or(ApplicationError::Unauthenticated)?;
        let digest = key.digest();
        let now = self.clock.now();
        if let Some((caller, looked_up)) = self.resolved.read().unwrap_or_else(PoisonError::into_inner).get(&digest) {
            if now.millis_since(*looked_up) < KEY_REMEMBERED_FOR_MILLIS {
                return Ok(caller.clone());
            }
        }
        let record =
            reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.accounts().find_key(&digest)?))?
                .ok_or(ApplicationError::Unauthenticated)?;
        let caller =
            Caller { scope: Scope { account_id: record.account_id, mode: record.mode }, key_kind: record.kind };
        let mut resolved = self.resolved.write().unwrap_or_else(PoisonError::into_inner);
        if resolved.len() >= MAX_REMEMBERED_KEYS {
            resolved.clear();
        }
        resolved.insert(digest, (caller.clone(), now));
        Ok(caller)
    }

    /// Up to [`MAX_ACCOUNTS_LISTED`] accounts after `after`, in id order, and whether more follow.
    ///
    /// # Errors
    /// Storage failures.
    pub fn list(&self, after: Option<&AccountId>, limit: u32) -> Result<(Vec<Account>, bool), ApplicationError> {
        let limit = limit.clamp(1, MAX_ACCOUNTS_LISTED);
        let mut accounts =
            reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.accounts().list(after, limit + 1)?))?;
        let has_more = accounts.len() > limit as usize;
        accounts.truncate(limit as usize);
        Ok((accounts, has_more))
    }

    /// The account `id`.
    ///
    /// # Errors
    /// `NotFound` for an unknown account; storage failures.
    pub fn retrieve(&self, id: &AccountId) -> Result<Account, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| existing(repositories, id))
    }

    /// Deletes every object of the account's test mode and sets its test clock back; its keys and
    /// live mode stay. Answers how many rows of each collection went.
    ///
    /// # Errors
    /// `NotFound` for an unknown account; storage failures.
    pub fn delete_test_data(&self, id: &AccountId) -> Result<DeletedCounts, ApplicationError> {
        let now = self.clock.now();
        let deleted = retry_on_conflict(|| {
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                existing(repositories, id)?;
                let deleted = repositories.accounts().delete_test_data(id)?;
                // The test clock is back at real time, and so is the next payout.
                restart_test_schedule(repositories, id, now)?;
                Ok(deleted)
            })
        })?;
        // Read afresh, so this instance's clocks stop using the moved one at once.
        self.clock.test_clock(id)?;
        Ok(deleted)
    }

    /// Deletes the account, its keys and every object of both modes. Its keys stop working at once
    /// on this instance and within [`KEY_REMEMBERED_FOR_MILLIS`] on others. A request of the account
    /// that writes meanwhile (a deadlock or a serialization failure, on a sharded database) is no
    /// reason to give up: the delete is tried again.
    ///
    /// # Errors
    /// `NotFound` for an unknown account; `resource_conflict` when requests keep winning; storage
    /// failures.
    pub fn delete(&self, id: &AccountId) -> Result<(), ApplicationError> {
        let deleted = retry_on_conflict(|| {
            in_transaction(self.unit_of_work.as_ref(), |repositories| Ok(repositories.accounts().delete(id)?))
        })?;
        if !deleted {
            return Err(not_found(id));
        }
        self.resolved
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, (caller, _)| caller.scope.account_id != *id);
        Ok(())
    }

    /// The account's test-mode objects, as stored, in one consistent read.
    ///
    /// # Errors
    /// `NotFound` for an unknown account; `parameter_invalid` when it holds more than
    /// [`MAX_EXPORTED_ROWS`] rows; storage failures.
    pub fn export_test_data(&self, id: &AccountId) -> Result<TestDataExport, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            existing(repositories, id)?;
            let rows = match repositories.accounts().export_test_data(id, MAX_EXPORTED_ROWS) {
                Err(StoreError::TooMany(limit)) => {
                    return Err(ApplicationError::invalid(FieldError::invalid(
                        "account",
                        format!("The account's test mode holds more than {limit} rows, too many to export at once."),
                    )))
                }
                rows => rows?,
            };
            let test_clock_offset_ms = repositories.accounts().test_clock_offset(id)?;
            let schema = repositories.accounts().schema_versions()?.pop().unwrap_or_default();
            Ok(TestDataExport { account_id: id.clone(), schema, test_clock_offset_ms, rows })
        })
    }

    /// Stores exported objects in the test mode of account `id`, which must hold none, with their
    /// ids, and sets its test clock to the exported one. All or nothing. An export of an older
    /// schema imports with the defaults of what later versions added.
    ///
    /// # Errors
    /// `NotFound` for an unknown account; `resource_invalid_state` when its test mode holds
    /// objects; `parameter_invalid` on `line 1` for an export of a schema this store does not have
    /// (a newer service's), on `line N` for a row that cannot be stored (ids are unique in
    /// the whole database, so an export imports once per database); storage failures.
    pub fn import_test_data(&self, id: &AccountId, import: &TestDataImport) -> Result<usize, ApplicationError> {
        let stored = in_transaction(self.unit_of_work.as_ref(), |repositories| {
            existing(repositories, id)?;
            if repositories.accounts().has_test_data(id)? {
                return Err(ApplicationError::InvalidState(StateRefusal::AccountHasTestData {
                    account_id: id.to_string(),
                }));
            }
            let from_an_older_schema = from_an_older_schema(repositories, import.schema.as_deref())?;
            let stored = match repositories.accounts().import_test_data(id, import.rows.as_ref(), from_an_older_schema)
            {
                // The header is line 1, so row `index` is on line `index + 2`.
                Err(StoreError::RowRefused { index, reason }) => {
                    return Err(ApplicationError::invalid(FieldError::invalid(format!("line {}", index + 2), reason)))
                }
                outcome => outcome?,
            };
            if stored != import.declared_rows {
                return Err(ApplicationError::invalid(FieldError::invalid(
                    "body",
                    format!(
                        "The export holds {stored} rows where its header says {}: it was cut short or changed.",
                        import.declared_rows
                    ),
                )));
            }
            let offset = repositories.accounts().test_clock_offset(id)?;
            let imported_offset = import.test_clock_offset_ms.max(0);
            repositories.accounts().move_test_clock(id, offset, imported_offset)?;
            restart_test_schedule(repositories, id, self.clock.now().plus_seconds(imported_offset / 1000))?;
            Ok(stored)
        })?;
        self.clock.test_clock(id)?;
        Ok(stored)
    }

    fn new_account(&self, name: &str) -> (Account, AccountKeys) {
        let account = Account {
            id: AccountId::from_random(&self.ids.id_part()),
            name: name.to_owned(),
            created_at: self.clock.now(),
        };
        let key = |kind, mode| ApiKey::issue(kind, mode, &self.ids.alphanumeric(KEY_RANDOM_LENGTH));
        let keys = AccountKeys {
            secret_test: key(KeyKind::Secret, Mode::Test),
            public_test: key(KeyKind::Public, Mode::Test),
            secret_live: key(KeyKind::Secret, Mode::Live),
            public_live: key(KeyKind::Public, Mode::Live),
        };
        (account, keys)
    }
}

/// Moves the test mode's next payout to the schedule's next time after `now`, the test clock's time
/// after it was set back or moved.
fn restart_test_schedule(
    repositories: &mut dyn Repositories,
    id: &AccountId,
    now: Timestamp,
) -> Result<(), ApplicationError> {
    let scope = Scope { account_id: id.clone(), mode: Mode::Test };
    if let Some(schedule) = repositories.payouts().schedule(&scope)? {
        repositories.payouts().save_schedule(&schedule.changed(None, None, now), Some(schedule.version))?;
    }
    Ok(())
}

fn existing(repositories: &mut dyn Repositories, id: &AccountId) -> Result<Account, ApplicationError> {
    repositories.accounts().find(id)?.ok_or_else(|| not_found(id))
}

fn not_found(id: &AccountId) -> ApplicationError {
    ApplicationError::NotFound { resource: "account", id: id.to_string() }
}

fn digests(keys: &AccountKeys) -> Vec<(String, KeyKind, Mode)> {
    keys.all().into_iter().map(|(key, kind, mode)| (key.digest(), kind, mode)).collect()
}

/// The account's name as customers see it on statements and pages (empty when the account is gone).
pub(crate) fn merchant_name(repositories: &mut dyn Repositories, scope: &Scope) -> Result<String, ApplicationError> {
    Ok(repositories.accounts().find(&scope.account_id)?.map(|account| account.name).unwrap_or_default())
}

/// Whether an export of `schema` is older than the store's: `false` for the store's own, `true`
/// for one of its earlier versions or an export that names none.
///
/// # Errors
/// `parameter_invalid` on `line 1` for a schema the store never had; storage failures.
fn from_an_older_schema(repositories: &mut dyn Repositories, schema: Option<&str>) -> Result<bool, ApplicationError> {
    let versions = repositories.accounts().schema_versions()?;
    match schema {
        None => Ok(true),
        Some(schema) if versions.last().is_some_and(|newest| newest == schema) => Ok(false),
        Some(schema) if versions.iter().any(|version| version == schema) => Ok(true),
        Some(schema) => Err(ApplicationError::invalid(FieldError::invalid(
            "line 1",
            format!(
                "The export was made at schema {schema}, which this service does not have: import it into a \
                 service at least as new as the one that exported it."
            ),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{new_customer, TestPorts};

    #[test]
    fn a_created_account_authenticates_with_each_of_its_keys() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        let (account, keys) = service.create("Acme").unwrap();
        for (key, kind, mode) in keys.all() {
            let caller = service.authenticate(key.reveal()).unwrap();
            assert_eq!(caller.scope.account_id, account.id);
            assert_eq!(caller.scope.mode, mode);
            assert_eq!(caller.key_kind, kind);
        }
    }

    #[test]
    fn unknown_and_malformed_keys_are_refused() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        service.create("Acme").unwrap();
        let unknown = format!("sk_test_{}", "x".repeat(40));
        assert!(matches!(service.authenticate(&unknown), Err(ApplicationError::Unauthenticated)));
        assert!(matches!(service.authenticate("garbage"), Err(ApplicationError::Unauthenticated)));
    }

    #[test]
    fn the_first_account_is_created_only_once() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        assert!(service.create_first("Default").unwrap().is_some());
        assert!(service.create_first("Default").unwrap().is_none());
    }

    #[test]
    fn a_deleted_accounts_keys_stop_working_here_at_once_and_on_other_instances_within_seconds() {
        let ports = TestPorts::new();
        let here = ports.account_service();
        let elsewhere = ports.account_service();
        let (account, keys) = here.create("Acme").unwrap();
        let key = keys.secret_test.reveal().to_owned();
        here.authenticate(&key).unwrap();
        elsewhere.authenticate(&key).unwrap();
        here.delete(&account.id).unwrap();
        assert!(matches!(here.authenticate(&key), Err(ApplicationError::Unauthenticated)));
        assert!(elsewhere.authenticate(&key).is_ok(), "another instance remembers the key for a while");
        ports.clock.advance_millis(KEY_REMEMBERED_FOR_MILLIS);
        assert!(matches!(elsewhere.authenticate(&key), Err(ApplicationError::Unauthenticated)));
        assert!(matches!(here.delete(&account.id), Err(ApplicationError::NotFound { .. })));
    }

    #[test]
    fn accounts_are_listed_in_pages_of_id_order() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        let mut made: Vec<AccountId> = (0..5).map(|n| service.create(&format!("Shop {n}")).unwrap().0.id).collect();
        made.sort();
        let (first, more) = service.list(None, 2).unwrap();
        assert!(more);
        let (rest, more) = service.list(Some(&first[1].id), 100).unwrap();
        assert!(!more);
        let listed: Vec<AccountId> = first.into_iter().chain(rest).map(|account| account.id).collect();
        assert_eq!(listed, made);
    }

    #[test]
    fn deleting_test_data_keeps_the_account_and_its_live_mode() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        let (account, keys) = service.create("Acme").unwrap();
        let customers = ports.customer_service();
        let in_mode = |mode| Scope { account_id: account.id.clone(), mode };
        let test = customers.create(&in_mode(Mode::Test), new_customer("Ana")).unwrap();
        let live = customers.create(&in_mode(Mode::Live), new_customer("Lia")).unwrap();
        let deleted = service.delete_test_data(&account.id).unwrap();
        assert!(deleted.contains(&("customers", 1)), "{deleted:?}");
        assert!(customers.retrieve(&in_mode(Mode::Test), test.id.as_str()).is_err());
        assert!(customers.retrieve(&in_mode(Mode::Live), live.id.as_str()).is_ok());
        assert!(service.authenticate(keys.secret_test.reveal()).is_ok());
        let unknown = AccountId::from_random("nobody");
        assert!(matches!(service.delete_test_data(&unknown), Err(ApplicationError::NotFound { .. })));
    }

    #[test]
    fn an_import_goes_only_into_an_account_without_test_objects() {
        let ports = TestPorts::new();
        let service = ports.account_service();
        let (account, _) = service.create("Acme").unwrap();
        let scope = Scope { account_id: account.id.clone(), mode: Mode::Test };
        ports.customer_service().create(&scope, new_customer("Ana")).unwrap();
        let import =
            TestDataImport { schema: None, test_clock_offset_ms: 0, declared_rows: 0, rows: Box::new(Vec::new()) };
        assert!(matches!(
            service.import_test_data(&account.id, &import),
            Err(ApplicationError::InvalidState(StateRefusal::AccountHasTestData { .. }))
        ));
    }

    #[test]
    fn a_blank_account_name_is_refused() {
        let ports = TestPorts::new();
        assert!(matches!(ports.account_service().create("  "), Err(ApplicationError::Validation(_))));
    }
}
