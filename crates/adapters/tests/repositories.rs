//! Repository tests on both backends: each test runs once on a fresh SQLite file and once on a fresh
//! PostgreSQL database.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use payments_adapters::db::testing::TestDatabase;
use payments_adapters::db::{Backend, DatabaseUrl, DieselUnitOfWork, PoolSettings};
use payments_application::pagination::PageRequest;
use payments_application::ports::{
    in_transaction, reading, CustomerFilter, IdempotencyRecord, IdempotencyState, StoreError, UnitOfWork,
};
use payments_application::{ApplicationError, Caller, Scope};
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::customer::{BillingStatementPrefix, Customer, CustomerName, Email, NewCustomer};
use payments_domain::ids::{AccountId, CustomerId};
use payments_domain::money::Currency;
use payments_domain::time::Timestamp;
use std::sync::Arc;
use std::time::Duration;

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn sqlite() {
                super::$name(payments_adapters::db::Backend::Sqlite);
            }

            #[test]
            fn postgres() {
                super::$name(payments_adapters::db::Backend::Postgres);
            }
        }
    )*};
}

on_both_backends!(
    accounts_are_found_by_key_digest,
    customers_round_trip_and_stay_in_their_scope,
    a_stale_version_is_a_conflict,
    a_taken_statement_prefix_is_a_unique_violation,
    lists_page_newest_first_with_cursors,
    idempotency_keys_record_and_replay,
    concurrent_writers_all_commit,
);

struct Store {
    _database: TestDatabase,
    unit_of_work: Arc<DieselUnitOfWork>,
    scope: Scope,
}

