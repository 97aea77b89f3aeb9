//! The repository contract: what every implementation of the storage ports must do, written once and
//! run against the in-memory fakes and against diesel on SQLite and PostgreSQL (see
//! [`crate::repository_contract`]). Each check takes a fresh, empty store and panics on a breach.

#![allow(clippy::unwrap_used, clippy::missing_panics_doc)]

use crate::error::{ApplicationError, StoreError};
use crate::pagination::{MetadataMatch, Page, PageRequest};
use crate::ports::{
    in_transaction, reading, BillingStatementFilter, CheckoutSessionFilter, CustomerFilter, DeliveryAttempt,
    EventFilter, IdempotencyRecord, IdempotencyState, IntentOutcome, PassOver, PaymentFilter, PaymentIntentFilter,
    RequestLogFilter, UnitOfWork, WebhookFilter,
};
use crate::scope::{Caller, Scope};
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::billing_statement::{
    BillingStatement, BillingStatementStatus, Finalization, LineItem, LineItemChanges, StatementDetails,
};
use payments_domain::checkout_session::{
    BillingDetailsCollection, CheckoutSession, CheckoutSessionStatus, LineItem as CheckoutLineItem, NewCheckoutSession,
    SubmitType,
};
use payments_domain::console_session::{ConsoleSession, SessionToken};
use payments_domain::customer::{Billing, BillingStatementPrefix, Customer, CustomerName, Email, NewCustomer};
use payments_domain::customer_session::{Component, ComponentName, CustomerSession, Feature, Toggle};
use payments_domain::description::Description;
use payments_domain::event::{Event, EventType};
use payments_domain::ids::{AccountId, ClientSecret, CustomerId, DeliveryId, EventId, PaymentId, PaymentIntentId};
use payments_domain::ids::{BillingStatementId, BillingStatementLineItemId, MailMessageId};
use payments_domain::ids::{
    CheckoutSessionId, CheckoutSessionLineItemId, CustomerSessionId, PaymentMethodId, SetupIntentId,
};
use payments_domain::ids::{RefundId, RequestLogId, WebhookId};
use payments_domain::mail_message::{MailContent, MailMessage, MailOutcome, MailStatus};
use payments_domain::metadata::Metadata;
use payments_domain::money::{Amount, Currency};
use payments_domain::payment::{FeeRate, Payment, PaymentStatus};
use payments_domain::payment_intent::{
    Attempt, AuthorizationOutcome, CardOptions, NewPaymentIntent, PaymentIntent, PaymentIntentChanges,
    PaymentIntentStatus,
};
use payments_domain::payment_method::{
    CardSummary, Funding, PaymentMethod, PaymentMethodRecord, PaymentMethodType, Usage, VerifiedCard,
};
use payments_domain::pending_authorization::{Authorizing, Verdict};
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::refund::{NewRefund, RefundReason};
use payments_domain::request_log::{RequestLog, RequestSource, Retention, StatusRange};
use payments_domain::retry::RetrySchedule;
use payments_domain::setup_intent::{NewSetupIntent, PendingSetup, SetupIntent, SetupIntentStatus};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{
    DeliveryMove, DeliveryStatus, NewWebhook, StoredWebhook, Webhook, WebhookChanges, WebhookSecret, WebhookStatus,
    WebhookUrl,
};
use payments_domain::webhook_delivery::{AttemptOutcome, Delivery, EndpointHealth};
use std::any::Any;
use std::sync::Arc;

/// A store under test, with whatever keeps it alive (a temporary database).
pub struct ContractStore {
    unit_of_work: Arc<dyn UnitOfWork>,
    _keep: Box<dyn Any>,
}

impl ContractStore {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, keep: impl Any) -> Self {
        Self { unit_of_work, _keep: Box::new(keep) }
    }

    #[must_use]
    pub fn unit_of_work(&self) -> &dyn UnitOfWork {
        self.unit_of_work.as_ref()
    }
}

/// Declares one `#[test]` per check of the contract, each on a store made by `$make` (an expression
/// evaluated once per test, yielding a [`ContractStore`]).
#[macro_export]
macro_rules! repository_contract {
    ($make:expr) => {
        $crate::repository_contract!(@checks $make;
            accounts_are_found_by_key_digest,
            accounts_are_listed_and_their_objects_deleted_by_mode,
            deliveries_fall_due_at_the_time_given_not_the_events,
            failed_deliveries_are_requeued_from_the_time_they_failed,
            a_disabled_webhooks_recovered_deliveries_are_held_until_it_is_enabled,
            failed_attempts_are_those_the_domain_calls_undelivered,
            test_clocks_move_only_from_where_they_stand,
            customers_round_trip_and_stay_in_their_scope,
            a_stale_version_is_a_conflict,
            a_taken_statement_prefix_is_a_unique_violation,
            lists_page_newest_first_with_cursors_and_filters,
            idempotency_keys_record_and_replay_per_api_key,
            payment_intents_round_trip_and_are_found_by_redirect_token_and_due_time,
            payments_and_refunds_round_trip_with_versioned_updates,
            a_change_is_all_or_nothing,
            appended_events_reach_the_webhooks_that_listen_to_them,
            setup_intents_round_trip_and_are_found_by_redirect_token_and_due_time,
            saved_payment_methods_are_listed_per_customer_and_deleted,
            customer_sessions_round_trip_in_their_scope,
            events_are_appended_listed_and_counted,
            events_are_filtered_by_type_and_object,
            events_are_streamed_once_in_the_order_they_were_appended,
            webhooks_are_stored_listed_and_filtered,
            deliveries_are_leased_settled_and_moved,
            billing_statements_round_trip_with_their_line_items_and_filters,
            mail_messages_are_queued_claimed_and_listed,
            checkout_sessions_round_trip_and_are_found_by_intent_page_and_expiry,
            a_read_refuses_to_write,
            a_write_keeps_to_its_tenant,
            request_logs_are_listed_filtered_and_pruned,
            request_logs_keep_their_newest_entries_within_a_byte_cap,
            console_sessions_are_found_by_digest_touched_and_ended,
            payment_intents_are_listed_filtered_and_counted,
        );
    };
    (@checks $make:expr; $($check:ident),* $(,)?) => {$(
        #[test]
        fn $check() {
            let store: $crate::testing::contract::ContractStore = $make;
            $crate::testing::contract::$check(store.unit_of_work());
        }
    )*};
}

const NOW: i64 = 1_700_000_000;

fn at(offset: i64) -> Timestamp {
    Timestamp::from_unix_seconds(NOW + offset)
}

/// A test-mode scope of a new account (with one secret test key, digest `digest-<account id>`).
pub fn account(store: &dyn UnitOfWork, name: &str) -> Scope {
    let id = AccountId::from_random(name);
    let account = Account { id: id.clone(), name: name.into(), created_at: at(0) };
    let keys = vec![(format!("digest-{id}"), KeyKind::Secret, Mode::Test)];
    in_transaction(store, |r| Ok(r.accounts().insert(&account, &keys)?)).unwrap();
    Scope { account_id: id, mode: Mode::Test }
}

fn write<T>(
    store: &dyn UnitOfWork,
    work: impl FnOnce(&mut dyn crate::ports::Repositories) -> Result<T, StoreError>,
) -> T {
    in_transaction(store, |r| Ok(work(r)?)).unwrap()
}

/// Appends `events`, their deliveries due when the first of them happened.
fn appended(r: &mut dyn crate::ports::Repositories, events: &[Event]) -> Result<(), StoreError> {
    r.events().append(events, events.first().map_or(at(0), |event| event.created_at))
}

fn read<T>(
    store: &dyn UnitOfWork,
    work: impl FnOnce(&mut dyn crate::ports::Repositories) -> Result<T, StoreError>,
) -> T {
    reading(store, |r| Ok(work(r)?)).unwrap()
}

fn ids<T>(page: &Page<T>, id: impl Fn(&T) -> String) -> Vec<String> {
    page.data.iter().map(id).collect()
}

/// Customer number `n` of `scope`, not yet stored (statement prefix `P000n`).
#[must_use]
pub fn customer(scope: &Scope, n: u32) -> Customer {
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
        CustomerId::from_random(&format!("c{n}{}", scope.account_id.as_str().len())),
        scope.account_id.clone(),
        scope.livemode(),
        new,
        BillingStatementPrefix::new(format!("P{n:04}")).unwrap(),
        at(0),
    )
}

fn metadata(pairs: &[(&str, &str)]) -> Metadata {
    Metadata::new(pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()).unwrap()
}

pub fn accounts_are_found_by_key_digest(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let digest = format!("digest-{}", scope.account_id);
    let (found, missing, count) =
        read(store, |r| Ok((r.accounts().find_key(&digest)?, r.accounts().find_key("nope")?, r.accounts().count()?)));
    let found = found.expect("the key is found");
    assert_eq!((found.account_id, found.kind, found.mode), (scope.account_id, KeyKind::Secret, Mode::Test));
    assert!(missing.is_none());
    assert_eq!(count, 1);
}

/// Accounts list in id order; deleting an account's test data leaves its live mode, keys and
/// other accounts; deleting the account takes everything of it.
pub fn accounts_are_listed_and_their_objects_deleted_by_mode(store: &dyn UnitOfWork) {
    let test = account(store, "acme");
    let live = Scope { account_id: test.account_id.clone(), mode: Mode::Live };
    let other = account(store, "other");
    let hook = webhook(&test, 1, vec![EventType::PaymentPaid]);
    write(store, |r| {
        r.customers().insert(&customer(&test, 1))?;
        r.customers().insert(&customer(&live, 2))?;
        r.customers().insert(&customer(&other, 3))?;
        r.webhooks().insert(&hook)?;
        r.payment_intents().insert(&new_intent(&test, 1))?;
        appended(r, &[event(&test, 1, 1)])
    });
    let listed = read(store, |r| r.accounts().list(None, 10));
    let mut expected = vec![test.account_id.clone(), other.account_id.clone()];
    expected.sort();
    assert_eq!(listed.iter().map(|a| a.id.clone()).collect::<Vec<_>>(), expected);
    assert_eq!(read(store, |r| r.accounts().list(Some(&expected[0]), 10)).len(), 1, "after a cursor");
    assert!(read(store, |r| r.accounts().has_test_data(&test.account_id)));
    assert!(write(store, |r| r.accounts().move_test_clock(&test.account_id, 0, 60_000)));

    let deleted = write(store, |r| r.accounts().delete_test_data(&test.account_id));
    let count = |name: &str| deleted.iter().find(|(table, _)| *table == name).map(|(_, n)| *n);
    assert_eq!(
        (count("customers"), count("payment_intents"), count("events"), count("webhooks")),
        (Some(1), Some(1), Some(1), Some(1))
    );
    assert_eq!(count("webhook_deliveries"), Some(1), "{deleted:?}");
    assert!(!read(store, |r| r.accounts().has_test_data(&test.account_id)));
    assert_eq!(read(store, |r| r.accounts().test_clock_offset(&test.account_id)), 0);
    assert!(read(store, |r| r.customers().find(&test, &customer(&test, 1).id)).is_none());
    assert!(read(store, |r| r.customers().find(&live, &customer(&live, 2).id)).is_some());
    assert!(read(store, |r| r.accounts().find_key(&format!("digest-{}", test.account_id))).is_some());

    assert!(write(store, |r| r.accounts().delete(&test.account_id)));
    assert!(read(store, |r| r.accounts().find(&test.account_id)).is_none());
    assert!(read(store, |r| r.accounts().find_key(&format!("digest-{}", test.account_id))).is_none());
    assert!(read(store, |r| r.customers().find(&live, &customer(&live, 2).id)).is_none());
    assert!(read(store, |r| r.customers().find(&other, &customer(&other, 3).id)).is_some(), "another account stays");
    assert!(!write(store, |r| r.accounts().delete(&test.account_id)), "an unknown account");
}

