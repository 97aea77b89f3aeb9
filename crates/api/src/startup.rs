//! The composition root: storage, adapters as trait objects, services, the HTTP server and the
//! background jobs. Only wiring lives here; the state it builds is in [`crate::state`].

use crate::decode::BodyRules;
use crate::mail::TemplateComposer;
use crate::presenter::ApiPresenter;
use crate::request_log::{write_request_logs, RequestLogReceiver};
use crate::routes;
use crate::settings::{LiveConnector, ValidSettings, WebhookSettings};
use crate::state::Services;
use crate::stream_slots::StreamSlots;
use crate::telemetry::{request_id_header, RequestSpan};
use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use payments_adapters::clock::{AccountClocks, RealTime};
use payments_adapters::db::DatabaseError;
use payments_adapters::db::DieselUnitOfWork;
use payments_adapters::event_signal::EventSignal;
use payments_adapters::id_generator::RandomIds;
use payments_adapters::mail::{MailWorker, MailWorkerSettings, OutboxMailer, SmtpMailer, SmtpSettingsError};
use payments_adapters::metrics::Metrics;
use payments_adapters::payout_rail::TestBank;
use payments_adapters::processor::{SimulatedConnector, Simulator, StoredConnectors};
use payments_adapters::sealer::AesGcmSealer;
use payments_adapters::webhooks::{
    DeliveryWorker, HttpWebhookSender, ResolvingUrlGuard, SenderBuildError, WorkerSettings,
};
use payments_application::ports::connector::{ConnectorDirectory, PaymentConnector};
use payments_application::ports::SecretSealer;
use payments_application::ports::{Clock, IdGenerator, Mailer, UnitOfWork};
use payments_application::services::{
    AccountService, BalanceService, BillingStatementService, CheckoutSessionService, ConnectorAccountService,
    ConsoleSessionService, CustomerService, CustomerSessionService, DueWork, EventService, IdempotencyService,
    MailMessageService, OverviewService, PageService, PaymentIntentService, PaymentIntentSettings,
    PaymentMethodService, PaymentService, PayoutRails, PayoutService, PriceService, ProcessorEventService, Processors,
    ProductService, RefundService, RequestLogService, SetupIntentService, TestClockService, WebhookDeliveryService,
    WebhookService,
};
use payments_application::ApplicationError;
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::request_log::Retention;
use payments_domain::retry::RetrySchedule;
use payments_domain::webhook_delivery::DeliveryLimits;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use tracing_actix_web::TracingLogger;

/// How often due payment intent actions (hold and redirect expiry, processing end) run.
const DUE_ACTIONS_INTERVAL: Duration = Duration::from_secs(1);
/// Intents moved per run of the due actions.
const DUE_ACTIONS_BATCH: u32 = 200;
/// How often expired idempotency keys are purged.
const PURGE_INTERVAL: Duration = Duration::from_secs(60 * 60);
/// How often the request log is pruned and idle console sessions ended.
const TIDY_UP_INTERVAL: Duration = Duration::from_secs(10 * 60);
/// How often SQLite's write-ahead log is checkpointed: at 2,000 write transactions a second the log
/// grows by about 8 MB between checkpoints.
const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(100);
/// E-mails handed to the SMTP server at once, and claimed per look.
const MAIL_CONCURRENCY: usize = 4;
const MAIL_BATCH: u32 = 16;
/// How long a claimed e-mail is held before another instance may send it.
const MAIL_LEASE: Duration = Duration::from_secs(120);
/// The longest wait between two looks at the outbox (commits wake the worker at once).
const MAIL_POLL_INTERVAL: Duration = Duration::from_secs(5);

/// What a commit wakes: the delivery and mail workers, and the event streams.
#[derive(Clone)]
pub struct Signals {
    pub deliveries_due: Arc<Notify>,
    pub mail_due: Arc<Notify>,
    pub events: EventSignal,
}

