//! In-memory fakes of every port, so services are tested without a database.
//!
//! A transaction works on a copy of the state and swaps it in on success, so a failed use case leaves
//! nothing behind, as with a real database.

use crate::error::ApplicationError;
use crate::pagination::{Cursor, Page, PageRequest};
use crate::ports::unit_of_work::Work;
use crate::ports::{
    AccountRepository, Clock, CustomerFilter, CustomerRepository, IdGenerator, IdempotencyRecord,
    IdempotencyRepository, IdempotencyState, KeyRecord, Repositories, StoreError, UnitOfWork,
};
use crate::scope::Scope;
use crate::services::{AccountService, CustomerService, IdempotencyService};
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::customer::{BillingStatementPrefix, Customer};
use payments_domain::ids::{AccountId, CustomerId};
use payments_domain::time::Timestamp;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Everything the in-memory store holds.
#[derive(Debug, Clone, Default)]
struct State {
    accounts: Vec<Account>,
    keys: HashMap<String, KeyRecord>,
    /// Customers in insertion order, which is the list order reversed.
    customers: Vec<Customer>,
    idempotency: Vec<IdempotencyRecord>,
}

/// An in-memory [`UnitOfWork`].
#[derive(Debug, Default)]
pub struct InMemoryStore {
    state: Mutex<State>,
}

impl UnitOfWork for InMemoryStore {
    fn transaction(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        let mut committed = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut draft = committed.clone();
        work(&mut draft)?;
        *committed = draft;
        Ok(())
    }

    fn read(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        self.transaction(work)
    }

    fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

impl Repositories for State {
    fn accounts(&mut self) -> &mut dyn AccountRepository {
        self
    }

    fn customers(&mut self) -> &mut dyn CustomerRepository {
        self
    }

    fn idempotency_keys(&mut self) -> &mut dyn IdempotencyRepository {
        self
    }
}

impl AccountRepository for State {
    fn insert(&mut self, account: &Account, keys: &[(String, KeyKind, Mode)]) -> Result<(), StoreError> {
        if self.accounts.iter().any(|a| a.id == account.id) || keys.iter().any(|(d, _, _)| self.keys.contains_key(d)) {
            return Err(StoreError::UniqueViolation("accounts".into()));
        }
        self.accounts.push(account.clone());
        for (digest, kind, mode) in keys {
            self.keys.insert(digest.clone(), KeyRecord { account_id: account.id.clone(), kind: *kind, mode: *mode });
        }
        Ok(())
    }

    fn find_key(&mut self, digest: &str) -> Result<Option<KeyRecord>, StoreError> {
        Ok(self.keys.get(digest).cloned())
    }

    fn count(&mut self) -> Result<i64, StoreError> {
        i64::try_from(self.accounts.len()).map_err(|e| StoreError::Other(e.into()))
    }
}

fn in_scope(customer: &Customer, scope: &Scope) -> bool {
    customer.account_id == scope.account_id && customer.livemode == scope.livemode()
}

impl CustomerRepository for State {
    fn insert(&mut self, customer: &Customer) -> Result<(), StoreError> {
        let scope = Scope { account_id: customer.account_id.clone(), mode: Mode::from_livemode(customer.livemode) };
        if self.prefix_in_use(&scope, &customer.billing_statement_prefix, None)? {
            return Err(StoreError::UniqueViolation("customers_statement_prefix".into()));
        }
        self.customers.push(customer.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &CustomerId) -> Result<Option<Customer>, StoreError> {
        Ok(self.customers.iter().find(|c| &c.id == id && in_scope(c, scope)).cloned())
    }

    fn update(&mut self, customer: &Customer, expected_version: i64) -> Result<(), StoreError> {
        let stored = self
            .customers
            .iter_mut()
            .find(|c| c.id == customer.id && c.version == expected_version)
            .ok_or(StoreError::Conflict)?;
        *stored = customer.clone();
        Ok(())
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &CustomerFilter,
        page: &PageRequest,
    ) -> Result<Page<Customer>, StoreError> {
        let position = |id: &str| {
            self.customers
                .iter()
                .position(|c| c.id.as_str() == id && in_scope(c, scope))
                .ok_or(StoreError::UnknownCursor)
        };
        let visible = |c: &&Customer| {
            in_scope(c, scope)
                && !c.is_deleted()
                && filter.name.as_deref().is_none_or(|n| c.name.as_str() == n)
                && filter.email.as_deref().is_none_or(|e| c.email.as_str() == e)
        };
        let overfetch = page.limit() as usize + 1;
        let rows: Vec<Customer> = match page.cursor() {
            None => self.customers.iter().rev().filter(visible).take(overfetch).cloned().collect(),
            Some(Cursor::After(id)) => {
                let end = position(id)?;
                self.customers[..end].iter().rev().filter(visible).take(overfetch).cloned().collect()
            }
            Some(Cursor::Before(id)) => {
                let start = position(id)? + 1;
                self.customers[start..].iter().filter(visible).take(overfetch).cloned().collect()
            }
        };
        Ok(Page::from_overfetched(rows, page))
    }

    fn prefix_in_use(
        &mut self,
        scope: &Scope,
        prefix: &BillingStatementPrefix,
        except: Option<&CustomerId>,
    ) -> Result<bool, StoreError> {
        Ok(self.customers.iter().any(|c| {
            in_scope(c, scope) && !c.is_deleted() && &c.billing_statement_prefix == prefix && Some(&c.id) != except
        }))
    }
}

impl IdempotencyRepository for State {
    fn find(&mut self, scope: &Scope, key: &str) -> Result<Option<IdempotencyRecord>, StoreError> {
        Ok(self.idempotency.iter().find(|r| &r.scope == scope && r.key == key).cloned())
    }