fn store(backend: Backend) -> Store {
    let database = TestDatabase::new(backend);
    let url = DatabaseUrl::parse(database.url()).expect("test database URL");
    let pool = url
        .connect(PoolSettings { max_size: 4, connection_timeout: Duration::from_secs(5) })
        .expect("connect to the test database");
    let unit_of_work = Arc::new(DieselUnitOfWork::new(pool));
    let scope = Scope { account_id: AccountId::from_random("repositorytest"), mode: Mode::Test };
    insert_account(unit_of_work.as_ref(), &scope.account_id);
    Store { _database: database, unit_of_work, scope }
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

fn insert(store: &Store, customer: &Customer) -> Result<(), ApplicationError> {
    in_transaction(store.unit_of_work.as_ref(), |r| Ok(r.customers().insert(customer)?))
}

fn accounts_are_found_by_key_digest(backend: Backend) {
    let store = store(backend);
    let found = reading(store.unit_of_work.as_ref(), |r| {
        Ok((r.accounts().find_key(&format!("digest-{}", store.scope.account_id))?, r.accounts().find_key("nope")?))
    })
    .unwrap();
    let (found, missing) = found;
    let found = found.expect("the key is found");
    assert_eq!(
        (found.account_id, found.kind, found.mode),
        (store.scope.account_id.clone(), KeyKind::Secret, Mode::Test)
    );
    assert!(missing.is_none());
    assert_eq!(reading(store.unit_of_work.as_ref(), |r| Ok(r.accounts().count()?)).unwrap(), 1);
}

fn customers_round_trip_and_stay_in_their_scope(backend: Backend) {
    let store = store(backend);
    let mut original = customer(&store.scope, 1);
    original.metadata =
        Some(payments_domain::metadata::Metadata::new([("k".to_owned(), "v".to_owned())].into()).unwrap());
    original.billing = Some(payments_domain::customer::Billing { phone: Some("+63 2 1234".into()), address: None });
    insert(&store, &original).unwrap();
    let found = reading(store.unit_of_work.as_ref(), |r| Ok(r.customers().find(&store.scope, &original.id)?)).unwrap();
    assert_eq!(found, Some(original.clone()));
    let live = Scope { mode: Mode::Live, ..store.scope.clone() };
    let other = Scope { account_id: AccountId::from_random("other"), mode: Mode::Test };
    for scope in [live, other] {
        let found = reading(store.unit_of_work.as_ref(), |r| Ok(r.customers().find(&scope, &original.id)?)).unwrap();
        assert_eq!(found, None, "found from {scope:?}");
    }
}

fn a_stale_version_is_a_conflict(backend: Backend) {
    let store = store(backend);
    let mut customer = customer(&store.scope, 1);
    insert(&store, &customer).unwrap();
    customer.version = 2;
    in_transaction(store.unit_of_work.as_ref(), |r| Ok(r.customers().update(&customer, 1)?)).unwrap();
    customer.version = 3;
    let stale = in_transaction(store.unit_of_work.as_ref(), |r| Ok(r.customers().update(&customer, 1)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
}

fn a_taken_statement_prefix_is_a_unique_violation(backend: Backend) {
    let store = store(backend);
    let first = customer(&store.scope, 1);
    insert(&store, &first).unwrap();
    let mut second = customer(&store.scope, 2);
    second.billing_statement_prefix = first.billing_statement_prefix.clone();
    let outcome = in_transaction(store.unit_of_work.as_ref(), |r| {
        Ok(matches!(r.customers().insert(&second), Err(StoreError::UniqueViolation(_))))
    });
    assert!(outcome.unwrap(), "the unique index refuses a taken prefix");
    let in_use = reading(store.unit_of_work.as_ref(), |r| {
        Ok((
            r.customers().prefix_in_use(&store.scope, &first.billing_statement_prefix, None)?,
            r.customers().prefix_in_use(&store.scope, &first.billing_statement_prefix, Some(&first.id))?,
        ))
    })
    .unwrap();
    assert_eq!(in_use, (true, false));
}

fn lists_page_newest_first_with_cursors(backend: Backend) {
    let store = store(backend);
    let customers: Vec<Customer> = (1..=5).map(|n| customer(&store.scope, n)).collect();
    for customer in &customers {
        insert(&store, customer).unwrap();
    }
    let list = |page: PageRequest, filter: CustomerFilter| {
        reading(store.unit_of_work.as_ref(), |r| {
            r.customers().list(&store.scope, &filter, &page).map_err(|e| page.explain(e))
        })
    };
    let ids = |page: &payments_application::pagination::Page<Customer>| {
        page.data.iter().map(|c| c.id.to_string()).collect::<Vec<_>>()
    };
    let first = list(PageRequest::new(Some(2), None, None).unwrap(), CustomerFilter::default()).unwrap();
    assert_eq!(ids(&first), vec![customers[4].id.to_string(), customers[3].id.to_string()]);
    assert!(first.has_more);
    let last =
        list(PageRequest::new(Some(2), Some(customers[1].id.to_string()), None).unwrap(), CustomerFilter::default())
            .unwrap();
    assert_eq!(ids(&last), vec![customers[0].id.to_string()]);
    assert!(!last.has_more);
    let back =
        list(PageRequest::new(Some(2), None, Some(customers[1].id.to_string())).unwrap(), CustomerFilter::default())
            .unwrap();
    assert_eq!(ids(&back), vec![customers[3].id.to_string(), customers[2].id.to_string()]);
    assert!(back.has_more);
    let filtered = list(
        PageRequest::default(),
        CustomerFilter { email: Some("c3@example.com".into()), ..CustomerFilter::default() },
    )
    .unwrap();
    assert_eq!(ids(&filtered), vec![customers[2].id.to_string()]);
    let unknown = list(PageRequest::new(None, Some("cus_unknown".into()), None).unwrap(), CustomerFilter::default());
    assert!(matches!(unknown, Err(ApplicationError::Validation(_))), "{unknown:?}");
}

fn idempotency_keys_record_and_replay(backend: Backend) {
    let store = store(backend);
    let caller = Caller { scope: store.scope.clone(), key_kind: KeyKind::Secret };
    let record = IdempotencyRecord {
        caller: caller.clone(),
        key: "key-1".into(),
        fingerprint: "f".into(),
        state: IdempotencyState::InFlight,
        created_at: Timestamp::from_unix_seconds(100),
    };
    let uow = store.unit_of_work.as_ref();
    in_transaction(uow, |r| Ok(r.idempotency_keys().insert(&record)?)).unwrap();
    let again = in_transaction(uow, |r| {
        Ok(matches!(r.idempotency_keys().insert(&record), Err(StoreError::UniqueViolation(_))))
    });
    assert!(again.unwrap(), "a second insert of the key is a unique violation");
    in_transaction(uow, |r| Ok(r.idempotency_keys().complete(&caller, "key-1", 201, b"{\"a\":1}")?)).unwrap();
    let found = reading(uow, |r| Ok(r.idempotency_keys().find(&caller, "key-1")?)).unwrap().unwrap();
    assert_eq!(found.state, IdempotencyState::Completed { status: 201, body: b"{\"a\":1}".to_vec() });
    let purged =
        in_transaction(uow, |r| Ok(r.idempotency_keys().delete_created_before(Timestamp::from_unix_seconds(101))?));
    assert_eq!(purged.unwrap(), 1);
    assert!(reading(uow, |r| Ok(r.idempotency_keys().find(&caller, "key-1")?)).unwrap().is_none());
}

fn concurrent_writers_all_commit(backend: Backend) {
    let store = store(backend);
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let uow = store.unit_of_work.clone();
            let scope = store.scope.clone();
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
    let page = reading(store.unit_of_work.as_ref(), |r| {
        Ok(r.customers().list(
            &store.scope,
            &CustomerFilter::default(),
            &PageRequest::new(Some(100), None, None).unwrap(),
        )?)
    })
    .unwrap();
    assert_eq!(page.data.len(), 40);
}
