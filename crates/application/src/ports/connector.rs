//! The connector port: how the service asks a live processor to authorize, capture, void and refund
//! payments, what the processor answers, and how its webhooks are told from forgeries. Each call
//! carries the idempotency key of the operation written ahead of it
//! (`payments_domain::processor_operation`), and each error says whether the request may have
//! reached the processor. The test-mode simulator is one connector. A processor's API (Stripe's,
//! PayMongo's) is another, in the adapters.

use crate::scope::Scope;
use payments_domain::balance::Centavos;
use payments_domain::ids::{PaymentId, RefundId};
use payments_domain::money::Amount;
use payments_domain::payment_intent::PaymentError;
use payments_domain::payment_method::{CardSummary, PaymentMethodType};
use payments_domain::processor_operation::Answer;
use payments_domain::time::Timestamp;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// What a connector's call gives back, later.
pub type ConnectorFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, ConnectorError>> + Send + 'a>>;

/// What a connector can do. The service refuses up front what the account's connector cannot do,
/// with no call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    /// The payment methods it takes.
    pub methods: Vec<PaymentMethodType>,
    /// It can hold a payment and capture it later.
    pub manual_capture: bool,
    /// It can capture less than the hold (and release the rest).
    pub partial_capture: bool,
    /// It can refund a payment more than once.
    pub several_refunds: bool,
    /// It can release a hold.
    pub void: bool,
    /// It can save a card for later payments (setup intents).
    pub save_methods: bool,
}

/// What pays, as a connector takes it. Never card data: a live card is tokenized in the browser,
/// at the processor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectorMethod {
    /// The processor's token for a card entered in the browser.
    Token(String),
    /// A method saved at the processor, by its reference.
    Saved(String),
    /// A method the customer confirms on the processor's page (GCash, Maya …).
    Redirect(PaymentMethodType),
}

/// When the payment is captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureMethod {
    Automatic,
    Manual,
}

/// A payment to authorize.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizeRequest {
    /// The service's payment, which the processor's payment names.
    pub payment: PaymentId,
    /// The operation's idempotency key.
    pub idempotency_key: String,
    pub amount: Amount,
    pub method: ConnectorMethod,
    pub capture: CaptureMethod,
    /// Where the processor sends the customer after its own page: the service's return page.
    pub return_url: String,
    /// Ask for a reference to charge the method again.
    pub save_method: bool,
}

/// A refund to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRequest {
    pub refund: RefundId,
    /// The processor's payment.
    pub processor_payment: String,
    pub idempotency_key: String,
    pub amount: Centavos,
}

/// A method to save for later payments, without a charge (a setup intent's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveMethodRequest {
    /// The processor's token for the card entered in the browser.
    pub token: String,
    pub idempotency_key: String,
    /// Where the processor sends the customer after its own page: the service's return page.
    pub return_url: String,
}

/// A method as the processor saved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SavedMethod {
    /// Saved: the processor's reference to charge it, and what it tells of the card.
    Saved {
        processor_reference: String,
        card: CardSummary,
    },
    /// The customer must act on the processor's page first.
    RequiresAction {
        processor_reference: String,
        url: String,
    },
    Failed(PaymentError),
}

/// A payment at the processor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessorPayment {
    /// The processor's id for it.
    pub processor_reference: String,
    pub state: ProcessorPaymentState,
    /// What the processor tells of the card, for a card.
    pub card: Option<CardSummary>,
    /// The processor's reference to charge the method again, when it was asked to save it.
    pub saved_method: Option<String>,
    /// The service's payment it was made for, as the processor keeps it.
    pub made_for: Option<PaymentId>,
}

/// What the customer must do before the processor decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CustomerAction {
    /// Go to the processor's page (3-D Secure, an e-wallet), which sends them back to the service's
    /// return page.
    Redirect { url: String },
    /// Authenticate with the processor's own script in the browser (Stripe's `use_stripe_sdk`),
    /// which takes the processor's client secret for the payment: the service's authentication
    /// page runs it.
    Script { client_secret: String },
}

/// Where a payment stands at the processor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessorPaymentState {
    /// The customer must act (3-D Secure, an e-wallet).
    RequiresAction { action: CustomerAction },
    /// The processor has not decided yet.
    Pending,
    /// Held, `capturable` of it.
    Authorized { capturable: Centavos },
    /// Captured: `amount`, less the processor's `fee`, is `net`.
    Captured { amount: Centavos, fee: Centavos, net: Centavos },
    /// Declined or failed, with the contract's error.
    Failed(PaymentError),
    /// The hold was released.
    Voided,
}

/// A refund at the processor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessorRefund {
    pub processor_reference: String,
    pub state: ProcessorRefundState,
    /// The service's refund it was made for, as the processor keeps it.
    pub made_for: Option<RefundId>,
}

/// Where a refund stands at the processor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessorRefundState {
    Pending,
    Succeeded,
    Failed(PaymentError),
}

/// A processor's call that did not give an answer to act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnectorError {
    /// The request never left (no connection, refused before sending). Safe to retry.
    #[error("the processor was not asked: {0}")]
    NotSent(String),
    /// The request left and no answer came (a timeout, a 5xx, a dropped connection): it may have
    /// happened. The processor is asked what it did.
    #[error("the processor may have acted, and did not say: {0}")]
    OutcomeUnknown(String),
    /// The processor refused the request (its 4xx), with the contract's code for it (the connector
    /// maps the processor's own codes by a table).
    #[error("the processor refused: {code}: {detail}")]
    Refused { code: String, detail: String },
    /// The connector cannot work as set up (credentials refused, a base URL that answers no
    /// processor). Nothing moved; an operator must act.
    #[error("the processor connector is misconfigured: {0}")]
    Misconfigured(String),
}

