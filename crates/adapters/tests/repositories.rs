//! Repository tests on both backends: the shared repository contract (written once in
//! `payments_application::testing::contract`, also run on the in-memory fakes) on a fresh SQLite file
//! and a fresh PostgreSQL database per test, plus the concurrency behaviour only a real database has.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use payments_adapters::db::testing::TestDatabase;
use payments_adapters::db::{Backend, DatabaseUrl, DieselUnitOfWork, PoolSettings};
use payments_application::pagination::PageRequest;
use payments_application::ports::{in_transaction, reading, CustomerFilter, UnitOfWork};
use payments_application::testing::contract::{account, customer, ContractStore};
use std::sync::Arc;
use std::time::Duration;

mod sqlite {
    payments_application::repository_contract!(super::contract_store(payments_adapters::db::Backend::Sqlite));

    #[test]
    fn concurrent_writers_all_commit() {
        super::concurrent_writers_all_commit(payments_adapters::db::Backend::Sqlite);
    }

    #[test]
    fn checkpoints_copy_the_log_into_the_database_file() {
        super::checkpoints_copy_the_log_into_the_database_file();
    }
}

mod postgres {
    payments_application::repository_contract!(super::contract_store(payments_adapters::db::Backend::Postgres));

    #[test]
    fn concurrent_writers_all_commit() {
        super::concurrent_writers_all_commit(payments_adapters::db::Backend::Postgres);
    }

    #[test]
    fn there_is_no_log_to_checkpoint() {
        let (_database, unit_of_work) = super::connect(payments_adapters::db::Backend::Postgres);
        let checkpointed = payments_application::ports::UnitOfWork::checkpoint(unit_of_work.as_ref()).unwrap();
        assert!(!checkpointed, "PostgreSQL checkpoints itself: the job stops");
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

fn concurrent_writers_all_commit(backend: Backend) {
    let (_database, unit_of_work) = connect(backend);
    let scope = account(unit_of_work.as_ref(), "acme");
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

/// SQLite with its writer connection, as the service runs it: commits leave their pages in the
/// write-ahead log (no automatic checkpoints), and `checkpoint` copies them into the database file.
fn checkpoints_copy_the_log_into_the_database_file() {
    let database = TestDatabase::new(Backend::Sqlite);
    let url = DatabaseUrl::parse(database.url()).expect("test database URL");
    let settings = PoolSettings { max_size: 4, connection_timeout: Duration::from_secs(5) };
    let writer = url.writer_pool(settings, Box::new(r2d2::NopEventHandler)).unwrap();
    let unit_of_work = DieselUnitOfWork::new(url.connect(settings).unwrap()).writing_through(writer);
    let scope = account(&unit_of_work, "acme");
    for n in 0..300 {
        in_transaction(&unit_of_work, |r| Ok(r.customers().insert(&customer(&scope, n))?)).unwrap();
    }
    let file = database.url().trim_start_matches("sqlite://").to_owned();
    let size = |path: &str| std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let (before, log) = (size(&file), size(&format!("{file}-wal")));
    assert!(log > before, "the commits are in the log ({log} bytes), not yet in the file ({before} bytes)");
    assert!(unit_of_work.checkpoint().unwrap(), "SQLite has a log to checkpoint");
    let after = size(&file);
    assert!(after > before, "the file grew from {before} to {after} bytes");
    let page = reading(&unit_of_work, |r| {
        Ok(r.customers().list(&scope, &CustomerFilter::default(), &PageRequest::new(Some(100), None, None).unwrap())?)
    })
    .unwrap();
    assert_eq!((page.data.len(), page.has_more), (100, true));
}
