//! Payment intents: create, retrieve, update, attach, capture, cancel; the test authorization
//! redirect; and the background actions (hold expiry, redirect expiry, processing end).

use super::balance::record_payment;
use super::customer::live_customer;
use super::customer_session::authorize_session;
use super::due::DueKind;
use super::event::EventLog;
use super::intent_owner::{became_paid, ensure_not_owned, intent_paid, owner_allows};
use super::payment_method::saved_method;
use super::pending_authorization::AuthorizationFlow;
use super::redirect::{
    check_client_secret, check_redirect_url, test_redirect, unknown_token, well_formed_token, Access, RedirectPage,
};
use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::connector::ConnectorDirectory;
use crate::ports::StoreError;
use crate::ports::{
    in_transaction, reading, retry_on_conflict, AuthorizationRequest, Clock, CustomerFilter, EventFilter, IdGenerator,
    PaymentIntentFilter, PaymentMethodInput, PaymentProcessor, Presenter, ProcessorError, Repositories, UnitOfWork,
};
use crate::scope::Scope;
use payments_domain::balance::SettlementDelays;
use payments_domain::customer::Customer;
use payments_domain::customer_session::Feature;
use payments_domain::error::DomainError;
use payments_domain::event::{Event, EventType};
use payments_domain::ids::ClientSecret;
use payments_domain::ids::{CustomerId, PaymentId, PaymentIntentId, PaymentMethodId, RANDOM_PART_LENGTH};
use payments_domain::money::Amount;
use payments_domain::payment::{FeeSchedule, Payment};
use payments_domain::payment_intent::{
    Attempt, AttemptResult, CardToSave, NewPaymentIntent, PaymentError, PaymentIntent, PaymentIntentChanges,
    PaymentIntentOperation, PaymentIntentStatus,
};
use payments_domain::payment_method::{PaymentBilling, PaymentMethod, PaymentMethodRecord, PaymentMethodType};
use payments_domain::pending_authorization::DueAction;
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::refund::Refund;
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use serde_json::Value;
use std::sync::Arc;

mod live;
pub use live::ScriptAuthentication;

const RESOURCE: &str = "payment_intent";
/// The query parameter that brings the client secret back to the merchant's `return_url`.
const CLIENT_SECRET_PARAMETER: &str = "payment_intent_client_secret";

/// The processors: the simulator in test mode, and each account's connector in live mode.
#[derive(Clone)]
pub struct Processors {
    pub test: Arc<dyn PaymentProcessor>,
    pub live: Arc<dyn ConnectorDirectory>,
}

impl Processors {
    /// The processor of test mode; live mode goes through the account's connector, and what has
    /// not been brought to the connector yet (saving a card alone) is not available there.
    pub(crate) fn for_mode(&self, livemode: bool) -> Result<&Arc<dyn PaymentProcessor>, ApplicationError> {
        if livemode {
            Err(ApplicationError::NotConfigured("This is not available in live mode yet.".into()))
        } else {
            Ok(&self.test)
        }
    }
}

/// How payment intents are charged and where customers are sent to authenticate.
#[derive(Debug, Clone)]
pub struct PaymentIntentSettings {
    pub fees: FeeSchedule,
    /// When a paid payment's money is available for payout.
    pub settlement: SettlementDelays,
    /// Base of the URLs of the test authorization page.
    pub public_base_url: String,
}

/// An intent with the objects it embeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentIntentView {
    pub intent: PaymentIntent,
    pub latest_payment: Option<Payment>,
    pub customer: Option<Customer>,
}

/// How many intents are in one status, and what they received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusCount {
    pub status: PaymentIntentStatus,
    pub count: i64,
    pub amount_received: i64,
}

/// Intents counted by status; `complete` unless the count stopped at its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusCounts {
    pub counts: Vec<StatusCount>,
    pub complete: bool,
}

/// The events an intent's timeline shows, at most: the newest of the intent's, its payments' and
/// their refunds'.
pub const TIMELINE_EVENTS: u32 = 100;

/// An intent with what its page shows, read at once: each payment attempted, oldest first, with its
/// refunds; the newest events of all of them; and what the merchant may do now.
#[derive(Debug, Clone)]
pub struct IntentTimeline {
    pub view: PaymentIntentView,
    pub payments: Vec<(Payment, Vec<Refund>)>,
    pub events: Vec<Event>,
    /// What the merchant may ask of the intent now: what the domain allows, and its owner.
    pub allowed: Vec<PaymentIntentOperation>,
    /// The payments that may be refunded now, with what is left to refund of each.
    pub refundable: Vec<(PaymentId, i64)>,
}