impl ConnectorError {
    /// What an operation written ahead of the call records of this error.
    #[must_use]
    pub fn answer(&self) -> Answer {
        match self {
            Self::NotSent(_) | Self::Misconfigured(_) => Answer::NotSent,
            Self::OutcomeUnknown(_) => Answer::NoAnswer,
            Self::Refused { code, detail } => Answer::Refused { code: code.clone(), detail: detail.clone() },
        }
    }
}

/// A webhook the processor sent, once its signature was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundEvent {
    /// The processor's id for the event: events are taken once each.
    pub event_id: String,
    /// The processor's mode: an event of the other mode than the account's is refused.
    pub livemode: bool,
    /// What it is about. Its body is never trusted: the object is fetched again.
    pub object: InboundObject,
}

/// What a processor's event is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InboundObject {
    Payment(String),
    Refund(String),
    /// An event the service does not act on.
    Ignored,
}

/// Why a processor's webhook was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the processor's webhook was refused: {0}")]
pub struct WebhookRefused(pub String);

/// A live processor, for one account.
pub trait PaymentConnector: Send + Sync {
    /// What it can do.
    fn capabilities(&self) -> &Capabilities;

    /// Whether the processor's account behind it is in the processor's live mode: its events say
    /// the same, and an event of the other mode is refused.
    fn livemode(&self) -> bool;

    /// Authorizes a payment (and captures it, with automatic capture).
    fn authorize<'a>(&'a self, request: &'a AuthorizeRequest) -> ConnectorFuture<'a, ProcessorPayment>;

    /// The processor's payment as it stands now: the truth after a webhook or an unknown outcome.
    fn retrieve<'a>(&'a self, processor_payment: &'a str) -> ConnectorFuture<'a, ProcessorPayment>;

    /// The processor's payment made for the service's `payment`, if any: how an authorization
    /// whose answer was lost is found. Its authorization was sent at `sent_at`, so a payment made
    /// before that (less the clocks' drift) is not it: a search may stop there, and must be
    /// complete down to it. A payment made but never submitted for authorization is none.
    fn find<'a>(&'a self, payment: &'a PaymentId, sent_at: Timestamp) -> ConnectorFuture<'a, Option<ProcessorPayment>>;

    /// Captures `amount` of a hold; a capture of less releases the rest.
    fn capture<'a>(
        &'a self,
        processor_payment: &'a str,
        amount: Centavos,
        idempotency_key: &'a str,
    ) -> ConnectorFuture<'a, ProcessorPayment>;

    /// Releases a hold.
    fn void<'a>(
        &'a self,
        processor_payment: &'a str,
        idempotency_key: &'a str,
    ) -> ConnectorFuture<'a, ProcessorPayment>;

    /// Refunds some or all of a captured payment.
    fn refund<'a>(&'a self, request: &'a RefundRequest) -> ConnectorFuture<'a, ProcessorRefund>;

    /// Saves a method for later payments, without a charge.
    fn save_method<'a>(&'a self, request: &'a SaveMethodRequest) -> ConnectorFuture<'a, SavedMethod>;

    /// The processor's refund as it stands now.
    fn retrieve_refund<'a>(&'a self, processor_refund: &'a str) -> ConnectorFuture<'a, ProcessorRefund>;

    /// The processor's refund made of `processor_payment` for the service's `refund`, if any: how
    /// a refund whose answer was lost is found.
    fn find_refund<'a>(
        &'a self,
        processor_payment: &'a str,
        refund: &'a RefundId,
    ) -> ConnectorFuture<'a, Option<ProcessorRefund>>;

    /// Checks a webhook's signature against the account's webhook secret at `now`.
    ///
    /// # Errors
    /// [`WebhookRefused`] for a webhook the processor did not sign, or signed too long ago.
    fn verify_webhook(&self, headers: &[(String, String)], body: &[u8], now: Timestamp) -> Result<(), WebhookRefused>;

    /// What a verified webhook is about.
    ///
    /// # Errors
    /// [`WebhookRefused`] for a body that is no event of the processor's.
    fn parse_webhook(&self, body: &[u8]) -> Result<InboundEvent, WebhookRefused>;
}

/// The live connector of each account.
pub trait ConnectorDirectory: Send + Sync {
    /// The connector live payments of `scope`'s account go through, if one is set up. Test mode
    /// has none: it keeps the simulator.
    ///
    /// # Errors
    /// Storage failures; a connector set up that cannot be used (its keys cannot be read).
    fn connector(&self, scope: &Scope) -> Result<Option<Arc<dyn PaymentConnector>>, crate::error::ApplicationError>;
}

/// Waits for a connector's call on the calling thread. The services are synchronous and run on
/// the blocking pool, never inside a transaction while they wait; a connector does its I/O on a
/// runtime of its own, so its calls can be waited for from any thread.
///
/// # Errors
/// The call's error.
pub fn wait<T>(call: ConnectorFuture<'_, T>) -> Result<T, ConnectorError> {
    futures_executor::block_on(call)
}
