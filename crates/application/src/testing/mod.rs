//! In-memory fakes of every port, so services are tested without a database.
//!
//! A transaction works on a copy of the state and swaps it in on success, so a failed use case leaves
//! nothing behind, as with a real database; a read that writes is refused, as both stores refuse it.
//! Each repository's fake is in the file of its resource's name; every one obeys the repository
//! contract ([`contract`]) that the diesel repositories obey on SQLite and PostgreSQL.

mod account;
mod balance;
mod billing_statement;
mod checkout_session;
mod clock;
mod connector_account;
mod console_session;
pub mod contract;
mod customer;
mod customer_session;
mod event;
mod id_generator;
mod idempotency;
mod mail_composer;
mod mail_message;
mod page;
mod payment;
mod payment_intent;
mod payment_method;
mod payout;
mod payout_rail;
mod presenter;
mod price;
mod processor;
mod processor_event;
mod processor_operation;
mod product;
mod refund;
mod request_log;
mod setup_intent;
mod url_guard;
mod webhook;
mod webhook_delivery;

pub use clock::ManualClock;
pub use connector_account::ReversingSealer;
pub use id_generator::SequentialIds;
pub use mail_composer::PlainComposer;
pub use payout_rail::ScriptedRail;
pub use presenter::MinimalPresenter;
pub use processor::ScriptedProcessor;
pub use url_guard::PermissiveUrlGuard;

use crate::error::ApplicationError;
use crate::pagination::{Cursor, Page, PageRequest};
use crate::ports::unit_of_work::Work;
use crate::ports::{DeliveryAttempt, IdempotencyRecord, KeyRecord, StoreError, UnitOfWork};
use crate::scope::{Caller, Scope};
use crate::services::{
    AccountService, BalanceService, BillingStatementService, CheckoutSessionService, ConsoleSessionService,
    CustomerService, CustomerSessionService, DueWork, EventService, IdempotencyService, MailMessageService,
    OverviewService, PaymentIntentService, PaymentIntentSettings, PaymentMethodService, PaymentService, PayoutRails,
    PayoutService, ProcessorEventService, Processors, RefundService, SetupIntentService, TestClockService,
    WebhookDeliveryService, WebhookService,
};
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::balance::BalanceEntry;
use payments_domain::billing_statement::BillingStatement;
use payments_domain::checkout_session::CheckoutSession;
use payments_domain::connector_account::ConnectorAccount;
use payments_domain::console_session::ConsoleSession;
use payments_domain::customer::Customer;
use payments_domain::customer_session::CustomerSession;
use payments_domain::event::Event;
use payments_domain::ids::{AccountId, WebhookId};
use payments_domain::mail_message::MailMessage;
use payments_domain::money::{Amount, Currency};
use payments_domain::payment::{FeeRate, FeeSchedule, Payment};
use payments_domain::payment_intent::{CardOptions, NewPaymentIntent, PaymentIntent};
use payments_domain::payment_method::PaymentMethod;
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::payout::{Payout, PayoutSchedule, PayoutTransaction};
use payments_domain::price::Price;
use payments_domain::processor_event::ProcessorEvent;
use payments_domain::processor_operation::ProcessorOperation;
use payments_domain::product::Product;
use payments_domain::refund::Refund;
use payments_domain::request_log::RequestLog;
use payments_domain::retry::RetrySchedule;
use payments_domain::setup_intent::SetupIntent;
use payments_domain::time::Timestamp;
use payments_domain::webhook::Webhook;
use payments_domain::webhook_delivery::EndpointHealth;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use webhook_delivery::LeasedDelivery;