/// The services that move money, built together since each uses the ones before it.
struct PaymentFlows {
    payment_intents: Arc<PaymentIntentService>,
    setup_intents: Arc<SetupIntentService>,
    checkout_sessions: Arc<CheckoutSessionService>,
    billing_statements: Arc<BillingStatementService>,
    payouts: Arc<PayoutService>,
    refunds: Arc<RefundService>,
    processor_events: Arc<ProcessorEventService>,
    due_work: Arc<DueWork>,
    simulated_processor: Option<Arc<SimulatedConnector>>,
}

/// What every service is built on: the storage, the clocks, the ids and how objects are shown.
struct Foundation {
    storage: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    presenter: Arc<ApiPresenter>,
    /// Seals the processors' secrets for storage.
    sealer: Arc<dyn SecretSealer>,
}

impl Foundation {
    fn payment_flows(&self, settings: &ValidSettings, mailer: &dyn Mailer) -> PaymentFlows {
        let Self { storage, clock, ids, presenter, .. } = self;
        let public_base_url = settings.public_base_url.as_str().to_owned();
        let simulated_processor = (settings.live_processor.connector == LiveConnector::Simulated).then(|| {
            let action_pages = format!("{}/processor/simulated", public_base_url.trim_end_matches('/'));
            Arc::new(SimulatedConnector::new(settings.fees.rate(PaymentMethodType::Card), &action_pages))
        });
        let simulated = simulated_processor.clone().map(|connector| connector as Arc<dyn PaymentConnector>);
        let live: Arc<dyn ConnectorDirectory> =
            Arc::new(StoredConnectors::new(storage.clone(), self.sealer.clone(), simulated));
        let processors = Processors { test: Arc::new(Simulator), live: live.clone() };
        let payment_settings = PaymentIntentSettings {
            fees: settings.fees,
            settlement: settings.settlement,
            public_base_url: public_base_url.clone(),
        };
        let payment_intents = Arc::new(PaymentIntentService::new(
            storage.clone(),
            clock.clone(),
            ids.clone(),
            processors.clone(),
            presenter.clone(),
            payment_settings,
        ));
        let setup_intents = Arc::new(SetupIntentService::new(
            storage.clone(),
            clock.clone(),
            ids.clone(),
            processors,
            presenter.clone(),
            public_base_url.clone(),
        ));
        let checkout_sessions = Arc::new(CheckoutSessionService::new(
            storage.clone(),
            clock.clone(),
            ids.clone(),
            presenter.clone(),
            payment_intents.clone(),
            public_base_url.clone(),
        ));
        let composer = Arc::new(TemplateComposer {
            from: settings.mail.from.clone(),
            message_domain: settings.public_base_url.host_str().unwrap_or("localhost").to_owned(),
        });
        let billing_statements = Arc::new(BillingStatementService::new(
            storage.clone(),
            clock.clone(),
            ids.clone(),
            presenter.clone(),
            composer,
            payment_intents.clone(),
            mailer.delivers(),
            public_base_url,
        ));
        let payouts = Arc::new(PayoutService::new(
            storage.clone(),
            clock.clone(),
            ids.clone(),
            presenter.clone(),
            payout_rails(),
        ));
        let refunds =
            Arc::new(RefundService::new(storage.clone(), clock.clone(), ids.clone(), presenter.clone(), live.clone()));
        let processor_events = Arc::new(ProcessorEventService::new(
            storage.clone(),
            clock.clone(),
            live,
            (payment_intents.clone(), refunds.clone()),
        ));
        let due_work = Arc::new(DueWork::new(
            (payment_intents.clone(), setup_intents.clone()),
            (checkout_sessions.clone(), billing_statements.clone()),
            (payouts.clone(), refunds.clone(), processor_events.clone()),
            storage.clone(),
            clock.clone(),
        ));
        PaymentFlows {
            payment_intents,
            setup_intents,
            checkout_sessions,
            billing_statements,
            payouts,
            refunds,
            processor_events,
            due_work,
            simulated_processor,
        }
    }
}

/// The payout rails: the test bank in test mode; live mode makes no payouts until a processor's
/// payouts are wired here.
fn payout_rails() -> PayoutRails {
    PayoutRails { test: Arc::new(TestBank), live: None }
}