/// What pays: a payment method given in the request, or one saved to the intent's customer.
#[derive(Debug, Clone)]
pub enum PaymentMethodChoice {
    Inline(PaymentMethodInput),
    /// The id of a payment method a setup intent saved.
    Saved(String),
}

impl From<PaymentMethodInput> for PaymentMethodChoice {
    fn from(input: PaymentMethodInput) -> Self {
        Self::Inline(input)
    }
}

/// A payment method to attach.
#[derive(Debug, Clone)]
pub struct AttachRequest {
    pub method: PaymentMethodChoice,
    pub billing: Option<PaymentBilling>,
    pub return_url: Option<RedirectUrl>,
    /// Save the card entered to the intent's customer once approved, as the customer asked in the
    /// payment element: the client secret of that customer's session, which must enable
    /// `payment_method_save`.
    pub save_with_session: Option<String>,
}

/// How an attach ended.
#[derive(Debug, Clone)]
pub enum AttachOutcome {
    /// Paid, held, redirected or processing.
    Attached(PaymentIntentView),
    /// Declined: the failed payment is recorded and the decline is reported.
    Declined(PaymentIntentView, PaymentError),
}

/// What a transition leaves behind besides the intent: a new payment and its event, and the intent's
/// own event.
struct Effects {
    payment: Option<(Payment, EventType)>,
    intent_event: Option<EventType>,
}

/// Payment intent use cases.
pub struct PaymentIntentService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    processors: Processors,
    presenter: Arc<dyn Presenter>,
    settings: PaymentIntentSettings,
}