pub fn test_clocks_move_only_from_where_they_stand(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let other = account(store, "other");
    let offset = |scope: &Scope| read(store, |r| r.accounts().test_clock_offset(&scope.account_id));
    let moved = |after: Option<&AccountId>| read(store, |r| r.accounts().with_moved_test_clock(after, 10));
    assert_eq!((offset(&scope), offset(&other)), (0, 0), "a clock starts at real time");
    assert_eq!(moved(None), vec![]);
    assert!(write(store, |r| r.accounts().move_test_clock(&scope.account_id, 0, 5_000)));
    assert!(!write(store, |r| r.accounts().move_test_clock(&scope.account_id, 0, 9_000)), "it no longer stands at 0");
    assert_eq!((offset(&scope), offset(&other)), (5_000, 0), "only its own account's clock moved");
    assert!(write(store, |r| r.accounts().move_test_clock(&other.account_id, 0, 1_000)));
    let mut both = vec![scope.account_id.clone(), other.account_id.clone()];
    both.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    assert_eq!(moved(None), both);
    assert_eq!(moved(Some(&both[0])), vec![both[1].clone()], "after an account, in id order");
    let unknown = AccountId::from_random("nobody");
    assert_eq!(read(store, |r| r.accounts().test_clock_offset(&unknown)), 0);
    assert!(!write(store, |r| r.accounts().move_test_clock(&unknown, 0, 1_000)), "no account, no clock");
}

pub fn customers_round_trip_and_stay_in_their_scope(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut original = customer(&scope, 1);
    original.metadata = Some(metadata(&[("k", "v")]));
    original.billing = Some(Billing { phone: Some("+63 2 1234".into()), address: None });
    write(store, |r| r.customers().insert(&original));
    assert_eq!(read(store, |r| r.customers().find(&scope, &original.id)), Some(original.clone()));
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "other");
    for elsewhere in [live, other] {
        assert_eq!(read(store, |r| r.customers().find(&elsewhere, &original.id)), None, "from {elsewhere:?}");
    }
}

