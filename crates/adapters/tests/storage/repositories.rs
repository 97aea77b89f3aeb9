//! Repository tests on both backends: the shared repository contract (written once in
//! `payments_application::testing::contract`, also run on the in-memory fakes) on a fresh SQLite file
//! and a fresh PostgreSQL database per test, plus the concurrency behaviour only a real database has.

use payments_adapters::db::testing::TestDatabase;
use payments_adapters::db::{Backend, DatabaseUrl, DieselUnitOfWork, PoolSettings, Queued};
use payments_application::pagination::PageRequest;
use payments_application::ports::{in_transaction, reading, CustomerFilter, IdGenerator, UnitOfWork};
use payments_application::testing::contract::{account, customer, event, mail, webhook, ContractStore};
use payments_application::{ApplicationError, Scope};
use payments_domain::event::EventType;
use payments_domain::time::Timestamp;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One `#[test]` per named check of this file, each calling the check with `$backend`.
macro_rules! checks_on {
    ($backend:ident: $($check:ident),* $(,)?) => {$(
        #[test]
        fn $check() {
            super::$check(payments_adapters::db::Backend::$backend);
        }
    )*};
}

/// The checks that run on both backends.
macro_rules! checks_on_both_backends {
    ($backend:ident) => {
        checks_on!($backend:
            concurrent_writers_all_commit,
            commits_wake_the_workers_for_what_they_queued,
            a_change_reads_its_own_writes_and_keeps_all_or_nothing_of_them,
        );
    };
}

mod sqlite {
    payments_application::repository_contract!(super::contract_store(payments_adapters::db::Backend::Sqlite));
    checks_on_both_backends!(Sqlite);

    #[test]
    fn checkpoints_copy_the_log_into_the_database_file() {
        super::checkpoints_copy_the_log_into_the_database_file();
    }

    #[test]
    fn queued_writes_commit_together_and_each_returns_after_its_commit() {
        super::queued_writes_commit_together_and_each_returns_after_its_commit();
    }

    #[test]
    fn a_panicking_write_commits_nothing_of_its_batch() {
        super::a_panicking_write_commits_nothing_of_its_batch();
    }
}

mod postgres {
    payments_application::repository_contract!(super::contract_store(payments_adapters::db::Backend::Postgres));
    checks_on_both_backends!(Postgres);

    #[test]
    fn the_event_stream_waits_for_an_event_committed_late() {
        super::the_event_stream_waits_for_an_event_committed_late();
    }

    #[test]
    fn there_is_no_log_to_checkpoint() {
        let (_database, unit_of_work) = super::connect(payments_adapters::db::Backend::Postgres);
        let checkpointed = payments_application::ports::UnitOfWork::upkeep(unit_of_work.as_ref()).unwrap();
        assert!(!checkpointed, "PostgreSQL checkpoints itself: the job stops");
    }
}

/// A diesel unit of work on a fresh database of `backend`, dropped with the store.
fn contract_store(backend: Backend) -> ContractStore {
    let (database, unit_of_work) = connect(backend);
    ContractStore::new(unit_of_work, database)
}

pub(super) fn connect(backend: Backend) -> (TestDatabase, Arc<DieselUnitOfWork>) {
    let database = TestDatabase::new(backend);
    let url = DatabaseUrl::parse(database.url()).expect("test database URL");
    let pool = url
        .connect(PoolSettings { max_size: 4, connection_timeout: Duration::from_secs(5) })
        .expect("connect to the test database");
    (database, Arc::new(DieselUnitOfWork::new(pool, ids())))
}