/// Everything the in-memory store holds.
#[derive(Debug, Clone, Default)]
struct State {
    accounts: Vec<Account>,
    keys: HashMap<String, KeyRecord>,
    /// Test clock offsets of the accounts whose clock was moved.
    test_clock_offsets: HashMap<AccountId, i64>,
    /// Customers in insertion order, which is the list order reversed.
    customers: Vec<Customer>,
    idempotency: Vec<IdempotencyRecord>,
    payment_intents: Vec<PaymentIntent>,
    payments: Vec<Payment>,
    refunds: Vec<Refund>,
    setup_intents: Vec<SetupIntent>,
    checkout_sessions: Vec<CheckoutSession>,
    billing_statements: Vec<BillingStatement>,
    mail_messages: Vec<MailMessage>,
    payment_methods: Vec<PaymentMethod>,
    customer_sessions: Vec<CustomerSession>,
    events: Vec<Event>,
    webhooks: Vec<Webhook>,
    /// How each webhook's endpoint has been answering, when it was ever recorded.
    endpoint_health: HashMap<WebhookId, EndpointHealth>,
    /// Deliveries made so far by appended events (their ids count up).
    fanned_out: u64,
    /// Deliveries with their lease holder.
    deliveries: Vec<LeasedDelivery>,
    attempts: Vec<DeliveryAttempt>,
    /// Logged requests in the order they were recorded.
    request_logs: Vec<RequestLog>,
    console_sessions: Vec<ConsoleSession>,
    connector_accounts: Vec<ConnectorAccount>,
    balance_entries: Vec<BalanceEntry>,
    payouts: Vec<Payout>,
    processor_operations: Vec<ProcessorOperation>,
    processor_events: Vec<ProcessorEvent>,
    payout_transactions: Vec<PayoutTransaction>,
    payout_schedules: Vec<PayoutSchedule>,
    products: Vec<Product>,
    prices: Vec<Price>,
    pages: Vec<payments_domain::page::Page>,
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

    /// Runs `work` on a copy of the state, as a transaction would, and refuses it when the copy
    /// changed: like both stores, a read-only unit of work cannot write.
    fn read(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        let committed = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut copy = committed.clone();
        work(&mut copy)?;
        if format!("{copy:?}") == format!("{committed:?}") {
            Ok(())
        } else {
            Err(StoreError::Other("a read-only unit of work ran a write statement".into()).into())
        }
    }

    fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

fn in_scope_of(account_id: &AccountId, livemode: bool, scope: &Scope) -> bool {
    *account_id == scope.account_id && livemode == scope.livemode()
}

/// A row as the stores tell it apart in a write: its id within its tenant (account and mode), and
/// its version.
trait Stored {
    fn key(&self) -> (&str, &AccountId, bool);
    fn version(&self) -> i64;
}

/// [`Stored`] for entities with the usual getters.
macro_rules! stored {
    ($($entity:ty),* $(,)?) => {$(
        impl Stored for $entity {
            fn key(&self) -> (&str, &AccountId, bool) {
                (self.id().as_str(), self.account_id(), self.livemode())
            }
            fn version(&self) -> i64 {
                <$entity>::version(self)
            }
        }
    )*};
}

stored!(PaymentIntent, Payment, Refund, SetupIntent, Webhook, CheckoutSession, MailMessage, BillingStatement, Payout);

impl Stored for ProcessorOperation {
    fn key(&self) -> (&str, &AccountId, bool) {
        (self.idempotency_key(), self.account_id(), self.livemode())
    }
    fn version(&self) -> i64 {
        ProcessorOperation::version(self)
    }
}

/// [`Stored`] for entities whose fields are public.
macro_rules! stored_fields {
    ($($entity:ty),* $(,)?) => {$(
        impl Stored for $entity {
            fn key(&self) -> (&str, &AccountId, bool) {
                (self.id.as_str(), &self.account_id, self.livemode)
            }
            fn version(&self) -> i64 {
                self.version
            }
        }
    )*};
}

stored_fields!(Customer, Product, Price, payments_domain::page::Page);

/// The stored row that `value` replaces: the same key, at `expected_version`.
fn versioned_row<'a, T: Stored>(items: &'a mut [T], value: &T, expected_version: i64) -> Result<&'a mut T, StoreError> {
    items
        .iter_mut()
        .find(|item| item.key() == value.key() && item.version() == expected_version)
        .ok_or(StoreError::Conflict)
}