impl Services {
    /// Every service over `storage`. Test mode pays through the simulator; live mode has no
    /// processor until a real one is wired here. E-mail goes through SMTP when `mail.smtp_url` is
    /// set, else stays in the outbox.
    ///
    /// # Errors
    /// When `mail.smtp_url` is not a usable SMTP URL.
    pub fn new(
        storage: Arc<dyn UnitOfWork>,
        real_time: Arc<RealTime>,
        ids: Arc<dyn IdGenerator>,
        settings: &ValidSettings,
        signals: Signals,
        metrics: Arc<Metrics>,
    ) -> Result<Self, StartupError> {
        let clock: Arc<dyn Clock> = Arc::new(AccountClocks::new(storage.clone(), real_time));
        let mailer: Arc<dyn Mailer> = match settings.mail.smtp_url() {
            Some(url) => Arc::new(SmtpMailer::new(url, Duration::from_secs(settings.mail.timeout_seconds))?),
            None => Arc::new(OutboxMailer),
        };
        let sealer: Arc<dyn SecretSealer> = Arc::new(
            AesGcmSealer::new(&settings.live_processor.credentials_key).map_err(StartupError::CredentialsKey)?,
        );
        let foundation = Foundation { storage, clock, ids, presenter: Arc::new(ApiPresenter), sealer };
        let PaymentFlows {
            payment_intents,
            setup_intents,
            checkout_sessions,
            billing_statements,
            payouts,
            refunds,
            processor_events,
            due_work,
            simulated_processor,
        } = foundation.payment_flows(settings, mailer.as_ref());
        let Foundation { storage, clock, ids, presenter, sealer } = foundation;
        let deliveries = Arc::new(WebhookDeliveryService::new(
            storage.clone(),
            clock.clone(),
            ids.clone(),
            presenter.clone(),
            retry_schedule(&settings.webhooks),
        ));
        let accounts = Arc::new(AccountService::new(storage.clone(), clock.clone(), ids.clone(), payout_rails()));
        let retention = Retention {
            max_age_seconds: i64::from(settings.request_log.retention_days) * 86_400,
            max_rows: settings.request_log.max_rows_per_account,
            max_bytes: settings.request_log.max_bytes_per_account,
        };
        let url_guard =
            Arc::new(ResolvingUrlGuard { private_targets_in_test: settings.webhooks.allow_private_targets_in_test });
        let secret_overlap_seconds = i64::from(settings.webhooks.secret_overlap_hours) * 3_600;
        let idle_seconds = i64::from(settings.console.idle_timeout_minutes) * 60;
        let base = settings.public_base_url.as_str().to_owned();
        let pages =
            Arc::new(PageService::new(storage.clone(), clock.clone(), ids.clone(), payment_intents.clone(), base));
        Ok(Self {
            accounts: accounts.clone(),
            customers: Arc::new(CustomerService::new(storage.clone(), clock.clone(), ids.clone())),
            customer_sessions: Arc::new(CustomerSessionService::new(storage.clone(), clock.clone(), ids.clone())),
            idempotency: Arc::new(IdempotencyService::new(storage.clone(), clock.clone())),
            payment_intents,
            checkout_sessions,
            billing_statements,
            mail_messages: Arc::new(MailMessageService::new(
                storage.clone(),
                clock.clone(),
                ids.clone(),
                retry_schedule(&settings.webhooks),
            )),
            setup_intents,
            payment_methods: Arc::new(PaymentMethodService::new(storage.clone(), clock.clone())),
            payouts,
            products: Arc::new(ProductService::new(storage.clone(), clock.clone(), ids.clone())),
            prices: Arc::new(PriceService::new(storage.clone(), clock.clone(), ids.clone())),
            pages,
            balance: Arc::new(BalanceService::new(storage.clone(), clock.clone(), payout_rails())),
            payments: Arc::new(PaymentService::new(storage.clone(), clock.clone())),
            refunds,
            events: Arc::new(EventService::new(storage.clone())),
            webhooks: Arc::new(WebhookService::new(
                storage.clone(),
                clock.clone(),
                ids.clone(),
                url_guard,
                secret_overlap_seconds,
            )),
            deliveries: deliveries.clone(),
            test_clocks: Arc::new(TestClockService::new(clock.clone(), due_work.clone(), deliveries)),
            overview: Arc::new(OverviewService::new(storage.clone(), clock.clone())),
            due_work,
            simulated_processor,
            processor_events,
            connectors: Arc::new(ConnectorAccountService::new(storage.clone(), clock.clone(), ids.clone(), sealer)),
            console_sessions: Arc::new(ConsoleSessionService::new(
                storage.clone(),
                clock.clone(),
                ids.clone(),
                accounts,
                idle_seconds,
            )),
            secure_cookies: settings.public_base_url.scheme() == "https",
            public_base_url: settings.public_base_url.as_str().to_owned(),
            request_logs: Arc::new(RequestLogService::new(storage.clone(), clock.clone(), retention)),
            storage,
            ids,
            metrics,
            deliveries_due: signals.deliveries_due,
            mail_due: signals.mail_due,
            event_signal: signals.events,
            stream_slots: Arc::new(StreamSlots::new(settings.event_streams)),
            mailer,
            mailbox: settings.mail.mailbox,
            webhook_settings: settings.webhooks.clone(),
            clock,
            stopping: crate::shutdown::Stopping::default(),
        })
    }

