//! In-memory fakes of every port, so services are tested without a database.
//!
//! A transaction works on a copy of the state and swaps it in on success, so a failed use case leaves
//! nothing behind, as with a real database.

pub mod contract;

use crate::error::ApplicationError;
use crate::pagination::{Cursor, Page, PageRequest};
use crate::ports::unit_of_work::Work;
use crate::ports::{
    AccountRepository, Clock, CustomerFilter, CustomerRepository, IdGenerator, IdempotencyRecord,
    IdempotencyRepository, IdempotencyState, KeyRecord, StoreError, UnitOfWork,
};
use crate::ports::{
    Authorization, AuthorizationRequest, EventRepository, PaymentIntentRepository, PaymentMethodInput,
    PaymentProcessor, PaymentRepository, Presenter, ProcessorError, RefundRepository,
};
use crate::ports::{
    BillingStatementFilter, BillingStatementRepository, MailComposer, MailMessageRepository, StatementNotice,
};
use crate::ports::{
    CheckoutSessionRepository, CustomerSessionRepository, PaymentMethodRepository, SetupIntentRepository, Verification,
    VerificationRequest,
};
use crate::ports::{
    DeliveryAttempt, DeliveryBacklog, DeliveryRepository, PassOver, UrlGuard, WebhookFilter, WebhookRepository,
};
use crate::scope::{Caller, Scope};
use crate::services::{
    AccountService, CustomerService, EventService, IdempotencyService, PaymentIntentService, PaymentIntentSettings,
    PaymentMethodService, PaymentService, Processors, RefundService, SetupIntentService, WebhookDeliveryService,
    WebhookService,
};
use crate::services::{BillingStatementService, MailMessageService};
use payments_domain::account::{Account, KeyKind, Mode};
use payments_domain::billing_statement::{BillingStatement, BillingStatementStatus, LineItem};
use payments_domain::checkout_session::{CheckoutSession, CheckoutSessionStatus};
use payments_domain::customer::{BillingStatementPrefix, Customer};
use payments_domain::customer_session::CustomerSession;
use payments_domain::description::Description;
use payments_domain::event::Event;
use payments_domain::ids::CheckoutSessionId;
use payments_domain::ids::{AccountId, CustomerId};
use payments_domain::ids::{BillingStatementId, BillingStatementLineItemId};
use payments_domain::ids::{CustomerSessionId, PaymentMethodId, SetupIntentId};
use payments_domain::ids::{DeliveryId, EventId, PaymentId, PaymentIntentId, RefundId, WebhookId};
use payments_domain::mail_message::{MailContent, MailMessage, MailStatus};
use payments_domain::payment::{FeeRate, FeeSchedule, Payment};
use payments_domain::payment_intent::{AuthorizationOutcome, PaymentIntent, PaymentIntentStatus};
use payments_domain::payment_method::PaymentMethod;
use payments_domain::payment_method::{Funding, QrphSummary};
use payments_domain::refund::Refund;
use payments_domain::retry::RetrySchedule;
use payments_domain::setup_intent::{SetupIntent, SetupIntentStatus};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{DeliveryMove, DeliveryStatus, Webhook, WebhookStatus};
use payments_domain::webhook_delivery::{fan_out, Delivery, EndpointHealth};
use serde_json::{json, Value};
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

    fn find(&mut self, id: &AccountId) -> Result<Option<Account>, StoreError> {
        Ok(self.accounts.iter().find(|account| &account.id == id).cloned())
    }

    fn count(&mut self) -> Result<i64, StoreError> {
        i64::try_from(self.accounts.len()).map_err(|e| StoreError::Other(e.into()))
    }

    fn lock_first_account(&mut self) -> Result<(), StoreError> {
        // One fake store runs one transaction at a time.
        Ok(())
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
                && filter.metadata.iter().all(|condition| condition.matches(c.metadata.as_ref()))
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
    fn find(&mut self, caller: &Caller, key: &str) -> Result<Option<IdempotencyRecord>, StoreError> {
        Ok(self.idempotency.iter().find(|r| &r.caller == caller && r.key == key).cloned())
    }

    fn insert(&mut self, record: &IdempotencyRecord) -> Result<(), StoreError> {
        if self.idempotency.iter().any(|r| r.caller == record.caller && r.key == record.key) {
            return Err(StoreError::UniqueViolation("idempotency_keys".into()));
        }
        self.idempotency.push(record.clone());
        Ok(())
    }

    fn complete(&mut self, caller: &Caller, key: &str, status: u16, body: &[u8]) -> Result<(), StoreError> {
        if let Some(record) = self.idempotency.iter_mut().find(|r| &r.caller == caller && r.key == key) {
            record.state = IdempotencyState::Completed { status, body: body.to_vec() };
        }
        Ok(())
    }

    fn delete(&mut self, caller: &Caller, key: &str) -> Result<(), StoreError> {
        self.idempotency.retain(|r| !(&r.caller == caller && r.key == key));
        Ok(())
    }

    fn delete_created_before(&mut self, cutoff: Timestamp) -> Result<usize, StoreError> {
        let before = self.idempotency.len();
        self.idempotency.retain(|r| r.created_at >= cutoff);
        Ok(before - self.idempotency.len())
    }
}