    fn insert(&mut self, record: &IdempotencyRecord) -> Result<(), StoreError> {
        if self.idempotency.iter().any(|r| r.scope == record.scope && r.key == record.key) {
            return Err(StoreError::UniqueViolation("idempotency_keys".into()));
        }
        self.idempotency.push(record.clone());
        Ok(())
    }

    fn complete(&mut self, scope: &Scope, key: &str, status: u16, body: &[u8]) -> Result<(), StoreError> {
        if let Some(record) = self.idempotency.iter_mut().find(|r| &r.scope == scope && r.key == key) {
            record.state = IdempotencyState::Completed { status, body: body.to_vec() };
        }
        Ok(())
    }

    fn delete(&mut self, scope: &Scope, key: &str) -> Result<(), StoreError> {
        self.idempotency.retain(|r| !(&r.scope == scope && r.key == key));
        Ok(())
    }

    fn delete_created_before(&mut self, cutoff: Timestamp) -> Result<usize, StoreError> {
        let before = self.idempotency.len();
        self.idempotency.retain(|r| r.created_at >= cutoff);
        Ok(before - self.idempotency.len())
    }
}

/// A clock that stands still until moved.
#[derive(Debug)]
pub struct ManualClock {
    seconds: AtomicI64,
}

impl ManualClock {
    #[must_use]
    pub fn at(seconds: i64) -> Self {
        Self { seconds: AtomicI64::new(seconds) }
    }

    pub fn advance(&self, seconds: i64) {
        self.seconds.fetch_add(seconds, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_seconds(self.seconds.load(Ordering::SeqCst))
    }
}

/// Deterministic "random" strings: a counter, zero-padded, so every draw differs.
#[derive(Debug, Default)]
pub struct SequentialIds {
    next: AtomicU64,
}

impl IdGenerator for SequentialIds {
    fn alphanumeric(&self, length: usize) -> String {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let digits = format!("{n:0>length$}");
        let letters: String = digits.chars().map(|d| char::from(b'a' + (d as u8 - b'0'))).collect();
        letters.chars().rev().collect()
    }
}

/// Fakes of every port wired together, with two accounts to test tenant isolation.
pub struct TestPorts {
    pub store: Arc<InMemoryStore>,
    pub clock: Arc<ManualClock>,
    pub ids: Arc<SequentialIds>,
    account_id: AccountId,
    other_account_id: AccountId,
}

impl TestPorts {
    #[must_use]
    pub fn new() -> Self {
        Self {
            store: Arc::new(InMemoryStore::default()),
            clock: Arc::new(ManualClock::at(1_700_000_000)),
            ids: Arc::new(SequentialIds::default()),
            account_id: AccountId::from_random("testaccount"),
            other_account_id: AccountId::from_random("otheraccount"),
        }
    }

    /// The main test account in `mode`.
    #[must_use]
    pub fn scope(&self, mode: Mode) -> Scope {
        Scope { account_id: self.account_id.clone(), mode }
    }

    /// Another account, in test mode.
    #[must_use]
    pub fn other_scope(&self) -> Scope {
        Scope { account_id: self.other_account_id.clone(), mode: Mode::Test }
    }

    #[must_use]
    pub fn account_service(&self) -> AccountService {
        AccountService::new(self.store.clone(), self.clock.clone(), self.ids.clone())
    }

    #[must_use]
    pub fn customer_service(&self) -> CustomerService {
        CustomerService::new(self.store.clone(), self.clock.clone(), self.ids.clone())
    }

    #[must_use]
    pub fn idempotency_service(&self) -> IdempotencyService {
        IdempotencyService::new(self.store.clone(), self.clock.clone())
    }
}

impl Default for TestPorts {
    fn default() -> Self {
        Self::new()
    }
}