/// Random ids, as the service draws them.
fn ids() -> Arc<dyn IdGenerator> {
    Arc::new(payments_adapters::id_generator::RandomIds)
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

/// A change reads what it wrote (on PostgreSQL its writes held back go out first, in a
/// transaction), and keeps all of its writes or none: the writes made before a read and after it
/// alike.
fn a_change_reads_its_own_writes_and_keeps_all_or_nothing_of_them(backend: Backend) {
    let (_database, unit_of_work) = match backend {
        Backend::Sqlite => connect_sqlite_writer(),
        Backend::Postgres => connect(backend),
    };
    let scope = account(unit_of_work.as_ref(), "acme");
    let (first, second) =
        (webhook(&scope, 1, vec![EventType::PaymentPaid]), webhook(&scope, 2, vec![EventType::RefundCreated]));
    let stored = |hook: &payments_domain::webhook::Webhook| {
        reading(unit_of_work.as_ref(), |r| Ok(r.webhooks().find(&scope, hook.id())?)).unwrap().is_some()
    };
    let failed = in_transaction(unit_of_work.as_ref(), |r| {
        r.webhooks().insert(&first)?;
        assert!(r.webhooks().find(&scope, first.id())?.is_some(), "a change reads its own write");
        r.webhooks().insert(&second)?;
        Err::<(), _>(ApplicationError::Conflict)
    });
    assert!(matches!(failed, Err(ApplicationError::Conflict)), "{failed:?}");
    assert!(!stored(&first) && !stored(&second), "nothing of a failed change is kept");
    in_transaction(unit_of_work.as_ref(), |r| {
        r.webhooks().insert(&first)?;
        assert_eq!(r.webhooks().enabled(&scope)?.len(), 1);
        Ok(r.webhooks().insert(&second)?)
    })
    .unwrap();
    assert!(stored(&first) && stored(&second));
}

/// A commit wakes the delivery worker when it queued deliveries, the mail worker when it queued
/// mail, and the event streams of each scope it appended events to; one that did none of these, or
/// rolled back, wakes no one.
fn commits_wake_the_workers_for_what_they_queued(backend: Backend) {
    let (database, _) = connect(backend);
    let url = DatabaseUrl::parse(database.url()).expect("test database URL");
    let pool = url.connect(PoolSettings { max_size: 2, connection_timeout: Duration::from_secs(5) }).unwrap();
    let woken: Arc<Mutex<Vec<Queued>>> = Arc::default();
    let record = woken.clone();
    let unit_of_work = DieselUnitOfWork::new(pool, ids())
        .notifying(Arc::new(move |queued: &Queued| record.lock().unwrap().push(queued.clone())));
    let woken = || woken.lock().unwrap().clone();
    let scope = account(&unit_of_work, "acme");
    let events_in = |scopes: &[&Scope]| scopes.iter().map(|scope| (*scope).clone()).collect::<Vec<_>>();
    in_transaction(&unit_of_work, |r| Ok(r.customers().insert(&customer(&scope, 1))?)).unwrap();
    assert_eq!(woken(), [], "nothing queued");
    in_transaction(&unit_of_work, |r| {
        Ok(r.events().append(&[event(&scope, 1, 0)], Timestamp::from_unix_seconds(1))?)
    })
    .unwrap();
    let unheard = Queued { deliveries: false, mail: false, events_in: events_in(&[&scope]) };
    assert_eq!(woken(), std::slice::from_ref(&unheard), "events no webhook listens to: the streams only");

    let hook = webhook(&scope, 1, vec![EventType::PaymentPaid]);
    in_transaction(&unit_of_work, |r| Ok(r.webhooks().insert(&hook)?)).unwrap();
    let listened = event(&scope, 2, 1);
    in_transaction(&unit_of_work, |r| Ok(r.events().append(std::slice::from_ref(&listened), listened.created_at)?))
        .unwrap();
    let delivered = Queued { deliveries: true, mail: false, events_in: events_in(&[&scope]) };
    assert_eq!(woken(), [unheard.clone(), delivered.clone()]);

    in_transaction(&unit_of_work, |r| Ok(r.mail_messages().insert(&mail(&scope, 1, 0))?)).unwrap();
    let rolled_back = in_transaction(&unit_of_work, |r| {
        r.mail_messages().insert(&mail(&scope, 2, 0))?;
        r.events().append(&[event(&scope, 3, 0)], Timestamp::from_unix_seconds(1))?;
        Err::<(), _>(ApplicationError::Conflict)
    });
    assert!(matches!(rolled_back, Err(ApplicationError::Conflict)));
    let mailed = Queued { deliveries: false, mail: true, events_in: Vec::new() };
    assert_eq!(woken(), [unheard, delivered, mailed]);
}

/// On PostgreSQL transactions commit in any order: an event appended by a transaction still running
/// holds back the stream, so that events committed after it are not read past it.
fn the_event_stream_waits_for_an_event_committed_late() {
    let (_database, unit_of_work) = connect(Backend::Postgres);
    let scope = account(unit_of_work.as_ref(), "acme");
    let (first, second) = (event(&scope, 1, 0), event(&scope, 2, 0));
    let (appended, wait_for_append) = std::sync::mpsc::channel();
    let (release, wait_for_release) = std::sync::mpsc::channel::<()>();
    let slow = {
        let (unit_of_work, scope, first) = (unit_of_work.clone(), scope.clone(), first.clone());
        std::thread::spawn(move || {
            in_transaction(unit_of_work.as_ref(), |r| {
                r.events().append(std::slice::from_ref(&first), first.created_at)?;
                // A read sends the append held back so far: the transaction now has its id.
                assert!(r.events().find(&scope, &first.id)?.is_some());
                appended.send(()).unwrap();
                wait_for_release.recv().unwrap();
                Ok(())
            })
        })
    };
    wait_for_append.recv().unwrap();
    in_transaction(unit_of_work.as_ref(), |r| {
        Ok(r.events().append(std::slice::from_ref(&second), second.created_at)?)
    })
    .unwrap();
    let stream = || reading(unit_of_work.as_ref(), |r| Ok(r.events().stream(&scope, None, 10)?)).unwrap();
    let end = || reading(unit_of_work.as_ref(), |r| Ok(r.events().stream_end(&scope)?)).unwrap();
    assert_eq!((stream(), end()), (Vec::new(), None), "the second waits for the first, still running");
    release.send(()).unwrap();
    slow.join().unwrap().unwrap();
    // Another test's transaction, in another database of the cluster, may hold it back a moment.
    for _ in 0..500 {
        if stream().len() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let ids: Vec<_> = stream().into_iter().map(|e| e.id).collect();
    assert_eq!(ids, [first.id, second.id.clone()], "in the order of their transactions");
    assert_eq!(end(), Some(second.id));
}

/// SQLite with its writer connection, as the service runs it.
fn connect_sqlite_writer() -> (TestDatabase, Arc<DieselUnitOfWork>) {
    let database = TestDatabase::new(Backend::Sqlite);
    let url = DatabaseUrl::parse(database.url()).expect("test database URL");
    let settings = PoolSettings { max_size: 4, connection_timeout: Duration::from_secs(5) };
    let writer = url.writer_pool(settings, Box::new(r2d2::NopEventHandler)).unwrap();
    let unit_of_work = DieselUnitOfWork::new(url.connect(settings).unwrap(), ids()).writing_through(writer);
    (database, Arc::new(unit_of_work))
}

/// Runs `transaction(n)` on a thread for each `n` of `1..=count` while a first transaction holds
/// the writer connection, so that they queue for it; returns the first's outcome and each thread's.
fn queue_behind_a_slow_write<T: Send + 'static>(
    unit_of_work: &Arc<DieselUnitOfWork>,
    scope: &Scope,
    count: u32,
    transaction: impl Fn(&DieselUnitOfWork, u32) -> T + Send + Sync + 'static,
) -> (Result<(), ApplicationError>, Vec<std::thread::Result<T>>) {
    let (holding, held) = std::sync::mpsc::channel();
    let first = {
        let (unit_of_work, scope) = (unit_of_work.clone(), scope.clone());
        std::thread::spawn(move || {
            in_transaction(unit_of_work.as_ref(), |r| {
                r.customers().insert(&customer(&scope, 0))?;
                holding.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(300));
                Ok(())
            })
        })
    };
    held.recv().unwrap();
    let transaction = Arc::new(transaction);
    let queued: Vec<_> = (1..=count)
        .map(|n| {
            let (unit_of_work, transaction) = (unit_of_work.clone(), transaction.clone());
            std::thread::spawn(move || transaction(&unit_of_work, n))
        })
        .collect();
    let first = first.join().unwrap();
    (first, queued.into_iter().map(std::thread::JoinHandle::join).collect())
}