fn in_scope_of(account_id: &AccountId, livemode: bool, scope: &Scope) -> bool {
    *account_id == scope.account_id && livemode == scope.livemode()
}

/// Replaces the element `matches` picks if its version is `expected_version`.
fn replace_versioned<T: Clone>(
    items: &mut [T],
    value: &T,
    matches: impl Fn(&T) -> bool,
    version: impl Fn(&T) -> i64,
    expected_version: i64,
) -> Result<(), StoreError> {
    let stored =
        items.iter_mut().find(|item| matches(item) && version(item) == expected_version).ok_or(StoreError::Conflict)?;
    *stored = value.clone();
    Ok(())
}

impl PaymentIntentRepository for State {
    fn insert(&mut self, intent: &PaymentIntent) -> Result<(), StoreError> {
        self.payment_intents.push(intent.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PaymentIntentId) -> Result<Option<PaymentIntent>, StoreError> {
        Ok(self
            .payment_intents
            .iter()
            .find(|i| i.id() == id && in_scope_of(i.account_id(), i.livemode(), scope))
            .cloned())
    }

    fn update(&mut self, intent: &PaymentIntent, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(
            &mut self.payment_intents,
            intent,
            |i| i.id() == intent.id(),
            |i| i.version(),
            expected_version,
        )
    }

    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<PaymentIntent>, StoreError> {
        Ok(self.payment_intents.iter().find(|i| i.redirect_token() == Some(token)).cloned())
    }

    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<PaymentIntent>, StoreError> {
        let with_actions = [
            PaymentIntentStatus::AwaitingNextAction,
            PaymentIntentStatus::Processing,
            PaymentIntentStatus::AwaitingCapture,
        ];
        let mut due: Vec<&PaymentIntent> = self
            .payment_intents
            .iter()
            .filter(|i| with_actions.contains(&i.status()) && i.action_due_at().is_some_and(|due| due <= now))
            .collect();
        due.sort_by_key(|i| i.action_due_at());
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }
}

impl SetupIntentRepository for State {
    fn insert(&mut self, intent: &SetupIntent) -> Result<(), StoreError> {
        self.setup_intents.push(intent.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &SetupIntentId) -> Result<Option<SetupIntent>, StoreError> {
        Ok(self
            .setup_intents
            .iter()
            .find(|i| i.id() == id && in_scope_of(i.account_id(), i.livemode(), scope))
            .cloned())
    }

    fn update(&mut self, intent: &SetupIntent, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.setup_intents, intent, |i| i.id() == intent.id(), |i| i.version(), expected_version)
    }