    /// The services over the configured database, with `real_time` and random ids.
    ///
    /// # Errors
    /// Why the database could not be reached or migrated, or the SMTP URL used.
    pub fn connect(settings: &ValidSettings, real_time: Arc<RealTime>) -> Result<Self, StartupError> {
        let metrics = Arc::new(Metrics::new());
        let pool = settings.database_url.connect_with_events(settings.pool, metrics.pool_events())?;
        let writer = settings.database_url.writer_pool(settings.pool, metrics.pool_events())?;
        metrics.watch_pool(pool.clone());
        let signals = Signals {
            deliveries_due: Arc::new(Notify::new()),
            mail_due: Arc::new(Notify::new()),
            events: EventSignal::for_database(&settings.database_url),
        };
        let told = signals.clone();
        let ids: Arc<dyn IdGenerator> = Arc::new(RandomIds);
        let database =
            DieselUnitOfWork::new(pool, ids.clone()).writing_through(writer).notifying(Arc::new(move |queued| {
                if queued.deliveries {
                    told.deliveries_due.notify_one();
                }
                if queued.mail {
                    told.mail_due.notify_one();
                }
                told.events.committed(queued);
            }));
        Self::new(Arc::new(database), real_time, ids, settings, signals, metrics)
    }

    /// The mail worker of this instance.
    #[must_use]
    pub fn mail_worker(&self) -> MailWorker {
        let settings = MailWorkerSettings {
            concurrency: MAIL_CONCURRENCY,
            lease: MAIL_LEASE,
            poll_interval: MAIL_POLL_INTERVAL,
            batch: MAIL_BATCH,
        };
        MailWorker::new(self.mail_messages.clone(), self.mailer.clone(), self.mail_due.clone(), settings)
    }

    /// Runs every due background action once, up to `batch` objects of each kind: payment and setup
    /// intents' timeouts, then checkout session expiries. Returns how many objects moved.
    ///
    /// # Errors
    /// Storage failures of a scan.
    pub fn run_due_actions(&self, batch: u32) -> Result<usize, ApplicationError> {
        self.due_work.run(batch)
    }