/// Replaces the row of `value`'s key if its version is `expected_version`.
fn replace_versioned<T: Stored + Clone>(items: &mut [T], value: &T, expected_version: i64) -> Result<(), StoreError> {
    *versioned_row(items, value, expected_version)? = value.clone();
    Ok(())
}

/// Up to `limit` of `items` whose `due_at` has come at `now`, in `within` or in any scope, the
/// longest due first.
fn due_of<T: Stored + Clone>(
    items: &[T],
    within: Option<&Scope>,
    due_at: impl Fn(&T) -> Option<Timestamp>,
    now: Timestamp,
    limit: u32,
) -> Vec<T> {
    let in_reach = |item: &&T| {
        let (_, account_id, livemode) = item.key();
        within.is_none_or(|scope| in_scope_of(account_id, livemode, scope))
    };
    let mut due: Vec<&T> =
        items.iter().filter(in_reach).filter(|item| due_at(item).is_some_and(|due| due <= now)).collect();
    due.sort_by_key(|item| due_at(item));
    due.into_iter().take(limit as usize).cloned().collect()
}

/// A page of `visible` (oldest first), newest first, with cursors naming items by `id_of`.
fn page_of<T: Clone>(visible: &[&T], id_of: impl Fn(&T) -> &str, page: &PageRequest) -> Result<Page<T>, StoreError> {
    filtered_page_of(visible, id_of, |_| true, page)
}

/// A page of the items of `in_scope` (oldest first) that `matches`, newest first. As in the
/// database, a cursor names any item of the scope, whether it matches or not.
fn filtered_page_of<T: Clone>(
    in_scope: &[&T],
    id_of: impl Fn(&T) -> &str,
    matches: impl Fn(&T) -> bool,
    page: &PageRequest,
) -> Result<Page<T>, StoreError> {
    let position = |id: &str| in_scope.iter().position(|item| id_of(item) == id).ok_or(StoreError::UnknownCursor);
    let overfetch = page.limit() as usize + 1;
    let (range, newest_first) = match page.cursor() {
        None => (in_scope, true),
        Some(Cursor::After(id)) => (&in_scope[..position(id)?], true),
        Some(Cursor::Before(id)) => (&in_scope[position(id)? + 1..], false),
    };
    let matching = range.iter().filter(|item| matches(item)).map(|item| (*item).clone());
    let rows = if newest_first { matching.rev().take(overfetch).collect() } else { matching.take(overfetch).collect() };
    Ok(Page::from_overfetched(rows, page))
}

/// A new customer named `name`, with an e-mail address made from it, billed in pesos.
///
/// # Panics
/// When `name` is not a valid customer name.
#[must_use]
pub fn new_customer(name: &str) -> payments_domain::customer::NewCustomer {
    use payments_domain::customer::{CustomerName, Email};
    payments_domain::customer::NewCustomer {
        name: CustomerName::new(name.into()).expect("a valid name"),
        email: Email::new(format!("{}@example.com", name.to_lowercase())).expect("a valid address"),
        currency: Currency::Php,
        billing_statement_prefix: None,
        next_billing_statement_sequence_number: None,
        billing: None,
        metadata: None,
    }
}

/// A payment intent of `centavos` in pesos, by card only, with nothing else set.
///
/// # Panics
/// When `centavos` is not a valid amount.
#[must_use]
pub fn card_intent(centavos: i64) -> NewPaymentIntent {
    NewPaymentIntent {
        amount: Amount::new(centavos).expect("a valid amount"),
        currency: Currency::Php,
        payment_methods: vec![PaymentMethodType::Card],
        statement_descriptor: None,
        description: None,
        metadata: None,
        customer_id: None,
        return_url: None,
        card_options: CardOptions::default(),
    }
}