    fn find_by_redirect_token(&mut self, token: &str) -> Result<Option<SetupIntent>, StoreError> {
        Ok(self.setup_intents.iter().find(|i| i.redirect_token() == Some(token)).cloned())
    }

    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<SetupIntent>, StoreError> {
        let with_actions = [SetupIntentStatus::AwaitingNextAction, SetupIntentStatus::Processing];
        let mut due: Vec<&SetupIntent> = self
            .setup_intents
            .iter()
            .filter(|i| with_actions.contains(&i.status()) && i.action_due_at().is_some_and(|due| due <= now))
            .collect();
        due.sort_by_key(|i| i.action_due_at());
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }
}

impl PaymentMethodRepository for State {
    fn insert(&mut self, method: &PaymentMethod) -> Result<(), StoreError> {
        self.payment_methods.push(method.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PaymentMethodId) -> Result<Option<PaymentMethod>, StoreError> {
        Ok(self.payment_methods.iter().find(|m| &m.id == id && in_scope_of(&m.account_id, m.livemode, scope)).cloned())
    }

    fn list(
        &mut self,
        scope: &Scope,
        customer_id: &CustomerId,
        page: &PageRequest,
    ) -> Result<Page<PaymentMethod>, StoreError> {
        let visible: Vec<&PaymentMethod> = self
            .payment_methods
            .iter()
            .filter(|m| in_scope_of(&m.account_id, m.livemode, scope) && &m.customer_id == customer_id)
            .collect();
        page_of(&visible, |m| m.id.as_str(), page)
    }

    fn delete(&mut self, scope: &Scope, id: &PaymentMethodId) -> Result<bool, StoreError> {
        let before = self.payment_methods.len();
        self.payment_methods.retain(|m| !(&m.id == id && in_scope_of(&m.account_id, m.livemode, scope)));
        Ok(self.payment_methods.len() < before)
    }

    fn delete_for_customer(&mut self, scope: &Scope, customer_id: &CustomerId) -> Result<usize, StoreError> {
        let before = self.payment_methods.len();
        self.payment_methods
            .retain(|m| !(&m.customer_id == customer_id && in_scope_of(&m.account_id, m.livemode, scope)));
        Ok(before - self.payment_methods.len())
    }
}

impl CustomerSessionRepository for State {
    fn insert(&mut self, session: &CustomerSession) -> Result<(), StoreError> {
        self.customer_sessions.push(session.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &CustomerSessionId) -> Result<Option<CustomerSession>, StoreError> {
        Ok(self
            .customer_sessions
            .iter()
            .find(|s| &s.id == id && in_scope_of(&s.account_id, s.livemode, scope))
            .cloned())
    }
}

impl PaymentRepository for State {
    fn insert(&mut self, payment: &Payment) -> Result<(), StoreError> {
        self.payments.push(payment.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &PaymentId) -> Result<Option<Payment>, StoreError> {
        Ok(self.payments.iter().find(|p| p.id() == id && in_scope_of(p.account_id(), p.livemode(), scope)).cloned())
    }

    fn update(&mut self, payment: &Payment, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.payments, payment, |p| p.id() == payment.id(), |p| p.version(), expected_version)
    }
}

impl RefundRepository for State {
    fn insert(&mut self, refund: &Refund) -> Result<(), StoreError> {
        self.refunds.push(refund.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &RefundId) -> Result<Option<Refund>, StoreError> {
        Ok(self.refunds.iter().find(|r| r.id() == id && in_scope_of(r.account_id(), r.livemode(), scope)).cloned())
    }

    fn update(&mut self, refund: &Refund, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.refunds, refund, |r| r.id() == refund.id(), |r| r.version(), expected_version)
    }
}

impl EventRepository for State {
    fn append(&mut self, events: &[Event]) -> Result<(), StoreError> {
        self.events.extend_from_slice(events);
        let mut fanned_out = self.fanned_out;
        let deliveries = fan_out(events, &self.webhooks, || {
            fanned_out += 1;
            DeliveryId::from_random(&format!("fanout{fanned_out}"))
        });
        self.fanned_out = fanned_out;
        DeliveryRepository::insert(self, &deliveries)
    }

    fn find(&mut self, scope: &Scope, id: &EventId) -> Result<Option<Event>, StoreError> {
        let found = self.events.iter().find(|e| &e.id == id && in_scope_of(&e.account_id, e.livemode, scope));
        Ok(found.map(|event| self.with_pending_webhooks(event)))
    }