pub fn a_stale_version_is_a_conflict(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut customer = customer(&scope, 1);
    write(store, |r| r.customers().insert(&customer));
    customer.version = 2;
    write(store, |r| r.customers().update(&customer, 1));
    customer.version = 3;
    let stale = in_transaction(store, |r| Ok(r.customers().update(&customer, 1)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
}

pub fn a_taken_statement_prefix_is_a_unique_violation(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let first = customer(&scope, 1);
    write(store, |r| r.customers().insert(&first));
    let mut second = customer(&scope, 2);
    second.billing_statement_prefix = first.billing_statement_prefix.clone();
    let refused = write(store, |r| Ok(matches!(r.customers().insert(&second), Err(StoreError::UniqueViolation(_)))));
    assert!(refused, "a taken prefix is refused");
    let prefix = &first.billing_statement_prefix;
    let in_use = read(store, |r| {
        Ok((
            r.customers().prefix_in_use(&scope, prefix, None)?,
            r.customers().prefix_in_use(&scope, prefix, Some(&first.id))?,
        ))
    });
    assert_eq!(in_use, (true, false));
}

pub fn lists_page_newest_first_with_cursors_and_filters(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let customers: Vec<Customer> = (1..=5)
        .map(|n| {
            let mut customer = customer(&scope, n);
            customer.metadata = Some(metadata(&[("tier", if n % 2 == 0 { "gold" } else { "plain" })]));
            customer
        })
        .collect();
    for customer in &customers {
        write(store, |r| r.customers().insert(customer));
    }
    let list = |page: PageRequest, filter: CustomerFilter| {
        reading(store, |r| r.customers().list(&scope, &filter, &page).map_err(|e| page.explain(e)))
    };
    let id = |c: &Customer| c.id.to_string();
    let all = CustomerFilter::default;
    let first = list(PageRequest::new(Some(2), None, None).unwrap(), all()).unwrap();
    assert_eq!((ids(&first, id), first.has_more), (vec![id(&customers[4]), id(&customers[3])], true));
    let last = list(PageRequest::new(Some(2), Some(id(&customers[1])), None).unwrap(), all()).unwrap();
    assert_eq!((ids(&last, id), last.has_more), (vec![id(&customers[0])], false));
    let back = list(PageRequest::new(Some(2), None, Some(id(&customers[1]))).unwrap(), all()).unwrap();
    assert_eq!((ids(&back, id), back.has_more), (vec![id(&customers[3]), id(&customers[2])], true));
    let by_email = CustomerFilter { email: Some("c3@example.com".into()), ..all() };
    assert_eq!(ids(&list(PageRequest::default(), by_email).unwrap(), id), vec![id(&customers[2])]);
    let gold = MetadataMatch { key: "tier".into(), value: Some("gold".into()) };
    let by_pair = CustomerFilter { metadata: vec![gold], ..all() };
    assert_eq!(ids(&list(PageRequest::default(), by_pair).unwrap(), id), vec![id(&customers[3]), id(&customers[1])]);
    let by_key = CustomerFilter { metadata: vec![MetadataMatch { key: "tier".into(), value: None }], ..all() };
    assert_eq!(list(PageRequest::default(), by_key).unwrap().data.len(), 5);
    let unknown = list(PageRequest::new(None, Some("cus_unknown".into()), None).unwrap(), all());
    assert!(matches!(unknown, Err(ApplicationError::Validation(_))), "{unknown:?}");
}

pub fn idempotency_keys_record_and_replay_per_api_key(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let secret = Caller { scope: scope.clone(), key_kind: KeyKind::Secret };
    let public = Caller { scope, key_kind: KeyKind::Public };
    let record = |caller: &Caller| IdempotencyRecord {
        caller: caller.clone(),
        key: "key-1".into(),
        fingerprint: "f".into(),
        state: IdempotencyState::InFlight,
        created_at: at(100),
    };
    write(store, |r| r.idempotency_keys().insert(&record(&secret)));
    let again = write(store, |r| {
        Ok(matches!(r.idempotency_keys().insert(&record(&secret)), Err(StoreError::UniqueViolation(_))))
    });
    assert!(again, "a second insert of the key is a unique violation");
    write(store, |r| r.idempotency_keys().insert(&record(&public)));
    write(store, |r| r.idempotency_keys().complete(&secret, "key-1", 201, b"{\"a\":1}"));
    let found = read(store, |r| r.idempotency_keys().find(&secret, "key-1")).unwrap();
    assert_eq!(found.state, IdempotencyState::Completed { status: 201, body: b"{\"a\":1}".to_vec() });
    let other_key = read(store, |r| r.idempotency_keys().find(&public, "key-1")).unwrap();
    assert_eq!(other_key.state, IdempotencyState::InFlight, "the public key's record is its own");
    write(store, |r| r.idempotency_keys().delete(&public, "key-1"));
    assert_eq!(write(store, |r| r.idempotency_keys().delete_created_before(at(101))), 1);
    assert!(read(store, |r| r.idempotency_keys().find(&secret, "key-1")).is_none());
}

/// Payment intent number `n` of `scope`, awaiting a payment method.
#[must_use]
pub fn new_intent(scope: &Scope, n: u32) -> PaymentIntent {
    new_intent_at(scope, n, 0)
}

/// As [`new_intent`], created at `offset` seconds.
#[must_use]
pub fn new_intent_at(scope: &Scope, n: u32, offset: i64) -> PaymentIntent {
    let id = PaymentIntentId::from_random(&format!("intent{n}"));
    let new = NewPaymentIntent {
        amount: Amount::new(10_000).unwrap(),
        currency: Currency::Php,
        payment_methods: vec![PaymentMethodType::Card, PaymentMethodType::Gcash],
        statement_descriptor: None,
        description: Some(Description::new("Order 1".into()).unwrap()),
        metadata: Some(metadata(&[("order", "1")])),
        customer_id: None,
        return_url: Some(RedirectUrl::new("https://shop.example/done".into()).unwrap()),
        card_options: CardOptions::default(),
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    PaymentIntent::create(id, scope.account_id.clone(), scope.livemode(), secret, new, at(offset))
}

fn gcash_attempt(n: u32) -> Attempt {
    Attempt {
        payment_method_id: format!("pm_{n}"),
        payment_method: PaymentMethodRecord { method: PaymentMethodType::Gcash, card: None, qrph: None },
        billing: None,
    }
}

pub fn payment_intents_round_trip_and_are_found_by_redirect_token_and_due_time(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut intent = new_intent(&scope, 1);
    write(store, |r| r.payment_intents().insert(&intent));
    assert_eq!(read(store, |r| r.payment_intents().find(&scope, intent.id())), Some(intent.clone()));
    assert_eq!(read(store, |r| r.payment_intents().due(None, at(3_600), 10)), vec![], "nothing is due");

    let version = intent.version();
    let redirect = Some(("token1".to_owned(), "http://127.0.0.1/test/authorize/token1".to_owned()));
    intent.record_attempt(gcash_attempt(1), AuthorizationOutcome::RedirectRequired, redirect, None, at(10)).unwrap();
    write(store, |r| r.payment_intents().update(&intent, version));
    let stale = in_transaction(store, |r| Ok(r.payment_intents().update(&intent, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    assert_eq!(read(store, |r| r.payment_intents().find_by_redirect_token("token1")), Some(intent.clone()));
    assert_eq!(read(store, |r| r.payment_intents().find_by_redirect_token("other")), None);
    let due_at = intent.action_due_at().unwrap();
    assert!(read(store, |r| r.payment_intents().due(None, due_at.plus_seconds(-1), 10)).is_empty());
    assert_eq!(
        read(store, |r| r.payment_intents().due(None, due_at, 10)),
        vec![intent.clone()],
        "the redirect expires"
    );
    assert_eq!(
        read(store, |r| r.payment_intents().due(Some(&scope), due_at, 10)),
        vec![intent.clone()],
        "in its scope"
    );
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "bystander");
    assert!(read(store, |r| r.payment_intents().due(Some(&live), due_at, 10)).is_empty(), "not in live mode");
    assert!(read(store, |r| r.payment_intents().due(Some(&other), due_at, 10)).is_empty(), "not in another account");

    let version = intent.version();
    intent.complete_redirect(&Verdict::Decline(None), at(20)).unwrap();
    write(store, |r| r.payment_intents().update(&intent, version));
    let after_use = read(store, |r| r.payment_intents().find_by_redirect_token("token1")).unwrap();
    assert_eq!(after_use.status(), PaymentIntentStatus::AwaitingPaymentMethod);
    assert!(after_use.pending().is_none(), "a used page still finds its intent, with nothing pending");
    assert!(read(store, |r| r.payment_intents().due(None, at(100_000), 10)).is_empty(), "no action is due");
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.payment_intents().find(&elsewhere, intent.id())), None);
}

pub fn payments_and_refunds_round_trip_with_versioned_updates(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let intent = new_intent(&scope, 1);
    write(store, |r| r.payment_intents().insert(&intent));
    let rate = FeeRate { basis_points: 230, fixed: 0 };
    let mut payment = Payment::paid(PaymentId::from_random("pay1"), &intent, 10_000, gcash_attempt(1), rate, at(5));
    write(store, |r| r.payments().insert(&payment));
    assert_eq!(read(store, |r| r.payments().find(&scope, payment.id())), Some(payment.clone()));

    let version = payment.version();
    let new = NewRefund {
        amount: 2_500,
        currency: Currency::Php,
        payment_id: payment.id().to_string(),
        reason: RefundReason::RequestedByCustomer,
        description: Some(Description::new("Returned".into()).unwrap()),
        remarks: None,
        metadata: None,
    };
    let mut refund = payment.refund(RefundId::from_random("re1"), new, at(6)).unwrap();
    write(store, |r| {
        r.payments().update(&payment, version)?;
        r.refunds().insert(&refund)
    });
    let stale = in_transaction(store, |r| Ok(r.payments().update(&payment, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.payments().find(&scope, payment.id())).unwrap();
    assert_eq!((stored.amount_refunded(), stored.refunded()), (2_500, true));
    assert_eq!(read(store, |r| r.refunds().find(&scope, refund.id())), Some(refund.clone()));

    let version = refund.version();
    refund.update(Some(metadata(&[("ticket", "7")])), at(7));
    write(store, |r| r.refunds().update(&refund, version));
    assert_eq!(read(store, |r| r.refunds().find(&scope, refund.id())), Some(refund.clone()));
    let stale = in_transaction(store, |r| Ok(r.refunds().update(&refund, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.payments().find(&elsewhere, payment.id())), None);
    assert_eq!(read(store, |r| r.refunds().find(&elsewhere, refund.id())), None);

    // An intent's payments, and a payment's refunds, oldest first and in their scope only.
    let other_intent = new_intent(&scope, 2);
    write(store, |r| r.payment_intents().insert(&other_intent));
    let other = Payment::paid(PaymentId::from_random("pay2"), &other_intent, 10_000, gcash_attempt(2), rate, at(8));
    write(store, |r| r.payments().insert(&other));
    let payment = read(store, |r| r.payments().find(&scope, payment.id())).unwrap();
    assert_eq!(read(store, |r| r.payments().of_intent(&scope, intent.id())), vec![payment.clone()]);
    assert_eq!(read(store, |r| r.payments().of_intent(&scope, other_intent.id())), vec![other.clone()]);
    assert_eq!(
        read(store, |r| r.refunds().of_payments(&scope, std::slice::from_ref(payment.id()))),
        vec![refund.clone()]
    );
    assert!(read(store, |r| r.payments().of_intent(&elsewhere, intent.id())).is_empty());
    assert!(read(store, |r| r.refunds().of_payments(&elsewhere, std::slice::from_ref(payment.id()))).is_empty());
    assert!(read(store, |r| r.refunds().of_payments(&scope, &[PaymentId::from_random("none")])).is_empty());
    assert!(read(store, |r| r.refunds().of_payments(&scope, &[])).is_empty());

    // Lists, newest first, in their scope; payments by status.
    let id = |p: &Payment| p.id().to_string();
    let listed = read(store, |r| r.payments().list(&scope, &PaymentFilter::default(), &PageRequest::default()));
    assert_eq!(ids(&listed, id), vec![id(&other), id(&payment)]);
    let failed = PaymentFilter { status: Some(PaymentStatus::Failed) };
    assert!(read(store, |r| r.payments().list(&scope, &failed, &PageRequest::default())).data.is_empty());
    let older = PageRequest::new(Some(1), Some(id(&other)), None).unwrap();
    assert_eq!(
        ids(&read(store, |r| r.payments().list(&scope, &PaymentFilter::default(), &older)), id),
        vec![id(&payment)]
    );
    assert!(read(store, |r| r.payments().list(&elsewhere, &PaymentFilter::default(), &PageRequest::default()))
        .data
        .is_empty());
    let refunds = read(store, |r| r.refunds().list(&scope, &PageRequest::default()));
    assert_eq!(refunds.data, vec![refund.clone()]);
    assert!(read(store, |r| r.refunds().list(&elsewhere, &PageRequest::default())).data.is_empty());
    let unknown = PageRequest::new(None, Some("re_none".into()), None).unwrap();
    let refused = reading(store, |r| r.refunds().list(&scope, &unknown).map_err(|e| unknown.explain(e)));
    assert!(matches!(refused, Err(ApplicationError::Validation(_))), "{refused:?}");
}

fn verified_card() -> VerifiedCard {
    VerifiedCard {
        card: CardSummary {
            brand: "visa".into(),
            first6: "424242".into(),
            last4: "4242".into(),
            exp_month: 12,
            exp_year: 2040,
            funding: Funding::Credit,
        },
        billing: None,
        processor_reference: "approve".into(),
    }
}

/// A change's writes (a payment, its intent's versioned update, two events and their deliveries)
/// are stored whole; with a stale version, the conflict undoes the writes before it and after it,
/// wherever the store reports it. (The stale change's payment is a failed one: a second paid payment
/// of the intent would be refused by its own unique index, which would hide a missing version check.)
pub fn a_change_is_all_or_nothing(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let hook = webhook(&scope, 1, vec![EventType::PaymentPaid]);
    write(store, |r| r.webhooks().insert(&hook));
    let mut intent = new_intent(&scope, 1);
    write(store, |r| r.payment_intents().insert(&intent));
    let change = |n: u32, payment: &Payment, intent: &PaymentIntent, version: i64| {
        let events = [event(&scope, 2 * n, 1), event(&scope, 2 * n + 1, 1)];
        let outcome = in_transaction(store, |r| {
            r.payments().insert(payment)?;
            r.payment_intents().update(intent, version)?;
            Ok(appended(r, &events)?)
        });
        (outcome, events)
    };

    let version = intent.version();
    intent.record_attempt(gcash_attempt(1), AuthorizationOutcome::Approved, None, None, at(5)).unwrap();
    let rate = FeeRate { basis_points: 230, fixed: 0 };
    let paid = Payment::paid(PaymentId::from_random("pay1"), &intent, 10_000, gcash_attempt(1), rate, at(5));
    let (stored, events) = change(1, &paid, &intent, version);
    stored.unwrap();
    assert_eq!(read(store, |r| r.payment_intents().find(&scope, intent.id())), Some(intent.clone()));
    assert_eq!(read(store, |r| r.payments().find(&scope, paid.id())), Some(paid));
    assert_eq!(read(store, |r| r.events().find_many(&[events[0].id.clone(), events[1].id.clone()])).len(), 2);
    assert_eq!(read(store, |r| r.deliveries().backlog()).pending, 2, "each event to the one webhook");

    let failed = Payment::failed(PaymentId::from_random("pay2"), &intent, gcash_attempt(2), at(6));
    let (stale, events) = change(2, &failed, &intent, version);
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    assert_eq!(read(store, |r| r.payments().find(&scope, failed.id())), None, "the write before it is undone");
    assert!(read(store, |r| r.events().find_many(&[events[0].id.clone(), events[1].id.clone()])).is_empty());
    assert_eq!(read(store, |r| r.deliveries().backlog()).pending, 2, "no delivery was added");
}

/// An event appended reaches every enabled webhook of its account and mode that lists its type, and
/// no other; webhooks written in the same change count.
pub fn appended_events_reach_the_webhooks_that_listen_to_them(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let listening = webhook(&scope, 1, vec![EventType::RefundCreated, EventType::PaymentPaid]);
    let other_type = webhook(&scope, 2, vec![EventType::RefundCreated]);
    let mut disabled = webhook(&scope, 3, vec![EventType::PaymentPaid]);
    let _paused = disabled.disable(at(1));
    let live = webhook(&Scope { mode: Mode::Live, ..scope.clone() }, 4, vec![EventType::PaymentPaid]);
    let other_account = webhook(&account(store, "other"), 5, vec![EventType::PaymentPaid]);
    write(store, |r| {
        for hook in [&other_type, &disabled, &live, &other_account] {
            r.webhooks().insert(hook)?;
        }
        Ok(())
    });
    let events = [event(&scope, 1, 1), event(&scope, 2, 1)];
    write(store, |r| {
        r.webhooks().insert(&listening)?;
        appended(r, &events)
    });
    let due = read(store, |r| r.deliveries().due(at(10), 10, &PassOver::default()));
    let mut reached: Vec<(&str, &str)> = due.iter().map(|d| (d.webhook_id().as_str(), d.event_id().as_str())).collect();
    reached.sort_unstable();
    let mut expected: Vec<(&str, &str)> = events.iter().map(|e| (listening.id().as_str(), e.id.as_str())).collect();
    expected.sort_unstable();
    assert_eq!(reached, expected, "only the enabled webhook of the scope that lists the type");
    assert!(due
        .iter()
        .all(|d| d.next_attempt_at() == events[0].created_at || d.next_attempt_at() == events[1].created_at));
}

pub fn setup_intents_round_trip_and_are_found_by_redirect_token_and_due_time(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let customer = customer(&scope, 1);
    let id = SetupIntentId::from_random("setup1");
    let new = NewSetupIntent {
        customer_id: customer.id.clone(),
        payment_methods: vec![PaymentMethodType::Card],
        usage: Usage::OffSession,
        description: Some(Description::new("Card on file".into()).unwrap()),
        metadata: Some(metadata(&[("plan", "gold")])),
        return_url: Some(RedirectUrl::new("https://shop.example/saved".into()).unwrap()),
        card_options: CardOptions::default(),
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    let mut intent = SetupIntent::create(id, scope.account_id.clone(), scope.livemode(), secret, new, at(0));
    write(store, |r| {
        r.customers().insert(&customer)?;
        r.setup_intents().insert(&intent)
    });
    assert_eq!(read(store, |r| r.setup_intents().find(&scope, intent.id())), Some(intent.clone()));
    let version = intent.version();
    let pending = PendingSetup { payment_method_id: PaymentMethodId::from_random("saved1"), verified: verified_card() };
    let redirect = Some(("token1".to_owned(), "http://127.0.0.1/test/authorize/token1".to_owned()));
    intent.record_verification(pending, AuthorizationOutcome::RedirectRequired, redirect, None, at(10)).unwrap();
    write(store, |r| r.setup_intents().update(&intent, version));
    let stale = in_transaction(store, |r| Ok(r.setup_intents().update(&intent, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    assert_eq!(read(store, |r| r.setup_intents().find(&scope, intent.id())), Some(intent.clone()), "pending kept");
    assert_eq!(read(store, |r| r.setup_intents().find_by_redirect_token("token1")), Some(intent.clone()));
    let due_at = intent.action_due_at().unwrap();
    assert!(read(store, |r| r.setup_intents().due(None, due_at.plus_seconds(-1), 10)).is_empty());
    assert_eq!(read(store, |r| r.setup_intents().due(None, due_at, 10)), vec![intent.clone()]);
    assert_eq!(read(store, |r| r.setup_intents().due(Some(&scope), due_at, 10)), vec![intent.clone()]);
    let elsewhere = account(store, "bystander");
    assert!(read(store, |r| r.setup_intents().due(Some(&elsewhere), due_at, 10)).is_empty(), "not elsewhere");
    let version = intent.version();
    intent.complete_redirect(&Verdict::Approve, at(20)).unwrap();
    write(store, |r| r.setup_intents().update(&intent, version));
    let stored = read(store, |r| r.setup_intents().find_by_redirect_token("token1")).unwrap();
    assert_eq!((stored.status(), stored.pending()), (SetupIntentStatus::Succeeded, None));
    assert!(read(store, |r| r.setup_intents().due(None, at(100_000), 10)).is_empty(), "nothing is due");
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.setup_intents().find(&elsewhere, intent.id())), None);
}

pub fn saved_payment_methods_are_listed_per_customer_and_deleted(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (first_customer, second_customer) = (customer(&scope, 1), customer(&scope, 2));
    let method = |n: u32, customer: &Customer| PaymentMethod {
        id: PaymentMethodId::from_random(&format!("saved{n}")),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        customer_id: customer.id.clone(),
        verified: verified_card(),
        usage: Usage::OnSession,
        created_at: at(i64::from(n)),
        updated_at: at(i64::from(n)),
    };
    let methods = [method(1, &first_customer), method(2, &second_customer), method(3, &first_customer)];
    write(store, |r| {
        r.customers().insert(&first_customer)?;
        r.customers().insert(&second_customer)?;
        methods.iter().try_for_each(|m| r.payment_methods().insert(m))
    });
    assert_eq!(read(store, |r| r.payment_methods().find(&scope, &methods[0].id)), Some(methods[0].clone()));
    let id = |m: &PaymentMethod| m.id.to_string();
    let list = |page: PageRequest| read(store, |r| r.payment_methods().list(&scope, &first_customer.id, &page));
    assert_eq!(
        ids(&list(PageRequest::default()), id),
        vec![id(&methods[2]), id(&methods[0])],
        "the customer's, newest first"
    );
    let older = list(PageRequest::new(Some(1), Some(id(&methods[2])), None).unwrap());
    assert_eq!((ids(&older, id), older.has_more), (vec![id(&methods[0])], false));
    let other = PageRequest::new(None, Some(id(&methods[1])), None).unwrap();
    let unknown =
        reading(store, |r| r.payment_methods().list(&scope, &first_customer.id, &other).map_err(|e| other.explain(e)));
    assert!(
        matches!(unknown, Err(ApplicationError::Validation(_))),
        "another customer's method is no cursor: {unknown:?}"
    );
    assert!(write(store, |r| r.payment_methods().delete(&scope, &methods[0].id)), "deleted by this call");
    assert!(!write(store, |r| r.payment_methods().delete(&scope, &methods[0].id)), "already gone");
    assert_eq!(read(store, |r| r.payment_methods().find(&scope, &methods[0].id)), None);
    assert_eq!(ids(&list(PageRequest::default()), id), vec![id(&methods[2])]);
    let elsewhere = account(store, "other");
    write(store, |r| r.payment_methods().delete(&elsewhere, &methods[2].id));
    assert_eq!(
        read(store, |r| r.payment_methods().find(&scope, &methods[2].id)),
        Some(methods[2].clone()),
        "not deleted from another account"
    );
    assert_eq!(read(store, |r| r.payment_methods().find(&elsewhere, &methods[2].id)), None);
    assert_eq!(write(store, |r| r.payment_methods().delete_for_customer(&elsewhere, &first_customer.id)), 0);
    assert_eq!(write(store, |r| r.payment_methods().delete_for_customer(&scope, &first_customer.id)), 1);
    assert_eq!(
        read(store, |r| r.payment_methods().find(&scope, &methods[1].id)),
        Some(methods[1].clone()),
        "the other customer's stays"
    );
}

pub fn customer_sessions_round_trip_in_their_scope(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let customer = customer(&scope, 1);
    let id = CustomerSessionId::from_random("session1");
    let secret = ClientSecret::new(id.as_str(), "secret");
    let components = vec![Component {
        component: ComponentName::PaymentElement,
        feature: Feature::PaymentMethodRemove,
        value: Toggle::Enabled,
    }];
    let session = CustomerSession::create(
        id,
        scope.account_id.clone(),
        scope.livemode(),
        secret,
        customer.id.clone(),
        components,
        at(0),
    );
    write(store, |r| {
        r.customers().insert(&customer)?;
        r.customer_sessions().insert(&session)
    });
    assert_eq!(read(store, |r| r.customer_sessions().find(&scope, &session.id)), Some(session.clone()));
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "other");
    for elsewhere in [live, other] {
        assert_eq!(read(store, |r| r.customer_sessions().find(&elsewhere, &session.id)), None, "from {elsewhere:?}");
        assert!(read(store, |r| r.customer_sessions().of_customer(&elsewhere, &customer.id, 10)).is_empty());
    }
    let second_id = CustomerSessionId::from_random("session2");
    let second = CustomerSession::create(
        second_id.clone(),
        scope.account_id.clone(),
        scope.livemode(),
        ClientSecret::new(second_id.as_str(), "secret"),
        customer.id.clone(),
        session.components.clone(),
        at(1),
    );
    write(store, |r| r.customer_sessions().insert(&second));
    let of_customer = read(store, |r| r.customer_sessions().of_customer(&scope, &customer.id, 10));
    assert_eq!(of_customer, vec![second.clone(), session.clone()], "newest first");
    assert_eq!(read(store, |r| r.customer_sessions().of_customer(&scope, &customer.id, 1)), vec![second]);
}

/// Event number `n` of `scope`, waiting for `pending_webhooks`.
#[must_use]
pub fn event(scope: &Scope, n: u32, pending_webhooks: i64) -> Event {
    Event {
        id: EventId::from_random(&format!("event{n}")),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        event_type: EventType::PaymentPaid,
        object_id: format!("pay_object{n}"),
        pending_webhooks,
        created_at: at(i64::from(n)),
        body: format!(r#"{{"id":"evt_event{n}","resource":"event"}}"#),
    }
}

/// An event of a moved test clock happens in the clock's time; its deliveries fall due at the real
/// time the append names.
pub fn deliveries_fall_due_at_the_time_given_not_the_events(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    write(store, |r| r.webhooks().insert(&webhook(&scope, 1, vec![EventType::PaymentPaid])));
    let ahead = event(&scope, 86_400, 1);
    write(store, |r| r.events().append(std::slice::from_ref(&ahead), at(5)));
    let everything = PassOver::default();
    let due = read(store, |r| r.deliveries().due(at(5), 10, &everything));
    assert_eq!(due.iter().map(|d| (d.event_id(), d.next_attempt_at())).collect::<Vec<_>>(), vec![(&ahead.id, at(5))]);
}

pub fn events_are_appended_listed_and_counted(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let events: Vec<Event> = (1..=3).map(|n| event(&scope, n, 2)).collect();
    let hooks = [webhook(&scope, 1, vec![EventType::PaymentPaid]), webhook(&scope, 2, vec![EventType::PaymentPaid])];
    write(store, |r| {
        r.webhooks().insert(&hooks[0])?;
        r.webhooks().insert(&hooks[1])?;
        appended(r, &events[..1])
    });
    // Several appended in one statement keep their order.
    write(store, |r| appended(r, &events[1..]));
    assert_eq!(read(store, |r| r.events().find(&scope, &events[0].id)), Some(events[0].clone()), "to both webhooks");
    // The count read back is that of the deliveries outstanding now.
    let pending =
        |store: &dyn UnitOfWork| read(store, |r| r.events().find(&scope, &events[0].id)).unwrap().pending_webhooks;
    let due = read(store, |r| r.deliveries().due(at(10), 10, &PassOver::default()));
    let mut delivered =
        due.into_iter().find(|d| d.event_id() == &events[0].id && d.webhook_id() == hooks[0].id()).unwrap();
    let ok = AttemptOutcome { status_code: Some(200), error: None, duration_ms: 1, response_excerpt: None };
    let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };
    delivered.record(&ok, &schedule, at(2), 0.0);
    assert_eq!(
        write(store, |r| r.deliveries().claim(std::slice::from_ref(delivered.id()), "a", at(2), at(30))).len(),
        1
    );
    assert!(write(store, |r| r.deliveries().settle(&delivered, "a")));
    assert_eq!(pending(store), 1, "one of two delivered");
    let paused = hooks[1].clone().disable(at(3));
    write(store, |r| r.deliveries().move_all(&hooks[1], &paused));
    assert_eq!(pending(store), 1, "a paused delivery is still outstanding");
    for change in hooks[1].deletion() {
        write(store, |r| r.deliveries().move_all(&hooks[1], &change));
    }
    assert_eq!(pending(store), 0, "a canceled one is not");
    let all = EventFilter::default();
    let listed = read(store, |r| r.events().list(&scope, &all, &PageRequest::default()));
    assert_eq!(listed.data.iter().map(|e| e.pending_webhooks).collect::<Vec<_>>(), vec![1, 1, 0], "newest first");
    assert_eq!(read(store, |r| r.events().find_many(std::slice::from_ref(&events[1].id)))[0].pending_webhooks, 1);
    let id = |e: &Event| e.id.to_string();
    let page = PageRequest::new(Some(2), None, None).unwrap();
    let newest = read(store, |r| r.events().list(&scope, &all, &page));
    assert_eq!((ids(&newest, id), newest.has_more), (vec![id(&events[2]), id(&events[1])], true));
    let older = PageRequest::new(Some(2), Some(id(&events[1])), None).unwrap();
    assert_eq!(ids(&read(store, |r| r.events().list(&scope, &all, &older)), id), vec![id(&events[0])]);
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.events().find(&elsewhere, &events[0].id)), None);
    assert!(read(store, |r| r.events().list(&elsewhere, &all, &PageRequest::default())).data.is_empty());
    let unknown = reading(store, |r| r.events().list(&elsewhere, &all, &older).map_err(|e| older.explain(e)));
    assert!(
        matches!(unknown, Err(ApplicationError::Validation(_))),
        "another account's event is no cursor: {unknown:?}"
    );
}

/// The stream follows the order of appending, not the events' times (a moved test clock's events
/// may be dated anywhere), within one scope.
pub fn events_are_streamed_once_in_the_order_they_were_appended(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let elsewhere = account(store, "other");
    let [late, early, third, fourth] = [30, 10, 20, 40].map(|n| event(&scope, n, 1));
    assert_eq!(read(store, |r| r.events().stream_end(&scope)), None, "nothing yet");
    write(store, |r| appended(r, std::slice::from_ref(&late)));
    write(store, |r| appended(r, std::slice::from_ref(&event(&elsewhere, 5, 0))));
    write(store, |r| appended(r, std::slice::from_ref(&early)));
    // Several appended in one change keep their order.
    write(store, |r| appended(r, &[third.clone(), fourth.clone()]));
    let id = |e: &Event| e.id.to_string();
    // On PostgreSQL a transaction of any database of the cluster (another test's) can hold the
    // stream back for a moment: wait for what is expected.
    let stream = |after: Option<&Event>, limit, expected: usize| {
        let read_now = || read(store, |r| r.events().stream(&scope, after.map(|e| &e.id), limit));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut streamed = read_now();
        while streamed.len() < expected && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            streamed = read_now();
        }
        streamed.iter().map(id).collect::<Vec<_>>()
    };
    assert_eq!(stream(None, 10, 4), [&late, &early, &third, &fourth].map(id));
    let all = read(store, |r| r.events().stream(&scope, None, 10));
    assert!(all.iter().all(|e| e.pending_webhooks == 0 && e.body.starts_with('{')), "{all:?}");
    assert_eq!(stream(None, 2, 2), [&late, &early].map(id), "the limit");
    assert_eq!(stream(Some(&early), 10, 2), [&third, &fourth].map(id));
    assert_eq!(stream(Some(&fourth), 10, 0), Vec::<String>::new(), "nothing after the last");
    assert_eq!(read(store, |r| r.events().stream_end(&scope)), Some(fourth.id.clone()));
    let foreign = read(store, |r| Ok(r.events().stream(&elsewhere, Some(&late.id), 10)));
    assert!(matches!(foreign, Err(StoreError::UnknownCursor)), "another account's event is no cursor: {foreign:?}");
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    assert_eq!(read(store, |r| r.events().stream(&live, None, 10)), Vec::<Event>::new(), "live mode has its own");
}

pub fn events_are_filtered_by_type_and_object(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut events: Vec<Event> = (1..=4).map(|n| event(&scope, n, 0)).collect();
    events[1].event_type = EventType::RefundCreated;
    events[2].object_id = events[0].object_id.clone();
    let mut elsewhere = event(&account(store, "other"), 5, 0);
    elsewhere.object_id = events[0].object_id.clone();
    write(store, |r| appended(r, &events));
    write(store, |r| appended(r, std::slice::from_ref(&elsewhere)));
    let id = |e: &Event| e.id.to_string();
    let list = |filter: &EventFilter, page: &PageRequest| read(store, |r| r.events().list(&scope, filter, page));
    let paid = EventFilter { event_type: Some(EventType::PaymentPaid), object_ids: Vec::new() };
    assert_eq!(ids(&list(&paid, &PageRequest::default()), id), vec![id(&events[3]), id(&events[2]), id(&events[0])]);
    let of_object = EventFilter { event_type: None, object_ids: vec![events[0].object_id.clone()] };
    assert_eq!(ids(&list(&of_object, &PageRequest::default()), id), vec![id(&events[2]), id(&events[0])]);
    let both = EventFilter { event_type: Some(EventType::RefundCreated), ..of_object.clone() };
    assert!(list(&both, &PageRequest::default()).data.is_empty(), "every given filter must match");
    // A cursor names any event of the scope, whether or not it matches the filter.
    let after_refund = PageRequest::new(Some(1), Some(id(&events[1])), None).unwrap();
    let page = list(&paid, &after_refund);
    assert_eq!((ids(&page, id), page.has_more), (vec![id(&events[0])], false));
    let before_refund = PageRequest::new(Some(1), None, Some(id(&events[1]))).unwrap();
    let page = list(&paid, &before_refund);
    assert_eq!((ids(&page, id), page.has_more), (vec![id(&events[2])], true));
}

/// Webhook number `n` of `scope`, enabled for `events`.
///
/// # Panics
/// Never: its URL is valid.
#[must_use]
pub fn webhook(scope: &Scope, n: u32, events: Vec<EventType>) -> Webhook {
    let new = NewWebhook {
        url: WebhookUrl::new(format!("https://hooks.example/{n}")).unwrap(),
        events,
        description: Some(Description::new(format!("hook {n}")).unwrap()),
    };
    let id = WebhookId::from_random(&format!("hook{n}"));
    Webhook::create(id, scope.account_id.clone(), scope.livemode(), WebhookSecret::new("secret"), new, at(0))
}

pub fn webhooks_are_stored_listed_and_filtered(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut first = webhook(&scope, 1, vec![EventType::PaymentPaid, EventType::RefundCreated]);
    let second = webhook(&scope, 2, vec![EventType::PaymentFailed]);
    write(store, |r| {
        r.webhooks().insert(&first)?;
        r.webhooks().insert(&second)
    });
    assert_eq!(read(store, |r| r.webhooks().find(&scope, first.id())), Some(first.clone()));
    let version = first.version();
    let _paused = first.disable(at(1));
    first.update(
        WebhookChanges { description: Some(Description::new("renamed".into()).unwrap()), ..WebhookChanges::default() },
        at(2),
    );
    write(store, |r| r.webhooks().update(&first, version));
    let stale = in_transaction(store, |r| Ok(r.webhooks().update(&first, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.webhooks().find(&scope, first.id())).unwrap();
    assert_eq!(
        (stored.status(), stored.description().map(Description::as_str)),
        (WebhookStatus::Disabled, Some("renamed"))
    );
    let version = first.version();
    first.rotate_secret(WebhookSecret::new("rotated"), at(3), at(90_003), at(3));
    write(store, |r| r.webhooks().update(&first, version));
    assert_eq!(read(store, |r| r.webhooks().find(&scope, first.id())), Some(first.clone()), "with its previous secret");
    let enabled = read(store, |r| r.webhooks().enabled(&scope));
    assert_eq!(enabled, vec![(second.clone(), EndpointHealth::ANSWERING)]);
    let id = |w: &Webhook| w.id().to_string();
    let all = read(store, |r| r.webhooks().list(&scope, &WebhookFilter::default(), &PageRequest::default()));
    assert_eq!(ids(&all, id), vec![id(&second), id(&first)], "newest first");
    let by_url = WebhookFilter { url: Some("https://hooks.example/2".into()), ..WebhookFilter::default() };
    assert_eq!(
        ids(&read(store, |r| r.webhooks().list(&scope, &by_url, &PageRequest::default())), id),
        vec![id(&second)]
    );
    let by_description = WebhookFilter { description: Some("renamed".into()), ..WebhookFilter::default() };
    let found = read(store, |r| r.webhooks().list(&scope, &by_description, &PageRequest::default()));
    assert_eq!(ids(&found, id), vec![id(&first)]);
    for (status, expected) in [(WebhookStatus::Enabled, id(&second)), (WebhookStatus::Disabled, id(&first))] {
        let by_status = WebhookFilter { status: Some(status), ..WebhookFilter::default() };
        let found = read(store, |r| r.webhooks().list(&scope, &by_status, &PageRequest::default()));
        assert_eq!(ids(&found, id), vec![expected], "{status:?}");
    }
    let after_second = PageRequest::new(Some(5), Some(id(&second)), None).unwrap();
    let older = read(store, |r| r.webhooks().list(&scope, &WebhookFilter::default(), &after_second));
    assert_eq!(ids(&older, id), vec![id(&first)], "the cursor pages");
    let endpoints = read(store, |r| r.webhooks().endpoints(&[first.id().clone(), second.id().clone()]));
    assert_eq!(endpoints.len(), 2);
    assert!(endpoints.iter().all(|(_, health)| *health == EndpointHealth::ANSWERING), "never tried: answering");
    let backed_off = EndpointHealth { unanswered: 3, retry_at: at(100) };
    write(store, |r| r.webhooks().set_health(&first, &backed_off));
    let endpoints = read(store, |r| r.webhooks().endpoints(std::slice::from_ref(first.id())));
    assert_eq!(endpoints, vec![(first.clone(), backed_off)], "the webhook's version stays");
    // Another account's or mode's webhook of the same id is none of this one's business.
    write(store, |r| r.webhooks().set_health(&in_other_mode(&first), &EndpointHealth::ANSWERING));
    let endpoints = read(store, |r| r.webhooks().endpoints(std::slice::from_ref(first.id())));
    assert_eq!(endpoints, vec![(first.clone(), backed_off)], "unchanged by another mode's");
    write(store, |r| r.webhooks().delete(&first));
    assert_eq!(read(store, |r| r.webhooks().find(&scope, first.id())), None);
    assert!(read(store, |r| r.webhooks().endpoints(std::slice::from_ref(first.id()))).is_empty());
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.webhooks().find(&elsewhere, second.id())), None);
    assert!(read(store, |r| r.webhooks().enabled(&elsewhere)).is_empty());
}

/// The same webhook as it would be in the other mode of its account: what a query that forgot the
/// tenant would mistake for it.
fn in_other_mode(hook: &Webhook) -> Webhook {
    Webhook::restore(StoredWebhook {
        id: hook.id().clone(),
        account_id: hook.account_id().clone(),
        livemode: !hook.livemode(),
        url: hook.url().clone(),
        events: hook.events().to_vec(),
        description: hook.description().cloned(),
        secret_key: hook.secret_key().clone(),
        previous_secret: hook.previous_secret().cloned(),
        status: hook.status(),
        created_at: hook.created_at(),
        updated_at: hook.updated_at(),
        version: hook.version(),
    })
}

/// A webhook of account "acme" and its delivery of one event, which failed for good at 50.
fn failed_delivery(store: &dyn UnitOfWork) -> (Webhook, Delivery) {
    let scope = account(store, "acme");
    let hook = webhook(&scope, 1, vec![EventType::RefundCreated]);
    let paid = event(&scope, 1, 1);
    let mut delivery = Delivery::new(DeliveryId::from_random("d1"), &hook, paid.id.clone(), at(0));
    write(store, |r| {
        r.webhooks().insert(&hook)?;
        appended(r, std::slice::from_ref(&paid))?;
        r.deliveries().insert(std::slice::from_ref(&delivery))
    });
    assert_eq!(
        write(store, |r| r.deliveries().claim(std::slice::from_ref(delivery.id()), "a", at(50), at(80))).len(),
        1
    );
    let no_retries = RetrySchedule { base_ms: 1_000, cap_ms: 1_000, jitter: 0.0, give_up_after_ms: 0 };
    let refused = AttemptOutcome { status_code: Some(500), error: None, duration_ms: 1, response_excerpt: None };
    delivery.record(&refused, &no_retries, at(50), 0.0);
    assert!(write(store, |r| r.deliveries().settle(&delivery, "a")));
    (hook, delivery)
}

pub fn failed_deliveries_are_requeued_from_the_time_they_failed(store: &dyn UnitOfWork) {
    let (hook, mut delivery) = failed_delivery(store);
    let everything = PassOver::default();
    assert!(read(store, |r| r.deliveries().due(at(100), 10, &everything)).is_empty(), "failed: never due");
    let recovery = hook.recovery(at(100));
    assert_eq!(write(store, |r| r.deliveries().recover(&hook, at(51), &recovery)), 0, "it failed before that");
    let elsewhere = webhook(&account(store, "other"), 1, vec![EventType::RefundCreated]);
    assert_eq!(write(store, |r| r.deliveries().recover(&elsewhere, at(0), &recovery)), 0, "another account's");
    assert_eq!(write(store, |r| r.deliveries().recover(&hook, at(50), &recovery)), 1);
    assert!(delivery.recover(at(50), &recovery));
    assert_eq!(read(store, |r| r.deliveries().due(at(100), 10, &everything)), vec![delivery.clone()], "due at once");
    assert_eq!(write(store, |r| r.deliveries().recover(&hook, at(0), &recovery)), 0, "pending now");
}

pub fn failed_attempts_are_those_the_domain_calls_undelivered(store: &dyn UnitOfWork) {
    let (_, delivery) = failed_delivery(store);
    let scope = Scope::of(delivery.account_id(), delivery.livemode());
    let outcomes = [
        (Some(200), None, true),
        (Some(299), None, true),
        (Some(199), None, false),
        (Some(300), None, false),
        (Some(503), None, false),
        (None, Some("timed out"), false),
        (Some(200), Some("the body was cut off"), false),
    ];
    let attempts: Vec<DeliveryAttempt> = outcomes
        .iter()
        .enumerate()
        .map(|(n, (status_code, error, _))| {
            let outcome = AttemptOutcome {
                status_code: *status_code,
                error: error.map(str::to_owned),
                duration_ms: 1,
                response_excerpt: None,
            };
            DeliveryAttempt::of(&delivery, at(100 + i64::try_from(n).unwrap_or(0)), &outcome)
        })
        .collect();
    write(store, |r| r.deliveries().record_attempts(&attempts));
    let expected: Vec<DeliveryAttempt> =
        attempts.iter().rev().filter(|attempt| !attempt.delivered()).cloned().collect();
    assert_eq!(expected.len(), outcomes.iter().filter(|(.., delivered)| !delivered).count(), "the domain's word");
    assert_eq!(read(store, |r| r.deliveries().failed_attempts(&scope, 100)), expected, "newest first");
    assert_eq!(read(store, |r| r.deliveries().failed_attempts(&scope, 2)), expected[..2].to_vec());
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    assert!(read(store, |r| r.deliveries().failed_attempts(&live, 10)).is_empty(), "another mode's");
}

pub fn a_disabled_webhooks_recovered_deliveries_are_held_until_it_is_enabled(store: &dyn UnitOfWork) {
    let (mut hook, delivery) = failed_delivery(store);
    let version = hook.version();
    let paused = hook.disable(at(60));
    write(store, |r| {
        r.webhooks().update(&hook, version)?;
        r.deliveries().move_all(&hook, &paused)
    });
    let recovery = hook.recovery(at(100));
    assert_eq!(write(store, |r| r.deliveries().recover(&hook, at(50), &recovery)), 1);
    let everything = PassOver::default();
    assert!(read(store, |r| r.deliveries().due(at(200), 10, &everything)).is_empty(), "held while disabled");
    let version = hook.version();
    let resumed = hook.enable(at(300));
    write(store, |r| {
        r.webhooks().update(&hook, version)?;
        r.deliveries().move_all(&hook, &resumed)
    });
    let due = read(store, |r| r.deliveries().due(at(300), 10, &everything));
    assert_eq!(due.iter().map(Delivery::id).collect::<Vec<_>>(), vec![delivery.id()], "sent once enabled");
}

pub fn deliveries_are_leased_settled_and_moved(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    // Listening to another type than the events': their deliveries are the ones made here.
    let mut hook = webhook(&scope, 1, vec![EventType::RefundCreated]);
    let (first_event, second_event) = (event(&scope, 1, 1), event(&scope, 2, 1));
    let mut first = Delivery::new(DeliveryId::from_random("d1"), &hook, first_event.id.clone(), at(0));
    let second = Delivery::new(DeliveryId::from_random("d2"), &hook, second_event.id.clone(), at(5));
    write(store, |r| {
        r.webhooks().insert(&hook)?;
        appended(r, &[first_event.clone(), second_event.clone()])?;
        r.deliveries().insert(&[first.clone(), second.clone()])
    });
    let everything = PassOver::default();
    let due = read(store, |r| r.deliveries().due(at(10), 10, &everything));
    assert_eq!(due, vec![first.clone(), second.clone()], "due ones, the longest waiting first");
    assert_eq!(read(store, |r| r.deliveries().due(at(1), 10, &everything)), vec![first.clone()]);
    let full_webhook = PassOver { webhooks: vec![hook.id().clone()], accounts: Vec::new() };
    assert!(read(store, |r| r.deliveries().due(at(10), 10, &full_webhook)).is_empty(), "its endpoint takes no more");
    let full_account = PassOver { webhooks: Vec::new(), accounts: vec![scope.account_id.clone()] };
    assert!(read(store, |r| r.deliveries().due(at(10), 10, &full_account)).is_empty(), "its account takes no more");

    let lease = at(40);
    let both = [first.id().clone(), second.id().clone()];
    assert_eq!(
        write(store, |r| r.deliveries().claim(std::slice::from_ref(first.id()), "a", at(10), lease)),
        vec![first.id().clone()]
    );
    assert_eq!(
        write(store, |r| r.deliveries().claim(&both, "b", at(11), at(41))),
        vec![second.id().clone()],
        "first is leased to a"
    );
    assert_eq!(write(store, |r| r.deliveries().release(&both, "b")), 1, "only b's own lease is given back");
    assert_eq!(read(store, |r| r.deliveries().due(at(11), 10, &everything)), vec![second.clone()], "due again");
    assert_eq!(
        read(store, |r| r.deliveries().due(at(12), 10, &everything)),
        vec![second.clone()],
        "a leased one is not due"
    );
    assert_eq!(
        write(store, |r| r.deliveries().claim(std::slice::from_ref(first.id()), "b", lease, at(70))),
        vec![first.id().clone()],
        "taken over when the lease ends"
    );

    let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };
    let failure =
        AttemptOutcome { status_code: Some(503), error: None, duration_ms: 4, response_excerpt: Some("busy".into()) };
    first.record(&failure, &schedule, at(41), 0.5);
    assert!(!write(store, |r| r.deliveries().settle(&first, "a")), "a lost its lease");
    assert!(write(store, |r| r.deliveries().settle(&first, "b")));
    let attempt = DeliveryAttempt::of(&first, at(41), &failure);
    write(store, |r| r.deliveries().record_attempts(std::slice::from_ref(&attempt)));
    assert_eq!(read(store, |r| r.deliveries().attempts(&hook, 10)), vec![attempt.clone()]);
    assert_eq!(read(store, |r| r.deliveries().attempts_of_event(&scope, first.event_id())), vec![attempt.clone()]);
    assert!(read(store, |r| r.deliveries().attempts_of_event(&scope, second.event_id())).is_empty());
    let elsewhere = Scope { mode: Mode::Live, ..scope.clone() };
    assert!(read(store, |r| r.deliveries().attempts_of_event(&elsewhere, first.event_id())).is_empty());
    let retried = read(store, |r| r.deliveries().due(at(43), 10, &everything));
    assert_eq!(retried.iter().find(|d| d.id() == first.id()), Some(&first), "due again after its backoff");

    // Backed off: due ones wait until then, a leased one is left to its sender, later ones stay.
    assert_eq!(write(store, |r| r.deliveries().claim(std::slice::from_ref(second.id()), "a", at(43), at(90))).len(), 1);
    assert_eq!(write(store, |r| r.deliveries().postpone(&hook, at(45), at(43))), 1);
    assert!(read(store, |r| r.deliveries().due(at(44), 10, &everything)).is_empty());
    let waited = read(store, |r| r.deliveries().due(at(45), 10, &everything));
    assert_eq!(waited.iter().map(|d| (d.id(), d.next_attempt_at())).collect::<Vec<_>>(), vec![(first.id(), at(45))]);
    assert_eq!(write(store, |r| r.deliveries().postpone(&hook, at(44), at(43))), 0, "never earlier");
    first.postpone(at(45));
    // A test clock jumped over the wait: due at once, but a leased one is left to its sender.
    let elsewhere_hook = in_other_mode(&hook);
    assert_eq!(write(store, |r| r.deliveries().bring_forward(&elsewhere_hook, at(46), at(44))), 0, "another mode's");
    assert_eq!(write(store, |r| r.deliveries().bring_forward(&hook, at(46), at(44))), 1);
    assert_eq!(write(store, |r| r.deliveries().bring_forward(&hook, at(46), at(44))), 0, "already due");
    assert!(first.bring_forward(at(46), at(44)));
    let brought = read(store, |r| r.deliveries().due(at(44), 10, &everything));
    assert_eq!(brought.iter().map(|d| (d.id(), d.next_attempt_at())).collect::<Vec<_>>(), vec![(first.id(), at(44))]);
    assert!(write(store, |r| r.deliveries().settle(&second, "a")));

    let paused = hook.disable(at(50));
    assert_eq!(write(store, |r| r.deliveries().move_all(&hook, &paused)), 2);
    assert!(read(store, |r| r.deliveries().due(at(100), 10, &everything)).is_empty(), "paused ones wait");
    let resumed = hook.enable(at(60));
    assert_eq!(write(store, |r| r.deliveries().move_all(&hook, &resumed)), 2);
    let due = read(store, |r| r.deliveries().due(at(60), 10, &everything));
    assert!(due.iter().all(|d| d.status() == DeliveryStatus::Pending && d.next_attempt_at() == at(60)), "{due:?}");
    assert_eq!(due.len(), 2, "due at once when resumed");
    // Deleted while one is being sent: the sender's late outcome does not bring it back.
    assert_eq!(write(store, |r| r.deliveries().claim(std::slice::from_ref(first.id()), "a", at(60), at(90))).len(), 1);
    for change in hook.deletion() {
        write(store, |r| r.deliveries().move_all(&hook, &change));
    }
    assert!(!write(store, |r| r.deliveries().settle(&first, "a")), "a canceled delivery stays canceled");
    assert!(read(store, |r| r.deliveries().due(at(100), 10, &everything)).is_empty(), "canceled ones are never due");
}

fn statement(scope: &Scope, customer: &Customer, n: u32) -> BillingStatement {
    let id = BillingStatementId::from_random(&format!("s{n}{}", scope.account_id.as_str().len()));
    let details = StatementDetails {
        currency: Currency::Php,
        description: Some(Description::new(format!("Statement {n}")).unwrap()),
        due_at: Some(at(10 * 86_400)),
        billing_details_collection: BillingDetailsCollection::Auto,
        payment_methods: vec![PaymentMethodType::Card, PaymentMethodType::Gcash],
        statement_descriptor: None,
        metadata: Some(metadata(&[("n", "1")])),
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    BillingStatement::create(
        id,
        scope.account_id.clone(),
        scope.livemode(),
        customer.id.clone(),
        secret,
        details,
        at(0),
    )
}

fn line_item(name: &str, unit_price: i64) -> LineItem {
    LineItem {
        id: BillingStatementLineItemId::from_random(name),
        description: name.to_owned(),
        unit_price,
        quantity: 2,
        created_at: at(1),
        updated_at: at(1),
    }
}

pub fn billing_statements_round_trip_with_their_line_items_and_filters(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (first_customer, second_customer) = (customer(&scope, 1), customer(&scope, 2));
    write(store, |r| r.customers().insert(&first_customer));
    write(store, |r| r.customers().insert(&second_customer));
    let mut first = statement(&scope, &first_customer, 1);
    write(store, |r| r.billing_statements().insert(&first));
    assert_eq!(read(store, |r| r.billing_statements().find(&scope, first.id())), Some(first.clone()));

    // Line items are written after the versioned update that guards them, and read back in order.
    let version = first.version();
    first.add_line_item(line_item("bwork", 3_000), at(2)).unwrap();
    first.add_line_item(line_item("atravel", 500), at(2)).unwrap();
    write(store, |r| {
        r.billing_statements().update(&first, version)?;
        r.billing_statements().replace_line_items(&first)
    });
    let stale = in_transaction(store, |r| Ok(r.billing_statements().update(&first, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.billing_statements().find(&scope, first.id())).unwrap();
    assert_eq!(stored, first);
    assert_eq!(stored.amount(), 7_000);
    let item_id = first.line_items()[1].id.clone();
    assert_eq!(read(store, |r| r.billing_statements().find_by_line_item(&scope, &item_id)), Some(first.clone()));
    let version = first.version();
    first
        .update_line_item(&item_id, LineItemChanges { quantity: Some(5), ..LineItemChanges::default() }, at(3))
        .unwrap();
    first.remove_line_item(&first.line_items()[0].id.clone(), at(3)).unwrap();
    write(store, |r| {
        r.billing_statements().update(&first, version)?;
        r.billing_statements().replace_line_items(&first)
    });
    assert_eq!(read(store, |r| r.billing_statements().find(&scope, first.id())), Some(first.clone()));
    let gone = BillingStatementLineItemId::from_random("bwork");
    assert_eq!(read(store, |r| r.billing_statements().find_by_line_item(&scope, &gone)), None);

    // Finalized: found by its intent, and by the job once a reminder is due.
    let intent = new_intent(&scope, 1);
    write(store, |r| r.payment_intents().insert(&intent));
    let version = first.version();
    let finalization = Finalization {
        number: "P0001-0001".into(),
        payment_intent_id: intent.id().clone(),
        url: "u".into(),
        finalized_at: at(5),
    };
    first.finalize(finalization, at(4)).unwrap();
    write(store, |r| r.billing_statements().update(&first, version));
    assert_eq!(
        read(store, |r| r.billing_statements().find_by_payment_intent(&scope, intent.id())),
        Some(first.clone())
    );
    assert_eq!(read(store, |r| r.billing_statements().find_for_page(first.id())), Some(first.clone()));
    let reminder = first.next_notice_at().unwrap();
    assert!(read(store, |r| r.billing_statements().with_notice_due(None, reminder.plus_seconds(-1), 10)).is_empty());
    assert_eq!(read(store, |r| r.billing_statements().with_notice_due(None, reminder, 10)), vec![first.clone()]);
    assert_eq!(
        read(store, |r| r.billing_statements().with_notice_due(Some(&scope), reminder, 10)),
        vec![first.clone()]
    );
    let elsewhere = Scope { mode: Mode::Live, ..scope.clone() };
    assert!(read(store, |r| r.billing_statements().with_notice_due(Some(&elsewhere), reminder, 10)).is_empty());

    // Lists filter by customer and status; a cursor names any statement of the scope.
    let second = statement(&scope, &second_customer, 2);
    write(store, |r| r.billing_statements().insert(&second));
    let page = PageRequest::new(None, None, None).unwrap();
    let list = |filter: BillingStatementFilter| {
        let found = read(store, |r| r.billing_statements().list(&scope, &filter, &page));
        ids(&found, |s| s.id().to_string())
    };
    assert_eq!(list(BillingStatementFilter::default()), vec![second.id().to_string(), first.id().to_string()]);
    let by_customer = BillingStatementFilter { customer_id: Some(first_customer.id.clone()), status: None };
    assert_eq!(list(by_customer), vec![first.id().to_string()]);
    let drafts = BillingStatementFilter { customer_id: None, status: Some(BillingStatementStatus::Draft) };
    assert_eq!(list(drafts), vec![second.id().to_string()]);
    let older = PageRequest::new(None, Some(second.id().to_string()), None).unwrap();
    let found = read(store, |r| r.billing_statements().list(&scope, &BillingStatementFilter::default(), &older));
    assert_eq!(ids(&found, |s| s.id().to_string()), vec![first.id().to_string()]);

    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.billing_statements().find(&elsewhere, first.id())), None);
    assert_eq!(read(store, |r| r.billing_statements().find_by_line_item(&elsewhere, &item_id)), None);
    write(store, |r| r.billing_statements().delete(&second, second.version()));
    assert_eq!(read(store, |r| r.billing_statements().find(&scope, second.id())), None);
}

/// Mail number `n` of `scope`, due `at_offset` seconds after the contract's start time.
#[must_use]
pub fn mail(scope: &Scope, n: u32, at_offset: i64) -> MailMessage {
    let content = MailContent {
        from: "billing@shop.example".into(),
        to: format!("c{n}@example.com"),
        subject: format!("Statement {n}"),
        message_id: format!("<m{n}@shop.example>"),
        text: "text".into(),
        html: "<p>html</p>".into(),
    };
    let id = MailMessageId::from_random(&format!("m{n}{}", scope.account_id.as_str().len()));
    MailMessage::create(id, scope.account_id.clone(), scope.livemode(), None, content, at(at_offset))
}

pub fn mail_messages_are_queued_claimed_and_listed(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (first, second) = (mail(&scope, 1, 0), mail(&scope, 2, 5));
    write(store, |r| r.mail_messages().insert(&first));
    write(store, |r| r.mail_messages().insert(&second));
    assert_eq!(read(store, |r| r.mail_messages().due(at(1), 10)), vec![first.clone()]);
    assert_eq!(read(store, |r| r.mail_messages().due(at(5), 10)), vec![first.clone(), second.clone()]);

    let mut claimed = first.clone();
    assert!(claimed.claim(at(6), at(60)));
    write(store, |r| r.mail_messages().update(&claimed, first.version()));
    let lost = in_transaction(store, |r| Ok(r.mail_messages().update(&claimed, first.version())?));
    assert!(matches!(lost, Err(ApplicationError::Conflict)), "a second claim loses: {lost:?}");
    assert_eq!(read(store, |r| r.mail_messages().due(at(6), 10)), vec![second.clone()], "claimed until its lease ends");
    let mut sent = claimed.clone();
    let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };
    sent.record(&MailOutcome::Sent, &schedule, at(7), 0.0);
    write(store, |r| r.mail_messages().update(&sent, claimed.version()));
    assert_eq!(read(store, |r| r.mail_messages().due(at(1_000), 10)), vec![second.clone()]);
    let latest = read(store, |r| r.mail_messages().latest(&scope, 10));
    assert_eq!(latest, vec![second.clone(), sent.clone()], "newest first");
    assert_eq!(latest[1].status(), MailStatus::Sent);
    let elsewhere = account(store, "other");
    assert!(read(store, |r| r.mail_messages().latest(&elsewhere, 10)).is_empty());
}

/// Checkout session number `n` of `scope`, paid through `intent`, expiring at `at(expires_in)`.
fn checkout_session(scope: &Scope, intent: &PaymentIntent, n: u32, expires_in: i64) -> CheckoutSession {
    let id = CheckoutSessionId::from_random(&format!("checkout{n}"));
    let secret = ClientSecret::new(id.as_str(), "secret");
    let item = CheckoutLineItem {
        id: CheckoutSessionLineItemId::from_random(&format!("item{n}")),
        name: "Mug".into(),
        amount: 5_000,
        quantity: 2,
        description: None,
        image: None,
    };
    let details = NewCheckoutSession {
        line_items: vec![item],
        amount: Amount::new(10_000).unwrap(),
        currency: Currency::Php,
        success_url: RedirectUrl::new("https://shop.example/ok".into()).unwrap(),
        cancel_url: RedirectUrl::new("https://shop.example/cart".into()).unwrap(),
        payment_methods: vec![PaymentMethodType::Card],
        card_options: CardOptions::default(),
        customer_reference_id: Some(format!("order-{n}")),
        billing_details_collection: BillingDetailsCollection::Auto,
        description: None,
        submit_type: SubmitType::Pay,
        statement_descriptor: None,
        expires_at: at(expires_in),
        metadata: Some(metadata(&[("order", &n.to_string())])),
    };
    let url = format!("https://pay.example/checkout/{n}");
    CheckoutSession::create(
        id,
        scope.account_id.clone(),
        scope.livemode(),
        secret,
        url,
        intent.id().clone(),
        details,
        at(0),
    )
}

pub fn checkout_sessions_round_trip_and_are_found_by_intent_page_and_expiry(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (first_intent, second_intent) = (new_intent(&scope, 1), new_intent(&scope, 2));
    let first = checkout_session(&scope, &first_intent, 1, 60);
    let second = checkout_session(&scope, &second_intent, 2, 3_600);
    write(store, |r| {
        r.payment_intents().insert(&first_intent)?;
        r.payment_intents().insert(&second_intent)?;
        r.checkout_sessions().insert(&first)?;
        r.checkout_sessions().insert(&second)
    });
    assert_eq!(read(store, |r| r.checkout_sessions().find(&scope, first.id())), Some(first.clone()));
    assert_eq!(read(store, |r| r.checkout_sessions().find_for_page(first.id())), Some(first.clone()));
    let by_intent = read(store, |r| r.checkout_sessions().find_by_payment_intent(&scope, second_intent.id()));
    assert_eq!(by_intent, Some(second.clone()));
    let id = |session: &CheckoutSession| session.id().to_string();
    let all = CheckoutSessionFilter::default();
    let list = |scope: &Scope, filter: &CheckoutSessionFilter, page: &PageRequest| {
        read(store, |r| r.checkout_sessions().list(scope, filter, page))
    };
    let page = list(&scope, &all, &PageRequest::new(Some(1), None, None).unwrap());
    assert_eq!((ids(&page, id), page.has_more), (vec![id(&second)], true), "newest first");
    let rest = list(&scope, &all, &PageRequest::new(Some(1), Some(id(&second)), None).unwrap());
    assert_eq!((ids(&rest, id), rest.has_more), (vec![id(&first)], false));
    let by_reference = CheckoutSessionFilter { customer_reference_id: Some("order-1".into()), ..all.clone() };
    assert_eq!(ids(&list(&scope, &by_reference, &PageRequest::default()), id), vec![id(&first)]);

    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "other");
    for elsewhere in [live, other] {
        assert_eq!(read(store, |r| r.checkout_sessions().find(&elsewhere, first.id())), None, "from {elsewhere:?}");
        let by_intent = read(store, |r| r.checkout_sessions().find_by_payment_intent(&elsewhere, first_intent.id()));
        assert_eq!(by_intent, None, "from {elsewhere:?}");
        assert!(list(&elsewhere, &all, &PageRequest::default()).data.is_empty(), "from {elsewhere:?}");
        assert!(list(&elsewhere, &by_reference, &PageRequest::default()).data.is_empty(), "from {elsewhere:?}");
    }

    assert!(read(store, |r| r.checkout_sessions().expired(None, at(59), 10)).is_empty(), "none expired yet");
    assert_eq!(read(store, |r| r.checkout_sessions().expired(None, at(61), 10)), vec![first.clone()]);
    assert_eq!(read(store, |r| r.checkout_sessions().expired(Some(&scope), at(61), 10)), vec![first.clone()]);
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    assert!(read(store, |r| r.checkout_sessions().expired(Some(&live), at(61), 10)).is_empty(), "not in live mode");
    let mut expired = first.clone();
    expired.expire(at(61)).unwrap();
    write(store, |r| r.checkout_sessions().update(&expired, first.version()));
    let stale = in_transaction(store, |r| Ok(r.checkout_sessions().update(&expired, first.version())?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.checkout_sessions().find(&scope, first.id())).unwrap();
    assert_eq!((stored.status(), stored.version()), (CheckoutSessionStatus::Expired, first.version() + 1));
    let due = read(store, |r| r.checkout_sessions().expired(None, at(4_000), 10));
    assert_eq!(due.iter().map(id).collect::<Vec<_>>(), vec![id(&second)], "only active sessions expire");
    for (status, expected) in
        [(CheckoutSessionStatus::Active, id(&second)), (CheckoutSessionStatus::Expired, id(&first))]
    {
        let by_status = CheckoutSessionFilter { status: Some(status), ..all.clone() };
        assert_eq!(ids(&list(&scope, &by_status, &PageRequest::default()), id), vec![expected], "{status:?}");
    }
    let completed = CheckoutSessionFilter { status: Some(CheckoutSessionStatus::Completed), ..by_reference };
    assert!(list(&scope, &completed, &PageRequest::default()).data.is_empty(), "every given filter must match");
}

/// A write names its tenant as a lookup does: an object of another account or mode with the same
/// id (as a forged or confused caller would hand in) changes nothing of this tenant's rows.
pub fn a_write_keeps_to_its_tenant(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let other = account(store, "other");
    let original = customer(&scope, 1);
    write(store, |r| r.customers().insert(&original));
    for elsewhere in [Scope { mode: Mode::Live, ..scope.clone() }, other.clone()] {
        let mut forged = original.clone();
        (forged.account_id, forged.livemode) = (elsewhere.account_id.clone(), elsewhere.livemode());
        forged.email = Email::new("forged@example.com".into()).unwrap();
        forged.version = original.version + 1;
        let update = in_transaction(store, |r| Ok(r.customers().update(&forged, original.version)?));
        assert!(matches!(update, Err(ApplicationError::Conflict)), "from {elsewhere:?}: {update:?}");
    }
    assert_eq!(read(store, |r| r.customers().find(&scope, &original.id)), Some(original.clone()), "unchanged");

    // A webhook's deliveries and attempts are moved and read for that webhook in its tenant only.
    // (It listens to another type than the event's: its one delivery is the one made here.)
    let hook = webhook(&scope, 1, vec![EventType::RefundCreated]);
    let forged_hook = Webhook::create(
        hook.id().clone(),
        other.account_id.clone(),
        other.livemode(),
        WebhookSecret::new("secret"),
        NewWebhook { url: hook.url().clone(), events: vec![EventType::RefundCreated], description: None },
        at(0),
    );
    let paid = event(&scope, 1, 1);
    let delivery = Delivery::new(DeliveryId::from_random("d1"), &hook, paid.id.clone(), at(0));
    write(store, |r| {
        r.webhooks().insert(&hook)?;
        appended(r, std::slice::from_ref(&paid))?;
        r.deliveries().insert(std::slice::from_ref(&delivery))
    });
    let ok = AttemptOutcome { status_code: Some(200), error: None, duration_ms: 3, response_excerpt: None };
    let attempt = DeliveryAttempt::of(&delivery, at(1), &ok);
    write(store, |r| r.deliveries().record_attempts(std::slice::from_ref(&attempt)));
    assert!(read(store, |r| r.deliveries().attempts(&forged_hook, 10)).is_empty());
    assert_eq!(read(store, |r| r.deliveries().attempts(&hook, 10)), vec![attempt]);
    let pause = DeliveryMove { from: DeliveryStatus::Pending, to: DeliveryStatus::Paused, due_at: None };
    assert_eq!(write(store, |r| r.deliveries().move_all(&forged_hook, &pause)), 0);
    assert_eq!(read(store, |r| r.events().find(&scope, &paid.id)).unwrap().pending_webhooks, 1);
    assert_eq!(read(store, |r| r.deliveries().due(at(10), 10, &PassOver::default())), vec![delivery]);
    write(store, |r| r.webhooks().delete(&forged_hook));
    assert_eq!(read(store, |r| r.webhooks().find(&scope, hook.id())), Some(hook.clone()), "not deleted");
}

/// A read-only unit of work refuses a write as a failure of its own, and the write never lands.
pub fn a_read_refuses_to_write(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let hook = webhook(&scope, 1, vec![EventType::PaymentPaid]);
    let refused = reading(store, |r| Ok(r.webhooks().insert(&hook)?));
    assert!(matches!(refused, Err(ApplicationError::Internal(_))), "{refused:?}");
    assert!(read(store, |r| r.webhooks().find(&scope, hook.id())).is_none(), "the write never landed");
}

/// Logged request number `n` of `scope`: `GET /payment_intents/pi_n` answered 200 at `n` seconds.
#[must_use]
pub fn request_log(scope: &Scope, n: u32) -> RequestLog {
    RequestLog {
        id: RequestLogId::from_random(&format!("log{n}{}", scope.account_id.as_str().len())),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        source: RequestSource::Api,
        key_kind: KeyKind::Secret,
        method: "GET".into(),
        path: format!("/payment_intents/pi_{n}"),
        query: String::new(),
        status: 200,
        duration_ms: i64::from(n),
        idempotency_key: None,
        replayed: false,
        object_id: Some(format!("pi_{n}")),
        request_body: None,
        response_body: Some(format!(r#"{{"id":"pi_{n}"}}"#)),
        created_at: at(i64::from(n)),
    }
}

pub fn request_logs_are_listed_filtered_and_pruned(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let mut entries: Vec<RequestLog> = (1..=5).map(|n| request_log(&scope, n)).collect();
    entries[1].method = "POST".into();
    entries[1].path = "/refunds".into();
    entries[1].status = 402;
    entries[1].source = RequestSource::Dashboard;
    entries[1].idempotency_key = Some("key-1".into());
    entries[1].replayed = true;
    entries[1].request_body = Some(r#"{"amount":5000}"#.into());
    entries[2].status = 404;
    entries[2].object_id = None;
    entries[2].key_kind = KeyKind::Public;
    entries[2].query = "expand=x".into();
    let mut other_mode = request_log(&live, 6);
    other_mode.id = RequestLogId::from_random("livelog6");
    let other_account = request_log(&account(store, "other"), 7);
    write(store, |r| r.request_logs().append(&entries[..2]));
    write(store, |r| r.request_logs().append(&[entries[2].clone(), other_mode.clone(), other_account.clone()]));
    write(store, |r| r.request_logs().append(&entries[3..]));
    assert_eq!(read(store, |r| r.request_logs().find(&scope, &entries[1].id)), Some(entries[1].clone()));
    assert_eq!(read(store, |r| r.request_logs().find(&scope, &entries[2].id)), Some(entries[2].clone()));
    assert_eq!(read(store, |r| r.request_logs().find(&scope, &other_mode.id)), None, "another mode's");
    assert_eq!(read(store, |r| r.request_logs().find(&scope, &other_account.id)), None, "another account's");
    let id = |e: &RequestLog| e.id.to_string();
    let list =
        |filter: &RequestLogFilter, page: &PageRequest| read(store, |r| r.request_logs().list(&scope, filter, page));
    let all = RequestLogFilter::default();
    let newest_first: Vec<String> = entries.iter().rev().map(id).collect();
    assert_eq!(ids(&list(&all, &PageRequest::default()), id), newest_first);
    let failed = RequestLogFilter { status: StatusRange::parse("4xx"), ..all.clone() };
    assert_eq!(ids(&list(&failed, &PageRequest::default()), id), vec![id(&entries[2]), id(&entries[1])]);
    let not_found = RequestLogFilter { status: StatusRange::parse("404"), ..all.clone() };
    assert_eq!(ids(&list(&not_found, &PageRequest::default()), id), vec![id(&entries[2])]);
    let posts = RequestLogFilter { method: Some("POST".into()), ..all.clone() };
    assert_eq!(ids(&list(&posts, &PageRequest::default()), id), vec![id(&entries[1])]);
    let dashboard = RequestLogFilter { source: Some(RequestSource::Dashboard), ..all.clone() };
    assert_eq!(ids(&list(&dashboard, &PageRequest::default()), id), vec![id(&entries[1])]);
    let object = RequestLogFilter { object_id: Some("pi_4".into()), ..all.clone() };
    assert_eq!(ids(&list(&object, &PageRequest::default()), id), vec![id(&entries[3])]);
    // A path filter is a prefix, and `_` and `%` in it are themselves.
    let intents = RequestLogFilter { path_prefix: Some("/payment_intents/pi_".into()), ..all.clone() };
    assert_eq!(list(&intents, &PageRequest::default()).data.len(), 4);
    let wildcard = RequestLogFilter { path_prefix: Some("/payment%".into()), ..all.clone() };
    assert!(list(&wildcard, &PageRequest::default()).data.is_empty());
    let underscore = RequestLogFilter { path_prefix: Some("/payment_intents/pi_5".into()), ..all.clone() };
    assert_eq!(ids(&list(&underscore, &PageRequest::default()), id), vec![id(&entries[4])]);
    let page = PageRequest::new(Some(2), Some(id(&entries[3])), None).unwrap();
    let older = list(&all, &page);
    assert_eq!((ids(&older, id), older.has_more), (vec![id(&entries[2]), id(&entries[1])], true));
    let before = PageRequest::new(Some(1), None, Some(id(&entries[1]))).unwrap();
    assert_eq!(ids(&list(&posts, &before), id), Vec::<String>::new(), "a cursor pages within the filter");
    let unknown = PageRequest::new(None, Some(id(&other_account)), None).unwrap();
    let refused = reading(store, |r| r.request_logs().list(&scope, &all, &unknown).map_err(|e| unknown.explain(e)));
    assert!(matches!(refused, Err(ApplicationError::Validation(_))), "{refused:?}");

    // Older than the retention goes; then each tenant keeps its newest rows up to the cap.
    let retention = Retention { max_age_seconds: 100, max_rows: 2, max_bytes: u64::MAX };
    let pruned = write(store, |r| r.request_logs().prune(retention, at(102)));
    assert_eq!(pruned, 3, "entry 1 by age, entries 2 and 3 by the cap");
    assert_eq!(ids(&list(&all, &PageRequest::default()), id), vec![id(&entries[4]), id(&entries[3])]);
    assert_eq!(read(store, |r| r.request_logs().find(&live, &other_mode.id)), Some(other_mode.clone()));
    assert_eq!(write(store, |r| r.request_logs().prune(retention, at(102))), 0, "pruning again finds nothing");
    let everything = Retention { max_age_seconds: 0, max_rows: 1_000, max_bytes: u64::MAX };
    assert_eq!(write(store, |r| r.request_logs().prune(everything, at(1_000))), 4);
}

pub fn request_logs_keep_their_newest_entries_within_a_byte_cap(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let other = account(store, "other");
    let sized = |scope: &Scope, n: u32, body_bytes: usize| RequestLog {
        response_body: Some("x".repeat(body_bytes)),
        ..request_log(scope, n)
    };
    let entries = [sized(&scope, 1, 1_000), sized(&scope, 2, 3_000), sized(&scope, 3, 2_000), sized(&scope, 4, 1_000)];
    let elsewhere = sized(&other, 5, 5_000);
    write(store, |r| r.request_logs().append(&entries));
    write(store, |r| r.request_logs().append(std::slice::from_ref(&elsewhere)));
    // The newest two fit in 3,200 bytes; the third would take them past it.
    let newest_two = entries[2].size_bytes() + entries[3].size_bytes();
    assert!(newest_two < 3_200 && newest_two + entries[1].size_bytes() > 3_200);
    let retention = Retention { max_age_seconds: 1_000_000, max_rows: 1_000, max_bytes: 3_200 };
    assert_eq!(write(store, |r| r.request_logs().prune(retention, at(10))), 3, "two of acme's, and other's one");
    let kept = read(store, |r| r.request_logs().list(&scope, &RequestLogFilter::default(), &PageRequest::default()));
    assert_eq!(
        ids(&kept, |e: &RequestLog| e.id.to_string()),
        vec![entries[3].id.to_string(), entries[2].id.to_string()]
    );
    assert_eq!(write(store, |r| r.request_logs().prune(retention, at(10))), 0, "pruning again finds nothing");
}

pub fn console_sessions_are_found_by_digest_touched_and_ended(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let open = |token: &str, at_offset: i64| {
        ConsoleSession::open(
            &SessionToken::new(token.into()),
            scope.account_id.clone(),
            Mode::Live,
            "f".into(),
            at(at_offset),
        )
    };
    let (first, second) = (open("first", 0), open("second", 10));
    write(store, |r| r.console_sessions().insert(&first));
    write(store, |r| r.console_sessions().insert(&second));
    assert_eq!(read(store, |r| r.console_sessions().find(&first.digest)), Some(first.clone()));
    assert_eq!(read(store, |r| r.console_sessions().find("unknown")), None);
    let again = in_transaction(store, |r| {
        r.console_sessions().insert(&first).map_err(|e| match e {
            StoreError::UniqueViolation(_) => ApplicationError::Conflict,
            other => ApplicationError::internal(&format!("{other:?}")),
        })
    });
    assert!(matches!(again, Err(ApplicationError::Conflict)), "a digest is stored once: {again:?}");
    write(store, |r| r.console_sessions().touch(&first.digest, at(30)));
    let touched = read(store, |r| r.console_sessions().find(&first.digest)).unwrap();
    assert_eq!(touched.last_seen_at, at(30));
    assert_eq!(write(store, |r| r.console_sessions().delete_seen_before(at(20))), 1, "the second, seen at 10");
    assert_eq!(read(store, |r| r.console_sessions().find(&second.digest)), None);
    write(store, |r| r.console_sessions().delete(&first.digest));
    write(store, |r| r.console_sessions().delete(&first.digest));
    assert_eq!(read(store, |r| r.console_sessions().find(&first.digest)), None);
}

pub fn payment_intents_are_listed_filtered_and_counted(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let customer = customer(&scope, 1);
    write(store, |r| r.customers().insert(&customer));
    let mut intents: Vec<PaymentIntent> = (0..5).map(|n| new_intent_at(&scope, n + 1, i64::from(n) * 100)).collect();
    for (n, intent) in (0_i64..).zip(intents.iter_mut()) {
        let changes = PaymentIntentChanges {
            amount: Some(Amount::new(10_000 * (n + 1)).unwrap()),
            metadata: Some(metadata(&[("order", &format!("A-{n}")), ("note", "shared")])),
            customer_id: (n % 2 == 0).then(|| customer.id.clone()),
            ..PaymentIntentChanges::default()
        };
        intent.update(changes, at(n * 100)).unwrap();
    }
    for intent in &intents {
        write(store, |r| r.payment_intents().insert(intent));
    }
    let elsewhere = new_intent(&account(store, "other"), 9);
    write(store, |r| r.payment_intents().insert(&elsewhere));
    // The metadata of intent 1 changes: its old value is no longer found, its new one is.
    let mut changed = intents[1].clone();
    let version = changed.version();
    let changes = PaymentIntentChanges { metadata: Some(metadata(&[("order", "B-1")])), ..Default::default() };
    changed.update(changes, at(150)).unwrap();
    write(store, |r| r.payment_intents().update(&changed, version));
    // Intent 4 is canceled.
    let mut canceled = intents[4].clone();
    let version = canceled.version();
    canceled.cancel(at(500)).unwrap();
    write(store, |r| r.payment_intents().update(&canceled, version));

    let id = |i: &PaymentIntent| i.id().to_string();
    let list = |filter: &PaymentIntentFilter, page: &PageRequest| {
        read(store, |r| r.payment_intents().list(&scope, filter, page))
    };
    let all = PaymentIntentFilter::default();
    let newest_first: Vec<String> = intents.iter().rev().map(id).collect();
    assert_eq!(ids(&list(&all, &PageRequest::default()), id), newest_first);
    let status = PaymentIntentFilter { status: Some(PaymentIntentStatus::Canceled), ..all.clone() };
    assert_eq!(ids(&list(&status, &PageRequest::default()), id), vec![id(&intents[4])]);
    let of_customer = PaymentIntentFilter { customers: Some(vec![customer.id.clone()]), ..all.clone() };
    assert_eq!(
        ids(&list(&of_customer, &PageRequest::default()), id),
        vec![id(&intents[4]), id(&intents[2]), id(&intents[0])]
    );
    let nobody = PaymentIntentFilter { customers: Some(vec![]), ..all.clone() };
    assert!(list(&nobody, &PageRequest::default()).data.is_empty(), "no customers, no intents");
    let amounts = PaymentIntentFilter { amount_from: Some(20_000), amount_to: Some(30_000), ..all.clone() };
    assert_eq!(ids(&list(&amounts, &PageRequest::default()), id), vec![id(&intents[2]), id(&intents[1])]);
    let created = PaymentIntentFilter { created_from: Some(at(100)), created_to: Some(at(200)), ..all.clone() };
    assert_eq!(ids(&list(&created, &PageRequest::default()), id), vec![id(&intents[2]), id(&intents[1])]);
    let value = |text: &str| PaymentIntentFilter { metadata_value: Some(text.into()), ..all.clone() };
    assert_eq!(ids(&list(&value("A-3"), &PageRequest::default()), id), vec![id(&intents[3])]);
    assert!(list(&value("A-1"), &PageRequest::default()).data.is_empty(), "the value it had before");
    assert_eq!(ids(&list(&value("B-1"), &PageRequest::default()), id), vec![id(&intents[1])]);
    assert_eq!(list(&value("shared"), &PageRequest::default()).data.len(), 4, "every intent with it, none elsewhere");
    assert!(list(&value("1"), &PageRequest::default()).data.is_empty(), "values, not keys or parts");
    let page = PageRequest::new(Some(2), Some(id(&intents[3])), None).unwrap();
    let older = list(&value("shared"), &page);
    assert_eq!((ids(&older, id), older.has_more), (vec![id(&intents[2]), id(&intents[0])], false));
    let unknown = PageRequest::new(None, Some(id(&elsewhere)), None).unwrap();
    let refused = reading(store, |r| r.payment_intents().list(&scope, &all, &unknown).map_err(|e| unknown.explain(e)));
    assert!(matches!(refused, Err(ApplicationError::Validation(_))), "{refused:?}");

    let outcome =
        |i: &PaymentIntent| IntentOutcome { status: i.status(), amount_received: 0, created_at: i.created_at() };
    let latest = read(store, |r| r.payment_intents().latest_outcomes(&scope, 2));
    assert_eq!(latest, vec![outcome(&canceled), outcome(&intents[3])], "newest first, as many as asked");
    assert_eq!(read(store, |r| r.payment_intents().latest_outcomes(&scope, 100)).len(), 5, "its own only");
}