/// Whether customer `n` of `scope` is visible to a read connection.
fn customer_visible(unit_of_work: &DieselUnitOfWork, scope: &Scope, n: u32) -> bool {
    reading(unit_of_work, |r| Ok(r.customers().find(scope, &customer(scope, n).id)?)).unwrap().is_some()
}

/// SQLite: write transactions that queue for the writer connection join one SQLite transaction
/// (a savepoint each) and commit together; a failed one is undone alone, and each returns only
/// once its changes are visible to every connection.
fn queued_writes_commit_together_and_each_returns_after_its_commit() {
    let (_database, unit_of_work) = connect_sqlite_writer();
    let scope = account(unit_of_work.as_ref(), "acme");
    let commits_before = unit_of_work.writer_commits().unwrap();
    let scope_of_threads = scope.clone();
    let (first, outcomes) = queue_behind_a_slow_write(&unit_of_work, &scope, 15, move |unit_of_work, n| {
        let scope = &scope_of_threads;
        let outcome = in_transaction(unit_of_work, |r| {
            // 5 inserts customer 0's id again (a unique violation); 9 fails after its insert.
            r.customers().insert(&customer(scope, if n == 5 { 0 } else { n }))?;
            if n == 9 {
                return Err(ApplicationError::Conflict);
            }
            Ok(())
        });
        // Read at once from another connection: an answered write is committed, and so is what a
        // refused one collided with.
        (outcome.is_ok(), customer_visible(unit_of_work, scope, n), customer_visible(unit_of_work, scope, 0))
    });
    for (n, outcome) in (1..=15).zip(outcomes) {
        let (committed, visible, first_visible) = outcome.unwrap();
        assert_eq!(committed, n != 5 && n != 9, "transaction {n}");
        assert_eq!(visible, committed, "customer {n} is visible as soon as its transaction returned, and only then");
        assert!(first_visible, "transaction {n} returned before the change it saw was committed");
    }
    first.expect("the first write commits");
    let commits = unit_of_work.writer_commits().unwrap() - commits_before;
    assert!(commits < 8, "16 queued transactions took {commits} commits");
    assert!(customer_visible(&unit_of_work, &scope, 0));
}