    /// The webhook delivery worker of this instance.
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn delivery_worker(&self) -> Result<DeliveryWorker, SenderBuildError> {
        let hooks = &self.webhook_settings;
        let sender =
            HttpWebhookSender::new(Duration::from_secs(hooks.timeout_seconds), hooks.allow_private_targets_in_test)?;
        let settings = WorkerSettings {
            limits: DeliveryLimits {
                total: hooks.concurrency,
                per_endpoint: hooks.per_endpoint_concurrency,
                per_account: hooks.per_account_concurrency,
            },
            lease: Duration::from_secs(hooks.lease_seconds),
            poll_interval: Duration::from_millis(hooks.poll_interval_ms),
        };
        let owner = format!("{}-{}", std::process::id(), self.ids.alphanumeric(8));
        Ok(DeliveryWorker::new(
            self.deliveries.clone(),
            Arc::new(sender),
            self.clock.clone(),
            self.deliveries_due.clone(),
            settings,
            owner,
            self.metrics.clone(),
        ))
    }
}

/// Why the service could not start or keep serving.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(transparent)]
    Database(#[from] DatabaseError),
    #[error("cannot listen on {address}")]
    Listen {
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("the HTTP server failed")]
    Server(#[source] std::io::Error),
    #[error(transparent)]
    WebhookClient(#[from] SenderBuildError),
    #[error(transparent)]
    Mail(#[from] SmtpSettingsError),
    #[error(transparent)]
    CredentialsKey(#[from] payments_adapters::sealer::BadKey),
    #[error("the database connection task failed")]
    Task(#[source] tokio::task::JoinError),
}

/// The running service: a bound HTTP server, its services and its webhook worker.
pub struct Application {
    port: u16,
    server: Server,
    services: Services,
    /// The webhook worker, run beside the server unless a caller took it to drive it.
    worker: Option<DeliveryWorker>,
    /// The request log's queue, drained beside the server when the log is on.
    request_log: Option<RequestLogReceiver>,
    /// How long requests in flight and the workers' sends have to finish once stopping begins.
    grace: Duration,
}

impl Application {
    /// Connects and migrates the database, then binds the listener.
    ///
    /// # Errors
    /// Why the database, the listen address or the webhook client could not be used.
    pub async fn build(settings: ValidSettings) -> Result<Self, StartupError> {
        Self::build_with_clock(settings, Arc::new(RealTime::default())).await
    }

    /// As [`Application::build`], with real time that tests move forward.
    ///
    /// # Errors
    /// Why the database, the listen address or the webhook client could not be used.
    pub async fn build_with_clock(settings: ValidSettings, real_time: Arc<RealTime>) -> Result<Self, StartupError> {
        // What the decoders mark secret is what the request log and idempotency records never keep.
        crate::redact::declare_secret_parameters(crate::routes::secret_parameter_names());
        let connect_settings = settings.clone();
        let services = tokio::task::spawn_blocking(move || Services::connect(&connect_settings, real_time))
            .await
            .map_err(StartupError::Task)??;
        Self::with_services(&settings, services)
    }

    /// Binds the listener and builds the server around given services.
    ///
    /// # Errors
    /// Why the listen address or the webhook client could not be used.
    pub fn with_services(settings: &ValidSettings, services: Services) -> Result<Self, StartupError> {
        let address = settings.listen;
        let listener = TcpListener::bind(address).map_err(|source| StartupError::Listen { address, source })?;
        let port = listener.local_addr().map_err(|source| StartupError::Listen { address, source })?.port();
        let worker = services.delivery_worker()?;
        let data = web::Data::new(services.clone());
        let body_rules = BodyRules { max_bytes: settings.body_limit_bytes, deadline: settings.request_timeout };
        let reference = web::Data::new(crate::pages::ApiReference::new(settings.public_base_url.as_str()));
        let limits = web::Data::new(crate::rate_limit::RateLimits::new(settings.rate_limit));
        let metrics_settings = settings.metrics.clone();
        let console_enabled = settings.console.enabled;
        let operator_settings = settings.operator.clone();
        let (request_log, log_receiver) = match settings.request_log.enabled {
            true => {
                let (queue, receiver) = crate::request_log::queue();
                (Some(web::Data::new(queue)), Some(receiver))
            }
            false => (None, None),
        };
        let mut server = HttpServer::new(move || {
            let mut app = App::new();
            if let Some(queue) = &request_log {
                app = app.app_data(queue.clone());
            }
            app.app_data(data.clone())
                .app_data(body_rules)
                .app_data(reference.clone())
                .app_data(limits.clone())
                .wrap(from_fn(crate::rate_limit::rate_limit))
                .wrap(from_fn(crate::request_log::capture))
                .wrap(from_fn(request_id_header))
                .wrap(TracingLogger::<RequestSpan>::new())
                .wrap(from_fn(crate::metrics::record_request))
                .configure(routes::configure)
                .configure(|config| crate::metrics::configure(config, &metrics_settings))
                .configure(|config| crate::operator::configure(config, &operator_settings))
                .configure(crate::processor_event::configure)
                .configure(|config| crate::pages::configure(config, console_enabled))
                .default_service(web::to(routes::route_not_found))
        })
        // The service listens for the signals itself, so that it winds its workers down with the
        // server (crate::shutdown).
        .disable_signals()
        // A client that closes its side of the connection is gone: what it waits for is dropped at
        // once (an idle event stream gives its place back) rather than at the next write. A use case
        // already running finishes all the same (it runs on the blocking pool, and an idempotent
        // request in a task of its own).
        .h1_allow_half_closed(false)
        .shutdown_timeout(settings.shutdown_grace.as_secs());
        if settings.workers > 0 {
            server = server.workers(settings.workers);
        }
        let server = server.listen(listener).map_err(StartupError::Server)?.run();
        let grace = settings.shutdown_grace;
        Ok(Self { port, server, services, worker: Some(worker), request_log: log_receiver, grace })
    }

    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    #[must_use]
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// What stops the HTTP server from outside (its workers are threads of their own, which keep
    /// the services, and so the database pool, until told to stop).
    #[must_use]
    pub fn server_handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// Takes the webhook worker out, so the caller drives it (tests tick it with a moved clock); the
    /// service then runs without one.
    pub fn detach_delivery_worker(&mut self) -> Option<DeliveryWorker> {
        self.worker.take()
    }

    /// Serves requests only, with none of the background jobs (due work, the webhook and mail
    /// workers, the request log's writer, housekeeping), until the server is stopped: for a test
    /// that counts what one request sends to the database, with nothing else sending.
    ///
    /// # Errors
    /// An I/O failure of the server.
    pub async fn serve_requests_only(self) -> Result<(), StartupError> {
        self.server.await.map_err(StartupError::Server)
    }

    /// Serves until SIGINT or SIGTERM, then stops gracefully ([`crate::shutdown`]).
    ///
    /// # Errors
    /// An I/O failure of the server.
    pub async fn run_until_stopped(self) -> Result<(), StartupError> {
        let stopping = self.services.stopping.clone();
        let server = self.server.handle();
        let signals = tokio::spawn(async move {
            crate::shutdown::signalled().await;
            tracing::info!("stopping: no new connections; requests in flight, streams and workers wind down");
            stopping.begin();
            server.stop(true).await;
        });
        let purge = tokio::spawn(purge_idempotency_keys(self.services.idempotency.clone()));
        let due_actions = tokio::spawn(run_due_actions(self.services.clone()));
        let stopping = self.services.stopping.clone();
        let deliveries = self.worker.map(|worker| {
            let stopping = stopping.clone();
            tokio::spawn(async move { worker.run(stopping.begun()).await })
        });
        let mail_stopping = stopping.clone();
        let mail_worker = self.services.mail_worker();
        let mail = tokio::spawn(async move { mail_worker.run(mail_stopping.begun()).await });
        let checkpoints = tokio::spawn(checkpoint_storage(self.services.storage.clone()));
        let request_log =
            self.request_log.map(|receiver| tokio::spawn(write_request_logs(receiver, self.services.clone())));
        let tidy_up = tokio::spawn(tidy_up(self.services.clone()));
        let outcome = self.server.await;
        // Stopped by a signal or by the server itself: either way everything winds down now.
        stopping.begin();
        signals.abort();
        tidy_up.abort();
        due_actions.abort();
        purge.abort();
        // The workers finish what they are sending and give back the rest, within the grace.
        let wound_down = async {
            if let Some(deliveries) = deliveries {
                let _ = deliveries.await;
            }
            let _ = mail.await;
        };
        if tokio::time::timeout(self.grace, wound_down).await.is_err() {
            tracing::warn!(
                "the workers did not wind down within the grace; what they hold is taken over after its lease"
            );
        }
        if let Some(writer) = request_log {
            // The server is gone with every sender: the writer drains what is left and ends.
            let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
        }
        checkpoints.abort();
        outcome.map_err(StartupError::Server)
    }
}

fn retry_schedule(settings: &WebhookSettings) -> RetrySchedule {
    RetrySchedule {
        base_ms: settings.retry_base_ms,
        cap_ms: settings.retry_cap_ms,
        jitter: settings.jitter,
        give_up_after_ms: settings.give_up_after_seconds.saturating_mul(1_000),
    }
}

/// Background job: releases expired holds, fails abandoned redirects, finishes processing payments
/// and card verifications, and expires checkout sessions past `expires_at`. Each object moves in its
/// own short transaction; several instances may run this at once.
async fn run_due_actions(services: Services) {
    let mut interval = tokio::time::interval(DUE_ACTIONS_INTERVAL);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let run = services.clone();
        let moved = tokio::task::spawn_blocking(move || run.run_due_actions(DUE_ACTIONS_BATCH));
        match moved.await {
            Ok(Ok(moved)) => {
                services.metrics.due_actions_ran(services.clock.now());
                if moved > 0 {
                    tracing::info!(moved, "ran due actions");
                }
            }
            Ok(Err(error)) => tracing::warn!(%error, "could not run due actions"),
            Err(error) => tracing::warn!(%error, "the due actions task failed"),
        }
    }
}

/// Background job: checkpoints the database's write-ahead log (SQLite), so that commits never do it.
async fn checkpoint_storage(storage: Arc<dyn UnitOfWork>) {
    let mut interval = tokio::time::interval(CHECKPOINT_INTERVAL);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let storage = storage.clone();
        match tokio::task::spawn_blocking(move || storage.upkeep()).await {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => return,
            Ok(Err(error)) => tracing::warn!(%error, "could not checkpoint the write-ahead log"),
            Err(error) => tracing::warn!(%error, "the checkpoint task failed"),
        }
    }
}

/// Background job: drops request log entries past their retention or their account's row cap, and
/// ends console sessions left idle. Deleting is idempotent, so several instances may prune at once.
async fn tidy_up(services: Services) {
    let mut interval = tokio::time::interval(TIDY_UP_INTERVAL);
    loop {
        interval.tick().await;
        let pruning = services.clone();
        match tokio::task::spawn_blocking(move || pruning.request_logs.prune()).await {
            Ok(Ok(pruned)) => tracing::debug!(pruned, "pruned the request log"),
            Ok(Err(error)) => tracing::warn!(%error, "could not prune the request log"),
            Err(error) => tracing::warn!(%error, "the request log prune task failed"),
        }
        let ending = services.clone();
        match tokio::task::spawn_blocking(move || ending.console_sessions.end_idle()).await {
            Ok(Ok(ended)) => tracing::debug!(ended, "ended idle console sessions"),
            Ok(Err(error)) => tracing::warn!(%error, "could not end idle console sessions"),
            Err(error) => tracing::warn!(%error, "the console session task failed"),
        }
    }
}

/// Background job: forgets idempotency keys past their 24-hour retention.
async fn purge_idempotency_keys(service: Arc<IdempotencyService>) {
    let mut interval = tokio::time::interval(PURGE_INTERVAL);
    loop {
        interval.tick().await;
        let service = service.clone();
        match tokio::task::spawn_blocking(move || service.purge_expired()).await {
            Ok(Ok(purged)) => tracing::debug!(purged, "purged expired idempotency keys"),
            Ok(Err(error)) => tracing::warn!(%error, "could not purge idempotency keys"),
            Err(error) => tracing::warn!(%error, "the idempotency purge task failed"),
        }
    }
}
