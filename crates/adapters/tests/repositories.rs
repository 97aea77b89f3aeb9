//! Repository tests on both backends: the shared repository contract (written once in
//! `payments_application::testing::contract`, also run on the in-memory fakes) on a fresh SQLite file
//! and a fresh PostgreSQL database per test, plus the concurrency behaviour only a real database has.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use payments_adapters::db::testing::TestDatabase;
use payments_adapters::db::{Backend, DatabaseUrl, DieselUnitOfWork, PoolSettings};
use payments_application::pagination::PageRequest;
use payments_application::ports::{in_transaction, reading, CustomerFilter, UnitOfWork};
use payments_application::testing::contract::ContractStore;
use payments_application::Scope;
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::customer::{BillingStatementPrefix, Customer, CustomerName, Email, NewCustomer};
use payments_domain::ids::{AccountId, CustomerId};
use payments_domain::money::Currency;
use payments_domain::time::Timestamp;
use std::sync::Arc;
use std::time::Duration;

mod sqlite {
    payments_application::repository_contract!(super::contract_store(payments_adapters::db::Backend::Sqlite));

    #[test]
    fn concurrent_writers_all_commit() {
        super::concurrent_writers_all_commit(payments_adapters::db::Backend::Sqlite);
    }
}

mod postgres {
    payments_application::repository_contract!(super::contract_store(payments_adapters::db::Backend::Postgres));

    #[test]
    fn concurrent_writers_all_commit() {
        super::concurrent_writers_all_commit(payments_adapters::db::Backend::Postgres);
    }
}

/// A diesel unit of work on a fresh database of `backend`, dropped with the store.
fn contract_store(backend: Backend) -> ContractStore {
    let (database, unit_of_work) = connect(backend);
    ContractStore::new(unit_of_work, database)
}

fn connect(backend: Backend) -> (TestDatabase, Arc<DieselUnitOfWork>) {
    let database = TestDatabase::new(backend);
    let url = DatabaseUrl::parse(database.url()).expect("test database URL");
    let pool = url
        .connect(PoolSettings { max_size: 4, connection_timeout: Duration::from_secs(5) })
        .expect("connect to the test database");
    (database, Arc::new(DieselUnitOfWork::new(pool)))
}

fn insert_account(unit_of_work: &dyn UnitOfWork, id: &AccountId) {
    let account = Account { id: id.clone(), name: "Acme".into(), created_at: Timestamp::from_unix_seconds(1) };
    let keys = vec![(format!("digest-{id}"), KeyKind::Secret, Mode::Test)];
    in_transaction(unit_of_work, |r| Ok(r.accounts().insert(&account, &keys)?)).expect("insert account");
}

fn customer(scope: &Scope, n: u32) -> Customer {
    let new = NewCustomer {
        name: CustomerName::new(format!("Customer {n}")).unwrap(),
        email: Email::new(format!("c{n}@example.com")).unwrap(),
        currency: Currency::Php,
        billing_statement_prefix: None,
        next_billing_statement_sequence_number: None,
        billing: None,
        metadata: None,
    };
    Customer::create(
        CustomerId::from_random(&format!("c{n}x{}", scope.account_id.as_str().len())),
        scope.account_id.clone(),
        scope.livemode(),
        new,
        BillingStatementPrefix::new(format!("P{n:04}")).unwrap(),
        Timestamp::from_unix_seconds(1_000),
    )
}

fn concurrent_writers_all_commit(backend: Backend) {
    let (_database, unit_of_work) = connect(backend);
    let scope = Scope { account_id: AccountId::from_random("repositorytest"), mode: Mode::Test };
    insert_account(unit_of_work.as_ref(), &scope.account_id);
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let uow = unit_of_work.clone();
            let scope = scope.clone();
            std::thread::spawn(move || {
                for n in 0..10u32 {
                    let customer = customer(&scope, t * 100 + n);
                    // Read then write in one transaction: the pattern that deadlocks deferred SQLite
                    // transactions.
                    in_transaction(uow.as_ref(), |r| {
                        r.customers().prefix_in_use(&scope, &customer.billing_statement_prefix, None)?;
                        Ok(r.customers().insert(&customer)?)
                    })
                    .expect("every writer commits");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("writer thread");
    }
    let page = reading(unit_of_work.as_ref(), |r| {
        Ok(r.customers().list(&scope, &CustomerFilter::default(), &PageRequest::new(Some(100), None, None).unwrap())?)
    })
    .unwrap();
    assert_eq!(page.data.len(), 40);
}