/// SQLite: a transaction that panics in its batch takes the batch down with it (its half-done
/// changes cannot be told from the others'): no one's changes are committed without its caller
/// being told, and the writer goes on afterwards.
fn a_panicking_write_commits_nothing_of_its_batch() {
    let (_database, unit_of_work) = connect_sqlite_writer();
    let scope = account(unit_of_work.as_ref(), "acme");
    let scope_of_threads = scope.clone();
    let (first, outcomes) = queue_behind_a_slow_write(&unit_of_work, &scope, 8, move |unit_of_work, n| {
        in_transaction(unit_of_work, |r| {
            r.customers().insert(&customer(&scope_of_threads, n))?;
            assert_ne!(n, 4, "transaction 4 panics after its insert");
            Ok(())
        })
    });
    for (n, outcome) in (0..=8).zip(std::iter::once(Ok(first)).chain(outcomes)) {
        match outcome {
            Err(_) => assert_eq!(n, 4, "only transaction 4 panics"),
            Ok(Ok(())) => assert!(customer_visible(&unit_of_work, &scope, n), "customer {n} was committed"),
            Ok(Err(error)) => {
                assert!(matches!(error, ApplicationError::Unavailable(_)), "transaction {n}: {error:?}");
                assert!(!customer_visible(&unit_of_work, &scope, n), "customer {n} was rolled back");
            }
        }
    }
    assert!(!customer_visible(&unit_of_work, &scope, 4));
    in_transaction(unit_of_work.as_ref(), |r| Ok(r.customers().insert(&customer(&scope, 20))?)).unwrap();
    assert!(customer_visible(&unit_of_work, &scope, 20), "the writer goes on after the panic");
}

/// SQLite with its writer connection: commits leave their pages in the write-ahead log (no
/// automatic checkpoints), and `checkpoint` copies them into the database file.
fn checkpoints_copy_the_log_into_the_database_file() {
    let (database, unit_of_work) = connect_sqlite_writer();
    let unit_of_work = unit_of_work.as_ref();
    let scope = account(unit_of_work, "acme");
    for n in 0..300 {
        in_transaction(unit_of_work, |r| Ok(r.customers().insert(&customer(&scope, n))?)).unwrap();
    }
    let file = database.url().trim_start_matches("sqlite://").to_owned();
    let size = |path: &str| std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let (before, log) = (size(&file), size(&format!("{file}-wal")));
    assert!(log > before, "the commits are in the log ({log} bytes), not yet in the file ({before} bytes)");
    assert!(unit_of_work.upkeep().unwrap(), "SQLite has a log to checkpoint");
    let after = size(&file);
    assert!(after > before, "the file grew from {before} to {after} bytes");
    let page = reading(unit_of_work, |r| {
        Ok(r.customers().list(&scope, &CustomerFilter::default(), &PageRequest::new(Some(100), None, None).unwrap())?)
    })
    .unwrap();
    assert_eq!((page.data.len(), page.has_more), (100, true));
}
