//! Repository tests on both backends: the shared repository contract (written once in
//! `payments_application::testing::contract`, also run on the in-memory fakes) on a fresh SQLite file
//! and a fresh PostgreSQL database per test, plus the concurrency behaviour only a real database has.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use payments_adapters::db::testing::TestDatabase;
use payments_adapters::db::{Backend, DatabaseUrl, DieselUnitOfWork, PoolSettings, Queued};
use payments_application::pagination::PageRequest;
use payments_application::ports::{in_transaction, reading, CustomerFilter, UnitOfWork};
use payments_application::testing::contract::{account, customer, event, mail, webhook, ContractStore};
use payments_application::ApplicationError;
use payments_domain::event::EventType;
use payments_domain::ids::DeliveryId;
use payments_domain::time::Timestamp;
use payments_domain::webhook::Delivery;
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod sqlite {
    payments_application::repository_contract!(super::contract_store(payments_adapters::db::Backend::Sqlite));

    #[test]
    fn concurrent_writers_all_commit() {
        super::concurrent_writers_all_commit(payments_adapters::db::Backend::Sqlite);
    }

    #[test]
    fn commits_wake_the_workers_for_what_they_queued() {
        super::commits_wake_the_workers_for_what_they_queued(payments_adapters::db::Backend::Sqlite);
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
    fn commits_wake_the_workers_for_what_they_queued() {
        super::commits_wake_the_workers_for_what_they_queued(payments_adapters::db::Backend::Postgres);
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

/// A commit wakes the delivery worker when it queued deliveries and the mail worker when it queued
/// mail; one that queued neither (events no webhook listens to included), or rolled back, wakes no one.
fn commits_wake_the_workers_for_what_they_queued(backend: Backend) {
    let (database, _) = connect(backend);
    let url = DatabaseUrl::parse(database.url()).expect("test database URL");
    let pool = url.connect(PoolSettings { max_size: 2, connection_timeout: Duration::from_secs(5) }).unwrap();
    let woken: Arc<Mutex<Vec<Queued>>> = Arc::default();
    let record = woken.clone();
    let unit_of_work =
        DieselUnitOfWork::new(pool).notifying(Arc::new(move |queued| record.lock().unwrap().push(queued)));
    let woken = || woken.lock().unwrap().clone();
    let scope = account(&unit_of_work, "acme");
    in_transaction(&unit_of_work, |r| Ok(r.customers().insert(&customer(&scope, 1))?)).unwrap();
    in_transaction(&unit_of_work, |r| Ok(r.events().append(&[event(&scope, 1, 0)])?)).unwrap();
    assert_eq!(woken(), [], "nothing queued");

    let hook = webhook(&scope, 1, vec![EventType::PaymentPaid]);
    let listened = event(&scope, 2, 1);
    let delivery =
        Delivery::new(DeliveryId::from_random("d1"), &hook, listened.id.clone(), Timestamp::from_unix_seconds(1));
    in_transaction(&unit_of_work, |r| {
        r.webhooks().insert(&hook)?;
        r.events().append(std::slice::from_ref(&listened))?;
        Ok(r.deliveries().insert(std::slice::from_ref(&delivery))?)
    })
    .unwrap();
    assert_eq!(woken(), [Queued { deliveries: true, mail: false }]);

    in_transaction(&unit_of_work, |r| Ok(r.mail_messages().insert(&mail(&scope, 1, 0))?)).unwrap();
    let rolled_back = in_transaction(&unit_of_work, |r| {
        r.mail_messages().insert(&mail(&scope, 2, 0))?;
        Err::<(), _>(ApplicationError::Conflict)
    });
    assert!(matches!(rolled_back, Err(ApplicationError::Conflict)));
    assert_eq!(woken(), [Queued { deliveries: true, mail: false }, Queued { deliveries: false, mail: true }]);
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
