//! The unit of work: one atomic change (or a set of reads) that hands out the repositories. How a
//! store makes a change atomic (a transaction, statements sent as one, grouped commits) is the
//! store's business.

use super::account::AccountRepository;
use super::billing_statement::BillingStatementRepository;
use super::checkout_session::CheckoutSessionRepository;
use super::console_session::ConsoleSessionRepository;
use super::customer::CustomerRepository;
use super::customer_session::CustomerSessionRepository;
use super::event::EventRepository;
use super::idempotency::IdempotencyRepository;
use super::mail_message::MailMessageRepository;
use super::payment::PaymentRepository;
use super::payment_intent::PaymentIntentRepository;
use super::payment_method::PaymentMethodRepository;
use super::refund::RefundRepository;
use super::request_log::RequestLogRepository;
use super::setup_intent::SetupIntentRepository;
use super::webhook::WebhookRepository;
use super::webhook_delivery::DeliveryRepository;
use crate::error::{ApplicationError, StoreError};

/// Declares [`Repositories`] from one list of accessors and the port each hands out, with an
/// implementation for every type that implements all of those ports (each store's session, the
/// in-memory fake). A new repository is one line here.
macro_rules! repositories {
    ($($accessor:ident: $port:ident),* $(,)?) => {
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
    accounts: AccountRepository,
    customers: CustomerRepository,
    customer_sessions: CustomerSessionRepository,
    idempotency_keys: IdempotencyRepository,
    payment_intents: PaymentIntentRepository,
    payments: PaymentRepository,
    checkout_sessions: CheckoutSessionRepository,
    billing_statements: BillingStatementRepository,
    mail_messages: MailMessageRepository,
    refunds: RefundRepository,
    setup_intents: SetupIntentRepository,
    payment_methods: PaymentMethodRepository,
    events: EventRepository,
    webhooks: WebhookRepository,
    deliveries: DeliveryRepository,
    request_logs: RequestLogRepository,
    console_sessions: ConsoleSessionRepository,
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

    /// Copies committed writes from the store's write-ahead log into its files, where it keeps one
    /// that it does not checkpoint itself (SQLite). Answers `false` when it keeps none, and the
    /// composition root's job then stops calling.
    ///
    /// # Errors
    /// Storage failures.
    fn checkpoint(&self) -> Result<bool, StoreError> {
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