impl PaymentIntentService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        processors: Processors,
        presenter: Arc<dyn Presenter>,
        settings: PaymentIntentSettings,
    ) -> Self {
        Self { unit_of_work, clock, ids, processors, presenter, settings }
    }

    fn random(&self) -> String {
        self.ids.alphanumeric(RANDOM_PART_LENGTH)
    }

    /// Creates an intent awaiting a payment method.
    ///
    /// # Errors
    /// `parameter_invalid` on `customer_id` naming no customer, or on a plain-`http` `return_url` in
    /// live mode; storage failures.
    pub fn create(&self, scope: &Scope, new: NewPaymentIntent) -> Result<PaymentIntentView, ApplicationError> {
        check_redirect_url(scope, "return_url", new.return_url.as_ref())?;
        let intent = self.build(scope, new, self.clock.now_in(scope)?);
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let customer = existing_customer(repositories, scope, intent.customer_id())?;
            repositories.payment_intents().insert(&intent)?;
            Ok(PaymentIntentView { intent, latest_payment: None, customer })
        })
    }

    /// A new intent of the scope, not stored yet (a checkout session stores it with itself).
    pub(crate) fn build(&self, scope: &Scope, new: NewPaymentIntent, now: Timestamp) -> PaymentIntent {
        let id = PaymentIntentId::from_random(&self.ids.id_part());
        let secret = ClientSecret::new(id.as_str(), &self.random());
        PaymentIntent::create(id, scope.account_id.clone(), scope.livemode(), secret, new, now)
    }

    /// The intent, if the caller may see it.
    ///
    /// # Errors
    /// `resource_not_found`; `parameter_required` / `parameter_invalid` on `client_secret`.
    pub fn retrieve(&self, scope: &Scope, id: &str, access: Access<'_>) -> Result<PaymentIntentView, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            let intent = load(repositories, scope, id)?;
            check_client_secret(intent.client_secret(), access, "payment intent")?;
            view(repositories, scope, intent)
        })
    }

    /// The scope's intents that match `filter`, newest first; with `customer_email`, only those of the
    /// scope's customers with that e-mail address (the newest hundred of them).
    ///
    /// # Errors
    /// `resource_not_found` naming the cursor when it is unknown; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        mut filter: PaymentIntentFilter,
        customer_email: Option<&str>,
        page: &PageRequest,
    ) -> Result<Page<PaymentIntent>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            if let Some(email) = customer_email {
                let customers = CustomerFilter { email: Some(email.to_owned()), ..CustomerFilter::default() };
                let most = PageRequest::new(Some(i64::from(PageRequest::MAX_LIMIT)), None, None)
                    .map_err(ApplicationError::Validation)?;
                let found = repositories.customers().list(scope, &customers, &most)?;
                let mut ids: Vec<CustomerId> = found.data.into_iter().map(|customer| customer.id).collect();
                if let Some(given) = filter.customers.take() {
                    ids.retain(|id| given.contains(id));
                }
                filter.customers = Some(ids);
            }
            repositories.payment_intents().list(scope, &filter, page).map_err(|error| page.explain(error))
        })
    }

    /// The intent `id` with its timeline: its payments and their refunds, the newest
    /// [`TIMELINE_EVENTS`] events of all of them, and what the merchant may do now, in one read of a
    /// few statements whatever the intent holds.
    ///
    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn timeline(&self, scope: &Scope, id: &str) -> Result<IntentTimeline, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        let events =
            PageRequest::new(Some(i64::from(TIMELINE_EVENTS)), None, None).map_err(ApplicationError::Validation)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            let intent = load(repositories, scope, id)?;
            let payments = repositories.payments().of_intent(scope, intent.id())?;
            let payment_ids: Vec<PaymentId> = payments.iter().map(|payment| payment.id().clone()).collect();
            let refunds = repositories.refunds().of_payments(scope, &payment_ids)?;
            let mut objects = vec![intent.id().to_string()];
            objects.extend(payment_ids.iter().map(ToString::to_string));
            objects.extend(refunds.iter().map(|refund| refund.id().to_string()));
            let filter = EventFilter { event_type: None, object_ids: objects };
            let events = repositories.events().list(scope, &filter, &events)?.data;
            let allowed = PaymentIntentOperation::ALL
                .into_iter()
                .filter(|operation| intent.allows(*operation, now) && owner_allows(&intent, *operation))
                .collect();
            let refundable = payments
                .iter()
                .filter_map(|payment| Some((payment.id().clone(), payment.refundable_now(now)?)))
                .collect();
            let payments = payments
                .into_iter()
                .map(|payment| {
                    let of_payment = refunds.iter().filter(|refund| refund.payment_id() == payment.id()).cloned();
                    let of_payment = of_payment.collect();
                    (payment, of_payment)
                })
                .collect();
            Ok(IntentTimeline { view: view(repositories, scope, intent)?, payments, events, allowed, refundable })
        })
    }

    /// Changes an intent that still awaits a payment method.
    ///
    /// # Errors
    /// `resource_invalid_state` after a payment method was attached; `parameter_invalid` on
    /// `customer_id` or `return_url`; `resource_conflict`; storage failures.
    pub fn update(
        &self,
        scope: &Scope,
        id: &str,
        changes: PaymentIntentChanges,
    ) -> Result<PaymentIntentView, ApplicationError> {
        check_redirect_url(scope, "return_url", changes.return_url.as_ref())?;
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut intent = load(repositories, scope, id)?;
            let expected_version = intent.version();
            ensure_not_owned(repositories, scope, &intent, PaymentIntentOperation::Update)?;
            existing_customer(repositories, scope, changes.customer_id.as_ref())?;
            intent.update(changes, now)?;
            repositories.payment_intents().update(&intent, expected_version)?;
            view(repositories, scope, intent)
        })
    }

    /// Attaches a payment method and asks the processor to authorize it.
    ///
    /// The processor is asked outside any transaction; the outcome is then recorded only if nothing
    /// else changed the intent meanwhile, so of concurrent attaches exactly one wins.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a payment method; `parameter_invalid` for a method the
    /// intent does not allow or a wrong client secret; `resource_conflict` when a concurrent attach
    /// won; `service_unavailable` without a processor for the mode; storage failures.
    pub fn attach(
        &self,
        scope: &Scope,
        id: &str,
        access: Access<'_>,
        request: AttachRequest,
    ) -> Result<AttachOutcome, ApplicationError> {
        check_redirect_url(scope, "return_url", request.return_url.as_ref())?;
        if scope.livemode() {
            return self.attach_live(scope, id, access, request);
        }
        let now = self.clock.now_in(scope)?;
        let (before, input, saved_id, billing, save_for) = reading(self.unit_of_work.as_ref(), |repositories| {
            let before = load_view(repositories, scope, id)?;
            let AttachInput { input, saved_id, billing, save_for } =
                attach_input(repositories, scope, &before.intent, access, &request, now)?;
            if let PaymentMethodInput::ProcessorToken(_) = input {
                return Err(ApplicationError::invalid(FieldError::invalid(
                    "payment_method[card][token]",
                    "A processor's token pays in live mode only; in test mode, send a test card's details.",
                )));
            }
            Ok((before, input, saved_id, billing, save_for))
        })?;
        let intent = &before.intent;
        let method = input.method();
        let processor = self.processors.for_mode(scope.livemode())?;
        let authorization = processor
            .authorize(&AuthorizationRequest {
                amount: intent.amount(),
                method: &input,
                card_options: intent.card_options(),
                keep_card: save_for.is_some(),
                now,
            })
            .map_err(|ProcessorError::Unavailable(reason)| ApplicationError::Unavailable(reason.into()))?;
        let payment_method_id = saved_id.unwrap_or_else(|| PaymentMethodId::from_random(&self.ids.id_part()));
        let save_for = save_for.zip(authorization.processor_reference).map(|(customer_id, processor_reference)| {
            CardToSave { customer_id: customer_id.to_string(), processor_reference }
        });
        let attempt = Attempt {
            payment_method_id: payment_method_id.to_string(),
            payment_method: PaymentMethodRecord { method, card: authorization.card, qrph: None },
            billing,
            save_for,
            payment_id: None,
        };
        let redirect = test_redirect(self.ids.as_ref(), &self.settings.public_base_url, scope.mode);
        // The intent is not read again: the update below applies only if its version is still the
        // one read above, so a concurrent change makes the whole change fail as a conflict.
        let record = |repositories: &mut dyn Repositories| {
            let before = before.clone();
            if let PaymentMethodChoice::Saved(method_id) = &request.method {
                // Deleted (with its customer, or alone) while the processor was asked: not charged.
                chargeable_saved_method(repositories, scope, &before.intent, method_id, access)?;
            }
            let mut current = before.intent.clone();
            let result = current.record_attempt(
                attempt.clone(),
                authorization.outcome.clone(),
                redirect.clone(),
                request.return_url.clone(),
                now,
            )?;
            let (view, failure) = self.record(repositories, scope, before, current, result, now)?;
            Ok(match failure {
                Some(error) => AttachOutcome::Declined(view, error),
                None => AttachOutcome::Attached(view),
            })
        };
        in_transaction(self.unit_of_work.as_ref(), record)
    }

    /// Captures `amount` of a held authorization (all of it when `None`).
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting capture; `parameter_above_maximum` above the
    /// capturable amount; storage failures.
    pub fn capture(
        &self,
        scope: &Scope,
        id: &str,
        amount: Option<Amount>,
    ) -> Result<PaymentIntentView, ApplicationError> {
        if scope.livemode() {
            return self.capture_live(scope, id, amount);
        }
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let before = load_view(repositories, scope, id)?;
                let mut intent = before.intent.clone();
                // Without an amount the whole hold is taken; with nothing held there is nothing to take.
                let amount = match amount {
                    Some(amount) => amount,
                    None => Amount::new(intent.amount_capturable()).map_err(|_| DomainError::InvalidState {
                        resource: RESOURCE,
                        status: intent.status().as_str(),
                        action: "capture",
                    })?,
                };
                let attempt = intent.capture(amount, now)?;
                let payment = self.paid_payment(&intent, amount.centavos(), attempt, now);
                let events = Effects {
                    payment: Some((payment, EventType::PaymentPaid)),
                    intent_event: Some(EventType::PaymentIntentSucceeded),
                };
                self.commit(repositories, scope, before, intent, events, now)
            })
        })
    }

    /// Cancels an intent awaiting a payment method or a capture.
    ///
    /// # Errors
    /// `resource_invalid_state` from any other status; storage failures.
    pub fn cancel(&self, scope: &Scope, id: &str) -> Result<PaymentIntentView, ApplicationError> {
        if scope.livemode() {
            return self.cancel_live(scope, id);
        }
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let before = load_view(repositories, scope, id)?;
                ensure_not_owned(repositories, scope, &before.intent, PaymentIntentOperation::Cancel)?;
                let mut intent = before.intent.clone();
                intent.cancel(now)?;
                let events = Effects { payment: None, intent_event: Some(EventType::PaymentIntentCanceled) };
                self.commit(repositories, scope, before, intent, events, now)
            })
        })
    }

    /// Cancels the intent `id` of an owner that went away (an expired checkout session), inside the
    /// owner's transaction: also from `awaiting_next_action`, never while `processing`.
    ///
    /// # Errors
    /// `resource_invalid_state` from `processing`, `succeeded` or `canceled`; storage failures.
    pub(crate) fn abandon_within(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        id: &PaymentIntentId,
        now: Timestamp,
    ) -> Result<PaymentIntentView, ApplicationError> {
        let before = load_view(repositories, scope, id.as_str())?;
        let mut intent = before.intent.clone();
        intent.abandon(now)?;
        let events = Effects { payment: None, intent_event: Some(EventType::PaymentIntentCanceled) };
        self.commit(repositories, scope, before, intent, events, now)
    }

    /// What the test authorization page of `token` shows.
    ///
    /// # Errors
    /// `resource_not_found` for an unknown, used or expired token.
    pub fn redirect_page(&self, token: &str) -> Result<RedirectPage, ApplicationError> {
        let intent = reading(self.unit_of_work.as_ref(), |repositories| find_by_redirect_token(repositories, token))?;
        let now = self.clock.now_in(&Scope::of(intent.account_id(), intent.livemode()))?;
        let pending = intent
            .pending()
            .filter(|pending| pending.redirect_token.as_deref() == Some(token))
            .filter(|_| intent.action_due_at().is_none_or(|due| now < due))
            .ok_or_else(unknown_token)?;
        Ok(RedirectPage {
            intent_id: intent.id().to_string(),
            amount: Some(intent.amount().centavos()),
            currency: intent.currency().code(),
            method: pending.attempt.payment_method.method,
            description: intent.description().map(|text| text.as_str().to_owned()),
            redirect_url: pending.redirect_url.clone().unwrap_or_default(),
        })
    }

    /// Records what an attempt came to. Returns the new view and the payment error of a failure.
    fn record(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        before: PaymentIntentView,
        intent: PaymentIntent,
        result: AttemptResult,
        now: Timestamp,
    ) -> Result<(PaymentIntentView, Option<PaymentError>), ApplicationError> {
        let (effects, failure) = match result {
            AttemptResult::Succeeded(mut attempt) => {
                save_card(repositories, scope, &attempt, now)?;
                if attempt.payment_method.method == PaymentMethodType::Qrph && attempt.payment_method.qrph.is_none() {
                    attempt.payment_method.qrph = self.processors.for_mode(scope.livemode())?.qrph_payer();
                }
                let payment = self.paid_payment(&intent, intent.amount().centavos(), attempt, now);
                let effects = Effects {
                    payment: Some((payment, EventType::PaymentPaid)),
                    intent_event: Some(EventType::PaymentIntentSucceeded),
                };
                (effects, None)
            }
            AttemptResult::Held(attempt) => {
                save_card(repositories, scope, &attempt, now)?;
                (Effects { payment: None, intent_event: Some(EventType::PaymentIntentAwaitingCapture) }, None)
            }
            AttemptResult::Failed(attempt, error) => {
                let payment = Payment::failed(PaymentId::from_random(&self.ids.id_part()), &intent, attempt, now);
                (Effects { payment: Some((payment, EventType::PaymentFailed)), intent_event: None }, Some(error))
            }
            AttemptResult::Redirected | AttemptResult::Processing => {
                (Effects { payment: None, intent_event: None }, None)
            }
        };
        let view = self.commit(repositories, scope, before, intent, effects, now)?;
        Ok((view, failure))
    }

    /// Persists a transition: the new payment, the intent (if its version is still the one loaded),
    /// and the events, rendered from what is in hand rather than read back.
    fn commit(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        before: PaymentIntentView,
        mut intent: PaymentIntent,
        effects: Effects,
        now: Timestamp,
    ) -> Result<PaymentIntentView, ApplicationError> {
        let log = self.event_log(scope, now);
        let paid = became_paid(before.intent.status(), intent.status());
        let mut latest_payment = before.latest_payment.clone();
        if let Some((payment, _)) = &effects.payment {
            intent.link_payment(payment.id().clone());
            repositories.payments().insert(payment)?;
            record_payment(repositories, self.ids.as_ref(), payment, &self.settings.settlement, now)?;
            latest_payment = Some(payment.clone());
        }
        repositories.payment_intents().update(&intent, before.intent.version())?;
        let after = PaymentIntentView { intent, latest_payment, customer: before.customer.clone() };
        let presented = (effects.intent_event.is_some() || paid).then(|| (self.present(&before), self.present(&after)));
        let presented_payment =
            effects.payment.as_ref().map(|(payment, _)| self.presenter.payment(payment, after.customer.as_ref()));
        let owner_event = match (paid, &presented) {
            (true, Some((old, new))) => intent_paid(repositories, &log, scope, &after.intent, (old, new))?,
            _ => None,
        };
        // One append for the whole change: the intent's event, the payment's, then its owner's.
        let mut events = Vec::with_capacity(3);
        if let (Some(event_type), Some((old, new))) = (effects.intent_event, &presented) {
            events.push((event_type, new, Some(old)));
        }
        if let (Some((_, event_type)), Some(payment)) = (&effects.payment, &presented_payment) {
            events.push((*event_type, payment, None));
        }
        if let Some((event_type, new, old)) = &owner_event {
            events.push((*event_type, new, Some(old)));
        }
        log.append_all(repositories, &events)?;
        Ok(after)
    }

    fn paid_payment(&self, intent: &PaymentIntent, amount: i64, attempt: Attempt, now: Timestamp) -> Payment {
        let rate = self.settings.fees.rate(attempt.payment_method.method);
        Payment::paid(PaymentId::from_random(&self.ids.id_part()), intent, amount, attempt, rate, now)
    }

    fn present(&self, view: &PaymentIntentView) -> Value {
        self.presenter.payment_intent(&view.intent, view.latest_payment.as_ref(), view.customer.as_ref())
    }

    fn event_log<'a>(&'a self, scope: &'a Scope, now: Timestamp) -> EventLog<'a> {
        EventLog::new(self.ids.as_ref(), self.presenter.as_ref(), scope, now, self.clock.as_ref())
    }
}