/// Fakes of every port wired together, with two accounts to test tenant isolation.
pub struct TestPorts {
    pub store: Arc<InMemoryStore>,
    pub clock: Arc<ManualClock>,
    pub ids: Arc<SequentialIds>,
    pub processor: Arc<ScriptedProcessor>,
    pub rail: Arc<ScriptedRail>,
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
            processor: Arc::new(ScriptedProcessor::approving()),
            rail: Arc::new(ScriptedRail::default()),
            account_id: AccountId::from_random("testaccount"),
            other_account_id: AccountId::from_random("otheraccount"),
        }
    }

    /// The main test account in `mode`.
    #[must_use]
    pub fn scope(&self, mode: Mode) -> Scope {
        Scope { account_id: self.account_id.clone(), mode }
    }

    /// A caller of the account with a key of `kind` in `mode`.
    #[must_use]
    pub fn caller(&self, mode: Mode, key_kind: KeyKind) -> Caller {
        Caller { scope: self.scope(mode), key_kind }
    }

    /// Another account, in test mode.
    #[must_use]
    pub fn other_scope(&self) -> Scope {
        Scope { account_id: self.other_account_id.clone(), mode: Mode::Test }
    }

    #[must_use]
    pub fn account_service(&self) -> AccountService {
        AccountService::new(self.store.clone(), self.clock.clone(), self.ids.clone(), self.rails())
    }

    /// Console sessions that end after an hour without a request.
    #[must_use]
    pub fn console_session_service(&self) -> ConsoleSessionService {
        let accounts = Arc::new(self.account_service());
        ConsoleSessionService::new(self.store.clone(), self.clock.clone(), self.ids.clone(), accounts, 3_600)
    }

    #[must_use]
    pub fn customer_service(&self) -> CustomerService {
        CustomerService::new(self.store.clone(), self.clock.clone(), self.ids.clone())
    }

    #[must_use]
    pub fn idempotency_service(&self) -> IdempotencyService {
        IdempotencyService::new(self.store.clone(), self.clock.clone())
    }

    /// Payment intents with the scripted processor in test mode, no live processor, flat 1% fees.
    #[must_use]
    pub fn payment_intent_service(&self) -> PaymentIntentService {
        let rate = FeeRate { basis_points: 100, fixed: 0 };
        let settings = PaymentIntentSettings {
            fees: FeeSchedule { card: rate, gcash: rate, maya: rate, billease: rate, qrph: rate },
            settlement: payments_domain::balance::SettlementDelays::default(),
            public_base_url: "http://127.0.0.1:8080".into(),
        };
        let processors = Processors { test: self.processor.clone(), live: Arc::new(processor::NoConnectors) };
        PaymentIntentService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            processors,
            Arc::new(MinimalPresenter),
            settings,
        )
    }

    /// Setup intents with the scripted processor in test mode and no live processor.
    #[must_use]
    pub fn setup_intent_service(&self) -> SetupIntentService {
        let processors = Processors { test: self.processor.clone(), live: Arc::new(processor::NoConnectors) };
        SetupIntentService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            processors,
            Arc::new(MinimalPresenter),
            "http://127.0.0.1:8080".into(),
        )
    }

    /// Checkout sessions over the payment intents above, their pages under `http://127.0.0.1:8080`.
    #[must_use]
    pub fn checkout_session_service(&self) -> CheckoutSessionService {
        CheckoutSessionService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            Arc::new(MinimalPresenter),
            Arc::new(self.payment_intent_service()),
            "http://127.0.0.1:8080".into(),
        )
    }

    #[must_use]
    pub fn customer_session_service(&self) -> CustomerSessionService {
        CustomerSessionService::new(self.store.clone(), self.clock.clone(), self.ids.clone())
    }

    #[must_use]
    pub fn payment_method_service(&self) -> PaymentMethodService {
        PaymentMethodService::new(self.store.clone(), self.clock.clone())
    }

    #[must_use]
    pub fn payment_service(&self) -> PaymentService {
        PaymentService::new(self.store.clone(), self.clock.clone())
    }

    #[must_use]
    pub fn overview_service(&self) -> OverviewService {
        OverviewService::new(self.store.clone(), self.clock.clone())
    }

    #[must_use]
    pub fn refund_service(&self) -> RefundService {
        let connectors = Arc::new(processor::NoConnectors);
        RefundService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            Arc::new(MinimalPresenter),
            connectors,
        )
    }

    #[must_use]
    pub fn processor_event_service(&self) -> ProcessorEventService {
        let intents = (Arc::new(self.payment_intent_service()), Arc::new(self.refund_service()));
        ProcessorEventService::new(self.store.clone(), self.clock.clone(), Arc::new(processor::NoConnectors), intents)
    }

    #[must_use]
    pub fn event_service(&self) -> EventService {
        EventService::new(self.store.clone())
    }

    #[must_use]
    pub fn webhook_service(&self) -> WebhookService {
        WebhookService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            Arc::new(PermissiveUrlGuard),
            24 * 3_600,
        )
    }

    /// Billing statements over the payment intents above, with the plain composer; `mail_delivers`
    /// says whether a mail server is configured.
    #[must_use]
    pub fn billing_statement_service(&self, mail_delivers: bool) -> BillingStatementService {
        BillingStatementService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            Arc::new(MinimalPresenter),
            Arc::new(PlainComposer),
            Arc::new(self.payment_intent_service()),
            mail_delivers,
            "http://127.0.0.1:8080".into(),
        )
    }

    /// The outbox, retried after 1, 2, 4 … seconds without jitter, given up after an hour.
    #[must_use]
    pub fn mail_message_service(&self) -> MailMessageService {
        let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 60_000, jitter: 0.0, give_up_after_ms: 3_600_000 };
        MailMessageService::new(self.store.clone(), self.clock.clone(), self.ids.clone(), schedule)
    }

    /// Deliveries retried after 1, 2, 4 … seconds without jitter, given up after an hour.
    #[must_use]
    pub fn delivery_service(&self) -> WebhookDeliveryService {
        let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 60_000, jitter: 0.0, give_up_after_ms: 3_600_000 };
        WebhookDeliveryService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            Arc::new(MinimalPresenter),
            schedule,
        )
    }

    /// The background actions over the services above.
    #[must_use]
    pub fn due_work(&self) -> DueWork {
        DueWork::new(
            (Arc::new(self.payment_intent_service()), Arc::new(self.setup_intent_service())),
            (Arc::new(self.checkout_session_service()), Arc::new(self.billing_statement_service(false))),
            (
                Arc::new(self.payout_service()),
                Arc::new(self.refund_service()),
                Arc::new(self.processor_event_service()),
            ),
            self.store.clone(),
            self.clock.clone(),
        )
    }

    #[must_use]
    pub fn payout_service(&self) -> PayoutService {
        PayoutService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            Arc::new(MinimalPresenter),
            self.rails(),
        )
    }

    /// The scripted rail in test mode; no payouts in live mode.
    #[must_use]
    pub fn rails(&self) -> PayoutRails {
        PayoutRails { test: self.rail.clone(), live: None }
    }

    #[must_use]
    pub fn balance_service(&self) -> BalanceService {
        BalanceService::new(self.store.clone(), self.clock.clone(), self.rails())
    }

    /// Test clocks over the services above.
    #[must_use]
    pub fn test_clock_service(&self) -> TestClockService {
        TestClockService::new(self.clock.clone(), Arc::new(self.due_work()), Arc::new(self.delivery_service()))
    }
}

impl Default for TestPorts {
    fn default() -> Self {
        Self::new()
    }
}
