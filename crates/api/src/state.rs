//! Application state shared by every handler: the services, and the helper that runs a use case
//! (synchronous, like its storage) on the blocking pool.

use crate::error::ApiError;
use crate::settings::WebhookSettings;
use crate::stream_slots::StreamSlots;
use actix_web::web;
use payments_adapters::event_signal::EventSignal;
use payments_adapters::metrics::Metrics;
use payments_adapters::processor::SimulatedConnector;
use payments_application::ports::{Clock, IdGenerator, Mailer, UnitOfWork};
use payments_application::services::{
    AccountService, BalanceService, BillingStatementService, CheckoutSessionService, ConnectorAccountService,
    ConsoleSessionService, CustomerService, CustomerSessionService, DueWork, EventService, IdempotencyService,
    MailMessageService, OverviewService, PageService, PaymentIntentService, PaymentMethodService, PaymentService,
    PayoutService, PriceService, ProcessorEventService, ProductService, RefundService, RequestLogService,
    SetupIntentService, TestClockService, WebhookDeliveryService, WebhookService,
};
use payments_application::{ApplicationError, Scope};
use payments_domain::time::Timestamp;
use std::sync::Arc;
use tokio::sync::Notify;

/// Every use-case service, shared by the handlers.
#[derive(Clone)]
pub struct Services {
    pub accounts: Arc<AccountService>,
    pub customers: Arc<CustomerService>,
    pub customer_sessions: Arc<CustomerSessionService>,
    pub idempotency: Arc<IdempotencyService>,
    pub payment_intents: Arc<PaymentIntentService>,
    pub payments: Arc<PaymentService>,
    pub refunds: Arc<RefundService>,
    pub setup_intents: Arc<SetupIntentService>,
    pub checkout_sessions: Arc<CheckoutSessionService>,
    pub billing_statements: Arc<BillingStatementService>,
    pub mail_messages: Arc<MailMessageService>,
    pub payment_methods: Arc<PaymentMethodService>,
    pub payouts: Arc<PayoutService>,
    pub products: Arc<ProductService>,
    pub prices: Arc<PriceService>,
    pub pages: Arc<PageService>,
    pub balance: Arc<BalanceService>,
    pub events: Arc<EventService>,
    pub webhooks: Arc<WebhookService>,
    pub deliveries: Arc<WebhookDeliveryService>,
    pub request_logs: Arc<RequestLogService>,
    pub console_sessions: Arc<ConsoleSessionService>,
    pub test_clocks: Arc<TestClockService>,
    /// The console's first page, as one read.
    pub overview: Arc<OverviewService>,
    /// What falls due in the background, run by real time and by each moved test clock.
    pub due_work: Arc<DueWork>,
    /// The simulated processor live mode goes through when the settings choose it (tests tokenize
    /// cards at it, count its charges and make it fail).
    pub simulated_processor: Option<Arc<SimulatedConnector>>,
    /// The events live processors send.
    pub processor_events: Arc<ProcessorEventService>,
    /// Each account's live processor connector, set by the operator.
    pub connectors: Arc<ConnectorAccountService>,
    /// Whether the console's cookie is `Secure` (the public base URL is https).
    pub(crate) secure_cookies: bool,
    /// The address browsers reach the service at (the hosted pages, Payrex.js).
    pub(crate) public_base_url: String,
    /// The database every service works on (the composition root's own handle: readiness, and
    /// SQLite's checkpoints).
    pub storage: Arc<dyn UnitOfWork>,
    /// Where the API's own random values come from (request log ids, form tokens, worker names).
    pub(crate) ids: Arc<dyn IdGenerator>,
    /// This instance's operational metrics, rendered at `GET /metrics`.
    pub metrics: Arc<Metrics>,
    /// Woken after every commit that appended events, so deliveries start at once.
    pub deliveries_due: Arc<Notify>,
    /// Woken after every commit that appended events (a sent statement writes its e-mail then too).
    pub mail_due: Arc<Notify>,
    /// Tells the event streams of this instance that events were appended.
    pub event_signal: EventSignal,
    /// The event streams open in this instance.
    pub stream_slots: Arc<StreamSlots>,
    /// Hands e-mail to the SMTP server, or keeps it in the outbox without one.
    pub(crate) mailer: Arc<dyn Mailer>,
    /// Whether `GET /test/mailbox` answers.
    pub(crate) mailbox: bool,
    pub(crate) webhook_settings: WebhookSettings,
    /// The clock every service reads: real time, and each account's test clock; webhook
    /// signatures take real time from it.
    pub(crate) clock: Arc<dyn Clock>,
    /// Whether this instance is stopping (event streams end, `/readyz` answers 503).
    pub stopping: crate::shutdown::Stopping,
}

impl Services {
    /// The time in `scope`: its test clock in test mode, real time in live mode.
    ///
    /// # Errors
    /// 503 when the test clock cannot be read.
    pub(crate) async fn now_in(&self, scope: &Scope) -> Result<Timestamp, ApiError> {
        let (clock, scope) = (self.clock.clone(), scope.clone());
        blocking(move || clock.now_in(&scope)).await
    }
}

/// Runs a use case on the blocking pool: storage is synchronous.
///
/// # Errors
/// The use case's error, or 500 when the blocking task died.
pub async fn blocking<T: Send + 'static>(
    use_case: impl FnOnce() -> Result<T, ApplicationError> + Send + 'static,
) -> Result<T, ApiError> {
    web::block(use_case).await.map_err(|error| ApiError::internal(error.into()))?.map_err(ApiError::from)
}