    fn find_many(&mut self, ids: &[EventId]) -> Result<Vec<Event>, StoreError> {
        Ok(self.events.iter().filter(|e| ids.contains(&e.id)).map(|event| self.with_pending_webhooks(event)).collect())
    }

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<Event>, StoreError> {
        let visible: Vec<&Event> =
            self.events.iter().filter(|e| in_scope_of(&e.account_id, e.livemode, scope)).collect();
        let position = |id: &str| visible.iter().position(|e| e.id.as_str() == id).ok_or(StoreError::UnknownCursor);
        let overfetch = page.limit() as usize + 1;
        let live = |e: &&Event| self.with_pending_webhooks(e);
        let rows: Vec<Event> = match page.cursor() {
            None => visible.iter().rev().take(overfetch).map(live).collect(),
            Some(Cursor::After(id)) => visible[..position(id)?].iter().rev().take(overfetch).map(live).collect(),
            Some(Cursor::Before(id)) => visible[position(id)? + 1..].iter().take(overfetch).map(live).collect(),
        };
        Ok(Page::from_overfetched(rows, page))
    }
}

impl State {
    /// `event` with the number of its deliveries outstanding now.
    fn with_pending_webhooks(&self, event: &Event) -> Event {
        let outstanding = self
            .deliveries
            .iter()
            .filter(|d| d.delivery.event_id() == &event.id && d.delivery.status().is_outstanding())
            .count();
        Event { pending_webhooks: i64::try_from(outstanding).unwrap_or(i64::MAX), ..event.clone() }
    }
}

impl WebhookRepository for State {
    fn insert(&mut self, webhook: &Webhook) -> Result<(), StoreError> {
        self.webhooks.push(webhook.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &WebhookId) -> Result<Option<Webhook>, StoreError> {
        Ok(self.webhooks.iter().find(|w| w.id() == id && in_scope_of(w.account_id(), w.livemode(), scope)).cloned())
    }

    fn update(&mut self, webhook: &Webhook, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(&mut self.webhooks, webhook, |w| w.id() == webhook.id(), Webhook::version, expected_version)
    }

    fn delete(&mut self, webhook: &Webhook) -> Result<(), StoreError> {
        self.webhooks.retain(|w| w.id() != webhook.id());
        self.endpoint_health.remove(webhook.id());
        Ok(())
    }

    fn list(&mut self, scope: &Scope, filter: &WebhookFilter, page: &PageRequest) -> Result<Page<Webhook>, StoreError> {
        let rows: Vec<Webhook> = self
            .webhooks
            .iter()
            .rev()
            .filter(|w| in_scope_of(w.account_id(), w.livemode(), scope))
            .filter(|w| filter.url.as_deref().is_none_or(|url| w.url().as_str() == url))
            .filter(|w| {
                filter.description.as_deref().is_none_or(|d| w.description().map(Description::as_str) == Some(d))
            })
            .take(page.limit() as usize + 1)
            .cloned()
            .collect();
        Ok(Page::from_overfetched(rows, page))
    }

    fn enabled(&mut self, scope: &Scope) -> Result<Vec<Webhook>, StoreError> {
        Ok(self
            .webhooks
            .iter()
            .filter(|w| in_scope_of(w.account_id(), w.livemode(), scope) && w.status() == WebhookStatus::Enabled)
            .cloned()
            .collect())
    }

    fn endpoints(&mut self, ids: &[WebhookId]) -> Result<Vec<(Webhook, EndpointHealth)>, StoreError> {
        Ok(self
            .webhooks
            .iter()
            .filter(|w| ids.contains(w.id()))
            .map(|w| (w.clone(), self.endpoint_health.get(w.id()).copied().unwrap_or(EndpointHealth::ANSWERING)))
            .collect())
    }

    fn set_health(&mut self, id: &WebhookId, health: &EndpointHealth) -> Result<(), StoreError> {
        if self.webhooks.iter().any(|w| w.id() == id) {
            self.endpoint_health.insert(id.clone(), *health);
        }
        Ok(())
    }
}

/// A delivery in the fake store, with the lease a worker holds on it.
#[derive(Debug, Clone)]
struct LeasedDelivery {
    delivery: Delivery,
    owner: Option<String>,
    lease_until: Timestamp,
}

impl DeliveryRepository for State {
    fn insert(&mut self, deliveries: &[Delivery]) -> Result<(), StoreError> {
        let lease_until = Timestamp::from_unix_millis(0);
        self.deliveries.extend(deliveries.iter().map(|delivery| LeasedDelivery {
            delivery: delivery.clone(),
            owner: None,
            lease_until,
        }));
        Ok(())
    }

    fn due(&mut self, now: Timestamp, limit: u32, pass_over: &PassOver) -> Result<Vec<Delivery>, StoreError> {
        let mut due: Vec<&LeasedDelivery> = self
            .deliveries
            .iter()
            .filter(|d| {
                d.delivery.status() == DeliveryStatus::Pending
                    && d.delivery.next_attempt_at() <= now
                    && d.lease_until <= now
                    && !pass_over.webhooks.contains(d.delivery.webhook_id())
                    && !pass_over.accounts.contains(d.delivery.account_id())
            })
            .collect();
        due.sort_by_key(|d| d.delivery.next_attempt_at());
        Ok(due.into_iter().take(limit as usize).map(|d| d.delivery.clone()).collect())
    }

