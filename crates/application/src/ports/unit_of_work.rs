//! The unit of work: one atomic change (or a set of reads) that hands out the repositories. How a
//! store makes a change atomic (a transaction, statements sent as one, grouped commits) is the
//! store's business.

use crate::error::{ApplicationError, StoreError};

/// Declares [`Repositories`] from one list of accessors and the port each hands out, with an
/// implementation for every type that implements all of those ports (each store's session, the
/// in-memory fake). A new repository is one line here, naming its port by its module.
macro_rules! repositories {
    ($($accessor:ident: $port:path),* $(,)?) => {
        /// The repositories of one unit of work.
        pub trait Repositories {
            $(fn $accessor(&mut self) -> &mut dyn $port;)*
        }

        impl<T: $($port +)*> Repositories for T {
            $(fn $accessor(&mut self) -> &mut dyn $port {
                self
            })*
        }
    };
}

repositories! {
    accounts: super::account::AccountRepository,
    customers: super::customer::CustomerRepository,
    customer_sessions: super::customer_session::CustomerSessionRepository,
    idempotency_keys: super::idempotency::IdempotencyRepository,
    payment_intents: super::payment_intent::PaymentIntentRepository,
    payments: super::payment::PaymentRepository,
    checkout_sessions: super::checkout_session::CheckoutSessionRepository,
    billing_statements: super::billing_statement::BillingStatementRepository,
    mail_messages: super::mail_message::MailMessageRepository,
    refunds: super::refund::RefundRepository,
    processor_operations: super::processor_operation::ProcessorOperationRepository,
    processor_events: super::processor_event::ProcessorEventRepository,
    setup_intents: super::setup_intent::SetupIntentRepository,
    payment_methods: super::payment_method::PaymentMethodRepository,
    balance: super::balance::BalanceRepository,
    payouts: super::payout::PayoutRepository,
    events: super::event::EventRepository,
    webhooks: super::webhook::WebhookRepository,
    deliveries: super::webhook_delivery::DeliveryRepository,
    request_logs: super::request_log::RequestLogRepository,
    console_sessions: super::console_session::ConsoleSessionRepository,
    connector_accounts: super::connector_account::ConnectorAccountRepository,
    products: super::product::ProductRepository,
    prices: super::price::PriceRepository,
    pages: super::page::PageRepository,
}

/// A callback run against the repositories of one unit of work.
pub type Work<'a> = dyn FnMut(&mut dyn Repositories) -> Result<(), ApplicationError> + 'a;

/// Runs units of work. Object-safe; use [`in_transaction`] and [`reading`] for typed results.
pub trait UnitOfWork: Send + Sync {
    /// Runs `work` as one atomic change: all of its writes are kept when it returns `Ok`, none of
    /// them otherwise. Its reads see its own writes. A versioned update that lost its race may be
    /// reported as [`StoreError::Conflict`] when `work` returns rather than where it was made.
    ///
    /// # Errors
    /// What `work` returns, or the storage failure that stopped the transaction.
    fn transaction(&self, work: &mut Work<'_>) -> Result<(), ApplicationError>;

    /// Runs `work` on a connection for reads only.
    ///
    /// # Errors
    /// What `work` returns, or the storage failure that stopped it.
    fn read(&self, work: &mut Work<'_>) -> Result<(), ApplicationError>;

    /// Checks that the storage answers.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when it does not.
    fn ping(&self) -> Result<(), StoreError>;

    /// Does the upkeep the store needs now and then between units of work, if any. Answers `false`
    /// when it needs none, and the composition root's job then stops calling.
    ///
    /// # Errors
    /// Storage failures.
    fn upkeep(&self) -> Result<bool, StoreError> {
        Ok(false)
    }
}

/// Runs `work` in a write transaction and returns its result.
///
/// # Errors
/// What `work` returns, or the storage failure that stopped the transaction.
pub fn in_transaction<T>(
    unit_of_work: &dyn UnitOfWork,
    work: impl FnOnce(&mut dyn Repositories) -> Result<T, ApplicationError>,
) -> Result<T, ApplicationError> {
    run(work, |adapted| unit_of_work.transaction(adapted))
}

/// Runs `work` for reads only and returns its result.
///
/// # Errors
/// What `work` returns, or the storage failure that stopped it.
pub fn reading<T>(
    unit_of_work: &dyn UnitOfWork,
    work: impl FnOnce(&mut dyn Repositories) -> Result<T, ApplicationError>,
) -> Result<T, ApplicationError> {
    run(work, |adapted| unit_of_work.read(adapted))
}

fn run<T>(
    work: impl FnOnce(&mut dyn Repositories) -> Result<T, ApplicationError>,
    open: impl FnOnce(&mut Work<'_>) -> Result<(), ApplicationError>,
) -> Result<T, ApplicationError> {
    let mut work = Some(work);
    let mut output = None;
    open(&mut |repositories| {
        let work = work.take().ok_or_else(|| ApplicationError::internal("a unit of work ran its callback twice"))?;
        output = Some(work(repositories)?);
        Ok(())
    })?;
    output.ok_or_else(|| ApplicationError::internal("a unit of work committed without running its callback"))
}

/// Attempts of a use case that lost an optimistic-concurrency race before it gives up.
const CONFLICT_ATTEMPTS: usize = 3;

/// Runs a transactional use case again when a concurrent update won, so the loser re-reads the new
/// state and decides on it (usually refusing with the resource's new status).
///
/// # Errors
/// The use case's last error.
pub fn retry_on_conflict<T>(use_case: impl FnMut() -> Result<T, ApplicationError>) -> Result<T, ApplicationError> {
    retry_on_conflict_up_to(CONFLICT_ATTEMPTS, use_case)
}

/// As [`retry_on_conflict`], with up to `attempts` attempts, for use cases that many requests
/// contend for at once (a customer's statement numbers, a statement's line items): every lost race
/// means another request won, so each round makes progress.
///
/// # Errors
/// The use case's last error.
pub fn retry_on_conflict_up_to<T>(
    attempts: usize,
    mut use_case: impl FnMut() -> Result<T, ApplicationError>,
) -> Result<T, ApplicationError> {
    let mut attempt = 1;
    loop {
        match use_case() {
            Err(ApplicationError::Conflict) if attempt < attempts => attempt += 1,
            outcome => return outcome,
        }
    }
}