impl AuthorizationFlow for PaymentIntentService {
    type Intent = PaymentIntent;
    type View = PaymentIntentView;
    /// The view before the change: its events show what changed.
    type Loaded = PaymentIntentView;
    const DUE_KIND: DueKind = DueKind::PaymentIntent;
    const CLIENT_SECRET_PARAMETER: &'static str = CLIENT_SECRET_PARAMETER;

    fn unit_of_work(&self) -> &dyn UnitOfWork {
        self.unit_of_work.as_ref()
    }

    fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    fn load(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        id: &str,
    ) -> Result<PaymentIntent, ApplicationError> {
        load(repositories, scope, id)
    }

    fn find_by_redirect_token(
        &self,
        repositories: &mut dyn Repositories,
        token: &str,
    ) -> Result<Option<PaymentIntent>, StoreError> {
        // Test mode's page decides test intents only: a live intent is decided by its processor.
        Ok(repositories.payment_intents().find_by_redirect_token(token)?.filter(|intent| !intent.livemode()))
    }

    fn is_pending_page(intent: &PaymentIntent, token: &str) -> bool {
        intent.pending().is_some_and(|pending| pending.redirect_token.as_deref() == Some(token))
    }

    fn due_intents(
        &self,
        repositories: &mut dyn Repositories,
        within: Option<&Scope>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<PaymentIntent>, StoreError> {
        repositories.payment_intents().due(within, now, limit)
    }

    fn whose(intent: &PaymentIntent) -> (Scope, String) {
        (Scope::of(intent.account_id(), intent.livemode()), intent.id().to_string())
    }

    fn due_action(intent: &PaymentIntent) -> Option<DueAction> {
        intent.status().due_action()
    }

    fn prepare(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        intent: &PaymentIntent,
    ) -> Result<PaymentIntentView, ApplicationError> {
        view(repositories, scope, intent.clone())
    }

    fn settle(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        before: PaymentIntentView,
        intent: PaymentIntent,
        result: AttemptResult,
        now: Timestamp,
    ) -> Result<PaymentIntentView, ApplicationError> {
        Ok(self.record(repositories, scope, before, intent, result, now)?.0)
    }

    /// An authorization hold past its time is released, and the intent canceled.
    fn perform_other_due(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        before: PaymentIntentView,
        mut intent: PaymentIntent,
        action: DueAction,
        at: Timestamp,
    ) -> Result<bool, ApplicationError> {
        match action {
            DueAction::ReleaseHold => {
                intent.expire_hold(at)?;
                let events = Effects { payment: None, intent_event: Some(EventType::PaymentIntentCanceled) };
                self.commit(repositories, scope, before, intent, events, at)?;
                Ok(true)
            }
            DueAction::ExpireRedirect | DueAction::FinishProcessing => Ok(false),
        }
    }

    fn return_to(intent: &PaymentIntent) -> (Option<&str>, &ClientSecret) {
        (intent.return_url(), intent.client_secret())
    }
}

/// The test-mode intent whose latest redirect has `token`; only a token of the shape this service issues is
/// looked up.
fn find_by_redirect_token(repositories: &mut dyn Repositories, token: &str) -> Result<PaymentIntent, ApplicationError> {
    well_formed_token(token)?;
    repositories
        .payment_intents()
        .find_by_redirect_token(token)?
        .filter(|intent| !intent.livemode())
        .ok_or_else(unknown_token)
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<PaymentIntent, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let intent_id = PaymentIntentId::parse(id).ok_or_else(not_found)?;
    repositories.payment_intents().find(scope, &intent_id)?.ok_or_else(not_found)
}

/// The intent `id` of the scope with its latest payment and customer.
pub(crate) fn load_view(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    id: &str,
) -> Result<PaymentIntentView, ApplicationError> {
    let intent = load(repositories, scope, id)?;
    view(repositories, scope, intent)
}

/// The intent with its latest payment and customer.
pub(crate) fn view(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: PaymentIntent,
) -> Result<PaymentIntentView, ApplicationError> {
    views(repositories, scope, vec![intent])?
        .pop()
        .ok_or_else(|| ApplicationError::internal("an intent's view is missing"))
}

/// The intents with their latest payments and customers, in their order: two reads, however many
/// there are.
pub(crate) fn views(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intents: Vec<PaymentIntent>,
) -> Result<Vec<PaymentIntentView>, ApplicationError> {
    let payment_ids: Vec<PaymentId> = intents.iter().filter_map(|intent| intent.latest_payment_id().cloned()).collect();
    let customer_ids: Vec<CustomerId> = intents.iter().filter_map(|intent| intent.customer_id().cloned()).collect();
    let payments = repositories.payments().find_many(scope, &payment_ids)?;
    let customers = repositories.customers().find_many(scope, &customer_ids)?;
    Ok(intents
        .into_iter()
        .map(|intent| {
            let latest = intent.latest_payment_id();
            let latest_payment = latest.and_then(|id| payments.iter().find(|payment| payment.id() == id).cloned());
            let customer = intent.customer_id().and_then(|id| customers.iter().find(|found| &found.id == id).cloned());
            PaymentIntentView { intent, latest_payment, customer }
        })
        .collect())
}

pub(crate) fn load_customer(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    id: Option<&CustomerId>,
) -> Result<Option<Customer>, ApplicationError> {
    match id {
        Some(id) => Ok(repositories.customers().find(scope, id)?),
        None => Ok(None),
    }
}

/// The customer an intent names, which must exist in the scope and not be deleted.
fn existing_customer(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    id: Option<&CustomerId>,
) -> Result<Option<Customer>, ApplicationError> {
    id.map(|id| live_customer(repositories, scope, id)).transpose()
}

/// The customer a card entered now is saved to, when the customer asked to save it with the client
/// secret of their session: the intent's customer, whose live session enables
/// `payment_method_save`.
///
/// # Errors
/// `parameter_invalid` on `customer_session_client_secret` for anything but a card entered now, an
/// intent without a customer, or a secret of no live session of its customer enabling the save.
fn customer_to_save_for(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: &PaymentIntent,
    input: &PaymentMethodInput,
    session_secret: &str,
    now: Timestamp,
) -> Result<CustomerId, ApplicationError> {
    let parameter = "customer_session_client_secret";
    let refused = |detail: &str| ApplicationError::invalid(FieldError::invalid(parameter, detail));
    if !matches!(input, PaymentMethodInput::Card(_) | PaymentMethodInput::ProcessorToken(_)) {
        return Err(refused("Only a card entered now can be saved."));
    }
    let customer_id =
        intent.customer_id().ok_or_else(|| refused("This payment intent has no customer to save the card to."))?;
    let save = Some(Feature::PaymentMethodSave);
    authorize_session(repositories, scope, parameter, customer_id, Some(session_secret), save, now)?;
    Ok(customer_id.clone())
}

/// Saves the card of an approved attempt to the customer it was to be saved for, unless the customer
/// was deleted meanwhile (the payment stands; nothing is saved).
///
/// # Errors
/// Storage failures.
fn save_card(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    attempt: &Attempt,
    now: Timestamp,
) -> Result<(), ApplicationError> {
    let Some(method) = attempt.saved_method(&scope.account_id, scope.livemode(), now) else { return Ok(()) };
    let customer = repositories.customers().find(scope, &method.customer_id)?;
    if customer.is_some_and(|customer| !customer.is_deleted()) {
        repositories.payment_methods().insert(&method)?;
    }
    Ok(())
}

/// What pays, resolved from an attach to `intent`: the input (a saved method's card, when it names
/// one), the saved method's id, the billing, and the customer to save the card entered to.
///
/// # Errors
/// A wrong client secret; a method the intent does not allow or cannot be charged; a session
/// that cannot save the card.
fn attach_input(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: &PaymentIntent,
    access: Access<'_>,
    request: &AttachRequest,
    now: Timestamp,
) -> Result<AttachInput, ApplicationError> {
    check_client_secret(intent.client_secret(), access, "payment intent")?;
    let (input, saved_id, billing) = match &request.method {
        PaymentMethodChoice::Inline(input) => (input.clone(), None, request.billing.clone()),
        PaymentMethodChoice::Saved(method_id) => {
            let saved = chargeable_saved_method(repositories, scope, intent, method_id, access)?;
            let billing = request.billing.clone().or_else(|| saved.verified.billing.clone());
            (PaymentMethodInput::Saved(Box::new(saved.verified)), Some(saved.id), billing)
        }
    };
    intent.ensure_attachable(input.method())?;
    let save_for = match &request.save_with_session {
        Some(secret) => Some(customer_to_save_for(repositories, scope, intent, &input, secret, now)?),
        None => None,
    };
    Ok(AttachInput { input, saved_id, billing, save_for })
}

/// What pays in an attach, resolved.
struct AttachInput {
    input: PaymentMethodInput,
    /// The saved method's id, when the attach names one.
    saved_id: Option<PaymentMethodId>,
    billing: Option<PaymentBilling>,
    /// The customer to save the card entered to, as the customer asked.
    save_for: Option<CustomerId>,
}

/// The saved payment method `id` when it may pay `intent` now: it must be saved to the intent's
/// customer, and a method saved for `on_session` use needs the customer present (the client-secret
/// path), not the merchant alone.
fn chargeable_saved_method(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: &PaymentIntent,
    id: &str,
    access: Access<'_>,
) -> Result<PaymentMethod, ApplicationError> {
    let parameter = "payment_method_id";
    let unknown = || {
        ApplicationError::invalid(FieldError::missing(
            parameter,
            format!("No payment method {id} is saved to this payment intent's customer."),
        ))
    };
    let customer_id = intent.customer_id().ok_or_else(unknown)?;
    let method = saved_method(repositories, scope, customer_id, id).map_err(|_| unknown())?;
    if !method.chargeable(access.customer_present()) {
        return Err(ApplicationError::invalid(FieldError::invalid(
            parameter,
            "This payment method was saved for on_session use: attach it with the public key and the client secret.",
        )));
    }
    Ok(method)
}

/// The scope's intents created since `since` counted by status, with what they received: of the
/// latest `at_most` intents.
///
/// # Errors
/// Storage failures.
pub(crate) fn status_counts(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    since: Timestamp,
    at_most: u32,
) -> Result<StatusCounts, ApplicationError> {
    let latest = repositories.payment_intents().latest_outcomes(scope, at_most)?;
    let complete = latest.len() < at_most as usize || latest.iter().any(|outcome| outcome.created_at < since);

    let mut counts: Vec<StatusCount> = Vec::new();
    for outcome in latest.iter().filter(|outcome| outcome.created_at >= since) {
        match counts.iter_mut().find(|count| count.status == outcome.status) {
            Some(count) => {
                count.count += 1;
                count.amount_received += outcome.amount_received;
            }
            None => {
                counts.push(StatusCount { status: outcome.status, count: 1, amount_received: outcome.amount_received })
            }
        }
    }
    counts.sort_by_key(|count| PaymentIntentStatus::ALL.iter().position(|status| *status == count.status));
    Ok(StatusCounts { counts, complete })
}