    fn claim(
        &mut self,
        ids: &[DeliveryId],
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Vec<DeliveryId>, StoreError> {
        let mut claimed = Vec::new();
        for leased in self.deliveries.iter_mut() {
            let claimable = leased.delivery.status() == DeliveryStatus::Pending && leased.lease_until <= now;
            if claimable && ids.contains(leased.delivery.id()) {
                leased.owner = Some(owner.to_owned());
                leased.lease_until = lease_until;
                claimed.push(leased.delivery.id().clone());
            }
        }
        Ok(claimed)
    }

    fn release(&mut self, ids: &[DeliveryId], owner: &str) -> Result<u64, StoreError> {
        let mut released = 0;
        for leased in self.deliveries.iter_mut() {
            if ids.contains(leased.delivery.id()) && leased.owner.as_deref() == Some(owner) {
                leased.owner = None;
                leased.lease_until = Timestamp::from_unix_millis(0);
                released += 1;
            }
        }
        Ok(released)
    }

    fn settle(&mut self, delivery: &Delivery, owner: &str) -> Result<bool, StoreError> {
        let held = |d: &&mut LeasedDelivery| {
            d.delivery.id() == delivery.id()
                && d.owner.as_deref() == Some(owner)
                && d.delivery.status() == DeliveryStatus::Pending
        };
        match self.deliveries.iter_mut().find(held) {
            Some(leased) => {
                *leased = LeasedDelivery {
                    delivery: delivery.clone(),
                    owner: None,
                    lease_until: Timestamp::from_unix_millis(0),
                };
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn move_all(&mut self, webhook_id: &WebhookId, change: &DeliveryMove) -> Result<u64, StoreError> {
        let mut moved = 0;
        for leased in self.deliveries.iter_mut().filter(|d| d.delivery.webhook_id() == webhook_id) {
            moved += u64::from(leased.delivery.apply(change));
        }
        Ok(moved)
    }

    fn postpone(&mut self, webhook_id: &WebhookId, until: Timestamp, now: Timestamp) -> Result<u64, StoreError> {
        let mut moved = 0;
        for leased in self.deliveries.iter_mut().filter(|d| d.delivery.webhook_id() == webhook_id) {
            if leased.lease_until <= now {
                moved += u64::from(leased.delivery.postpone(until));
            }
        }
        Ok(moved)
    }

    fn record_attempts(&mut self, attempts: &[DeliveryAttempt]) -> Result<(), StoreError> {
        self.attempts.extend_from_slice(attempts);
        Ok(())
    }

    fn attempts(&mut self, webhook_id: &WebhookId, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError> {
        Ok(self.attempts.iter().rev().filter(|a| &a.webhook_id == webhook_id).take(limit as usize).cloned().collect())
    }

    fn backlog(&mut self) -> Result<DeliveryBacklog, StoreError> {
        let pending = self.deliveries.iter().filter(|d| d.delivery.status() == DeliveryStatus::Pending);
        Ok(pending.fold(DeliveryBacklog::default(), |backlog, d| DeliveryBacklog {
            pending: backlog.pending + 1,
            oldest_created_at: Some(
                backlog.oldest_created_at.map_or(d.delivery.created_at(), |oldest| oldest.min(d.delivery.created_at())),
            ),
        }))
    }
}

/// A processor that answers every authorization with a scripted outcome.
#[derive(Debug)]
pub struct ScriptedProcessor {
    outcome: Mutex<AuthorizationOutcome>,
}

impl ScriptedProcessor {
    #[must_use]
    pub fn approving() -> Self {
        Self { outcome: Mutex::new(AuthorizationOutcome::Approved) }
    }

    fn scripted(&self) -> AuthorizationOutcome {
        self.outcome.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Answers `outcome` from now on.
    pub fn answer(&self, outcome: AuthorizationOutcome) {
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = outcome;
    }
}

impl PaymentProcessor for ScriptedProcessor {
    fn authorize(&self, request: &AuthorizationRequest<'_>) -> Result<Authorization, ProcessorError> {
        let card = match request.method {
            PaymentMethodInput::Card(card) => Some(card.summary(Funding::Credit)),
            PaymentMethodInput::Saved(saved) => Some(saved.card.clone()),
            PaymentMethodInput::Redirect(_) => None,
        };
        Ok(Authorization { outcome: self.scripted(), card })
    }

    fn verify(&self, request: &VerificationRequest<'_>) -> Result<Verification, ProcessorError> {
        Ok(Verification {
            outcome: self.scripted(),
            card: request.card.summary(Funding::Credit),
            processor_reference: "scripted".to_owned(),
        })
    }

    fn qrph_payer(&self) -> Option<QrphSummary> {
        None
    }
}

/// A URL guard that allows every URL but those containing `refused`.
#[derive(Debug, Default)]
pub struct PermissiveUrlGuard;

impl UrlGuard for PermissiveUrlGuard {
    fn check(&self, url: &str, _livemode: bool) -> Result<(), String> {
        if url.contains("refused") {
            return Err("refused by the test guard".to_owned());
        }
        Ok(())
    }
}

/// A presenter that shows the fields the tests look at.
#[derive(Debug, Default)]
pub struct MinimalPresenter;

impl Presenter for MinimalPresenter {
    fn payment_intent(&self, intent: &PaymentIntent, latest_payment: Option<&Payment>, _: Option<&Customer>) -> Value {
        json!({
            "id": intent.id().as_str(),
            "status": intent.status().as_str(),
            "amount_received": intent.amount_received(),
            "amount_capturable": intent.amount_capturable(),
            "latest_payment": latest_payment.map(|p| p.id().as_str()),
        })
    }

    fn payment(&self, payment: &Payment, _: Option<&Customer>) -> Value {
        json!({"id": payment.id().as_str(), "status": payment.status().as_str(), "amount_refunded": payment.amount_refunded()})
    }

    fn refund(&self, refund: &Refund) -> Value {
        json!({"id": refund.id().as_str(), "amount": refund.amount()})
    }

    fn setup_intent(&self, intent: &SetupIntent, customer: &Customer) -> Value {
        json!({"id": intent.id().as_str(), "status": intent.status().as_str(), "customer": customer.id.as_str()})
    }

    fn checkout_session(&self, session: &CheckoutSession, payment_intent: &Value) -> Value {
        json!({"id": session.id().as_str(), "status": session.status().as_str(), "payment_intent": payment_intent})
    }

    fn billing_statement(&self, statement: &BillingStatement, _: &Customer, intent: Option<&Value>, _: &str) -> Value {
        json!({"id": statement.id().as_str(), "status": statement.status().as_str(), "amount": statement.amount(), "payment_intent": intent})
    }

    fn billing_statement_line_item(&self, item: &LineItem, statement_id: &BillingStatementId, _: bool) -> Value {
        json!({"id": item.id.as_str(), "billing_statement_id": statement_id.as_str(), "quantity": item.quantity})
    }

    fn event(&self, event: &Event, data: &Value, _: &Value) -> String {
        json!({"id": event.id.as_str(), "type": event.event_type.as_str(), "data": data}).to_string()
    }

    fn stored_event(&self, event: &Event) -> String {
        let mut envelope: Value = serde_json::from_str(&event.body).unwrap_or(Value::Null);
        envelope["pending_webhooks"] = json!(event.pending_webhooks);
        envelope.to_string()
    }
}

/// A page of `visible` (oldest first), newest first, with cursors naming items by `id_of`.
fn page_of<T: Clone>(visible: &[&T], id_of: impl Fn(&T) -> &str, page: &PageRequest) -> Result<Page<T>, StoreError> {
    let position = |id: &str| visible.iter().position(|item| id_of(item) == id).ok_or(StoreError::UnknownCursor);
    let overfetch = page.limit() as usize + 1;
    let rows: Vec<T> = match page.cursor() {
        None => visible.iter().rev().take(overfetch).map(|item| (*item).clone()).collect(),
        Some(Cursor::After(id)) => {
            visible[..position(id)?].iter().rev().take(overfetch).map(|i| (*i).clone()).collect()
        }
        Some(Cursor::Before(id)) => visible[position(id)? + 1..].iter().take(overfetch).map(|i| (*i).clone()).collect(),
    };
    Ok(Page::from_overfetched(rows, page))
}

impl CheckoutSessionRepository for State {
    fn insert(&mut self, session: &CheckoutSession) -> Result<(), StoreError> {
        self.checkout_sessions.push(session.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &CheckoutSessionId) -> Result<Option<CheckoutSession>, StoreError> {
        Ok(self
            .checkout_sessions
            .iter()
            .find(|s| s.id() == id && in_scope_of(s.account_id(), s.livemode(), scope))
            .cloned())
    }

    fn find_for_page(&mut self, id: &CheckoutSessionId) -> Result<Option<CheckoutSession>, StoreError> {
        Ok(self.checkout_sessions.iter().find(|s| s.id() == id).cloned())
    }

    fn find_by_payment_intent(
        &mut self,
        scope: &Scope,
        payment_intent_id: &PaymentIntentId,
    ) -> Result<Option<CheckoutSession>, StoreError> {
        Ok(self
            .checkout_sessions
            .iter()
            .find(|s| s.payment_intent_id() == payment_intent_id && in_scope_of(s.account_id(), s.livemode(), scope))
            .cloned())
    }

    fn update(&mut self, session: &CheckoutSession, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(
            &mut self.checkout_sessions,
            session,
            |s| s.id() == session.id(),
            CheckoutSession::version,
            expected_version,
        )
    }

    fn list(&mut self, scope: &Scope, page: &PageRequest) -> Result<Page<CheckoutSession>, StoreError> {
        let visible: Vec<&CheckoutSession> =
            self.checkout_sessions.iter().filter(|s| in_scope_of(s.account_id(), s.livemode(), scope)).collect();
        page_of(&visible, |s| s.id().as_str(), page)
    }

    fn expired(&mut self, now: Timestamp, limit: u32) -> Result<Vec<CheckoutSession>, StoreError> {
        let mut due: Vec<&CheckoutSession> = self
            .checkout_sessions
            .iter()
            .filter(|s| s.status() == CheckoutSessionStatus::Active && s.expires_at() <= now)
            .collect();
        due.sort_by_key(|s| s.expires_at());
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }
}

impl BillingStatementRepository for State {
    fn insert(&mut self, statement: &BillingStatement) -> Result<(), StoreError> {
        self.billing_statements.push(statement.clone());
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &BillingStatementId) -> Result<Option<BillingStatement>, StoreError> {
        Ok(self
            .billing_statements
            .iter()
            .find(|s| s.id() == id && in_scope_of(s.account_id(), s.livemode(), scope))
            .cloned())
    }

    fn find_for_page(&mut self, id: &BillingStatementId) -> Result<Option<BillingStatement>, StoreError> {
        Ok(self.billing_statements.iter().find(|s| s.id() == id).cloned())
    }

    fn find_by_payment_intent(
        &mut self,
        scope: &Scope,
        payment_intent_id: &PaymentIntentId,
    ) -> Result<Option<BillingStatement>, StoreError> {
        Ok(self
            .billing_statements
            .iter()
            .find(|s| {
                s.payment_intent_id() == Some(payment_intent_id) && in_scope_of(s.account_id(), s.livemode(), scope)
            })
            .cloned())
    }

    fn find_by_line_item(
        &mut self,
        scope: &Scope,
        id: &BillingStatementLineItemId,
    ) -> Result<Option<BillingStatement>, StoreError> {
        Ok(self
            .billing_statements
            .iter()
            .find(|s| s.line_item(id).is_some() && in_scope_of(s.account_id(), s.livemode(), scope))
            .cloned())
    }

    fn update(&mut self, statement: &BillingStatement, expected_version: i64) -> Result<(), StoreError> {
        // Line items are written by `replace_line_items`, as in the database: keep the stored ones.
        let stored = self
            .billing_statements
            .iter_mut()
            .find(|s| s.id() == statement.id() && s.version() == expected_version)
            .ok_or(StoreError::Conflict)?;
        let items = stored.line_items().to_vec();
        *stored = with_line_items(statement, items);
        Ok(())
    }

    fn replace_line_items(&mut self, statement: &BillingStatement) -> Result<(), StoreError> {
        let stored =
            self.billing_statements.iter_mut().find(|s| s.id() == statement.id()).ok_or(StoreError::Conflict)?;
        *stored = with_line_items(stored, statement.line_items().to_vec());
        Ok(())
    }

    fn delete(&mut self, statement: &BillingStatement, expected_version: i64) -> Result<(), StoreError> {
        let before = self.billing_statements.len();
        self.billing_statements.retain(|s| !(s.id() == statement.id() && s.version() == expected_version));
        if self.billing_statements.len() == before {
            return Err(StoreError::Conflict);
        }
        Ok(())
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &BillingStatementFilter,
        page: &PageRequest,
    ) -> Result<Page<BillingStatement>, StoreError> {
        let in_scope: Vec<&BillingStatement> =
            self.billing_statements.iter().filter(|s| in_scope_of(s.account_id(), s.livemode(), scope)).collect();
        // A cursor names any statement of the scope, as in the database; the filter applies after.
        let cursor_known = page.cursor().is_none_or(|cursor| {
            let (Cursor::After(id) | Cursor::Before(id)) = cursor;
            in_scope.iter().any(|s| s.id().as_str() == id)
        });
        if !cursor_known {
            return Err(StoreError::UnknownCursor);
        }
        let cursor_id = page.cursor().map(|(Cursor::After(id) | Cursor::Before(id))| id.clone());
        let visible: Vec<&BillingStatement> = in_scope
            .into_iter()
            .filter(|s| {
                cursor_id.as_deref() == Some(s.id().as_str())
                    || (filter.customer_id.as_ref().is_none_or(|id| s.customer_id() == id)
                        && filter.status.is_none_or(|status| s.status() == status))
            })
            .collect();
        let mut found = page_of(&visible, |s| s.id().as_str(), page)?;
        found.data.retain(|s| cursor_id.as_deref() != Some(s.id().as_str()));
        Ok(found)
    }

    fn with_notice_due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<BillingStatement>, StoreError> {
        let mut due: Vec<&BillingStatement> = self
            .billing_statements
            .iter()
            .filter(|s| s.status() == BillingStatementStatus::Open && s.next_notice_at().is_some_and(|at| at <= now))
            .collect();
        due.sort_by_key(|s| s.next_notice_at());
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }
}

/// `statement` holding `items`.
fn with_line_items(statement: &BillingStatement, items: Vec<LineItem>) -> BillingStatement {
    BillingStatement::restore(payments_domain::billing_statement::StoredBillingStatement {
        line_items: items,
        ..statement.stored()
    })
}

impl MailMessageRepository for State {
    fn insert(&mut self, message: &MailMessage) -> Result<(), StoreError> {
        self.mail_messages.push(message.clone());
        Ok(())
    }

    fn due(&mut self, now: Timestamp, limit: u32) -> Result<Vec<MailMessage>, StoreError> {
        let mut due: Vec<&MailMessage> = self
            .mail_messages
            .iter()
            .filter(|m| m.status() == MailStatus::Pending && m.next_attempt_at() <= now)
            .collect();
        due.sort_by_key(|m| m.next_attempt_at());
        Ok(due.into_iter().take(limit as usize).cloned().collect())
    }

    fn update(&mut self, message: &MailMessage, expected_version: i64) -> Result<(), StoreError> {
        replace_versioned(
            &mut self.mail_messages,
            message,
            |m| m.id() == message.id(),
            MailMessage::version,
            expected_version,
        )
    }

    fn latest(&mut self, scope: &Scope, limit: u32) -> Result<Vec<MailMessage>, StoreError> {
        Ok(self
            .mail_messages
            .iter()
            .rev()
            .filter(|m| in_scope_of(m.account_id(), m.livemode(), scope))
            .take(limit as usize)
            .cloned()
            .collect())
    }
}

/// A composer that writes the statement's number and total as plain text.
#[derive(Debug, Default)]
pub struct PlainComposer;

impl MailComposer for PlainComposer {
    fn billing_statement(&self, notice: StatementNotice<'_>) -> MailContent {
        let number = notice.statement.finalization().map(|done| done.number.clone()).unwrap_or_default();
        MailContent {
            from: "billing@shop.example".to_owned(),
            to: notice.customer.email.as_str().to_owned(),
            subject: format!("{} {number}", notice.merchant_name),
            message_id: format!("<{}@shop.example>", notice.message_key),
            text: format!("{number}: {}", notice.statement.amount()),
            html: format!("<p>{number}</p>"),
        }
    }
}

/// A clock that stands still until moved.
#[derive(Debug)]
pub struct ManualClock {
    millis: AtomicI64,
}

impl ManualClock {
    #[must_use]
    pub fn at(seconds: i64) -> Self {
        Self { millis: AtomicI64::new(Timestamp::from_unix_seconds(seconds).unix_millis()) }
    }

    pub fn advance(&self, seconds: i64) {
        self.advance_millis(seconds.saturating_mul(1_000));
    }

    pub fn advance_millis(&self, millis: i64) {
        self.millis.fetch_add(millis, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.millis.load(Ordering::SeqCst))
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

    fn fraction(&self) -> f64 {
        0.5
    }
}

/// Fakes of every port wired together, with two accounts to test tenant isolation.
pub struct TestPorts {
    pub store: Arc<InMemoryStore>,
    pub clock: Arc<ManualClock>,
    pub ids: Arc<SequentialIds>,
    pub processor: Arc<ScriptedProcessor>,
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

    /// Payment intents with the scripted processor in test mode, no live processor, flat 1% fees.
    #[must_use]
    pub fn payment_intent_service(&self) -> PaymentIntentService {
        let rate = FeeRate { basis_points: 100, fixed: 0 };
        let settings = PaymentIntentSettings {
            fees: FeeSchedule { card: rate, gcash: rate, maya: rate, billease: rate, qrph: rate },
            public_base_url: "http://127.0.0.1:8080".into(),
        };
        let processors = Processors { test: self.processor.clone(), live: None };
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
        let processors = Processors { test: self.processor.clone(), live: None };
        SetupIntentService::new(
            self.store.clone(),
            self.clock.clone(),
            self.ids.clone(),
            processors,
            Arc::new(MinimalPresenter),
            "http://127.0.0.1:8080".into(),
        )
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
    pub fn refund_service(&self) -> RefundService {
        RefundService::new(self.store.clone(), self.clock.clone(), self.ids.clone(), Arc::new(MinimalPresenter))
    }

    #[must_use]
    pub fn event_service(&self) -> EventService {
        EventService::new(self.store.clone())
    }

    #[must_use]
    pub fn webhook_service(&self) -> WebhookService {
        WebhookService::new(self.store.clone(), self.clock.clone(), self.ids.clone(), Arc::new(PermissiveUrlGuard))
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
}

impl Default for TestPorts {
    fn default() -> Self {
        Self::new()
    }
}
