//! The unit of work: one transaction that hands out the repositories.

use super::account::AccountRepository;
use super::billing_statement::BillingStatementRepository;
use super::checkout_session::CheckoutSessionRepository;
use super::customer::CustomerRepository;
use super::customer_session::CustomerSessionRepository;
use super::event::EventRepository;
use super::idempotency::IdempotencyRepository;
use super::mail_message::MailMessageRepository;
use super::payment::PaymentRepository;
use super::payment_intent::PaymentIntentRepository;
use super::payment_method::PaymentMethodRepository;
use super::refund::RefundRepository;
use super::setup_intent::SetupIntentRepository;
use super::webhook::WebhookRepository;
use super::webhook_delivery::DeliveryRepository;
use crate::error::{ApplicationError, StoreError};

/// Declares [`Repositories`] from one list of accessors and the port each hands out, with an
/// implementation for every type that implements all of those ports (the diesel session, the
/// in-memory fake). A new repository is one line here.
macro_rules! repositories {
    ($($accessor:ident: $port:ident),* $(,)?) => {
        /// The repositories of one transaction.
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
}

/// A callback run against the repositories of one transaction.
pub type Work<'a> = dyn FnMut(&mut dyn Repositories) -> Result<(), ApplicationError> + 'a;

/// Opens transactions. Object-safe; use [`in_transaction`] and [`reading`] for typed results.
pub trait UnitOfWork: Send + Sync {
    /// Runs `work` in one write transaction: committed when it returns `Ok`, rolled back otherwise.
    ///
    /// # Errors
    /// What `work` returns, or the storage failure that stopped the transaction.
    fn transaction(&self, work: &mut Work<'_>) -> Result<(), ApplicationError>;

    /// Runs `work`, which reads what it needs and ends with one write of one statement (a row
    /// inserted): one statement is atomic on its own, so a store may run it without a transaction.
    /// On PostgreSQL that saves `BEGIN` and `COMMIT`, two of a create's three round trips. A store
    /// refuses a second write statement in it, before running it.
    ///
    /// # Errors
    /// What `work` returns, or the storage failure that stopped it.
    fn single_write(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        self.transaction(work)
    }

    /// Runs `work`, which reads everything it needs before its first write, as one atomic change
    /// whose writes a store may hold back and send together when `work` returns: on PostgreSQL one
    /// statement, where a transaction would wait for each write's answer and for `BEGIN` and
    /// `COMMIT`. So a read after a write is refused, and a versioned update's conflict (and any
    /// other write's failure) may show only when `work` has returned: nothing is then written. A
    /// store refuses a write it cannot hold back, before running it.
    ///
    /// # Errors
    /// What `work` returns, or the storage failure that stopped it.
    fn batched_writes(&self, work: &mut Work<'_>) -> Result<(), ApplicationError> {
        self.transaction(work)
    }

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

    /// Copies committed writes from the store's write-ahead log into its main file, without making
    /// writers wait; called every few milliseconds by a background job. Returns `false` when the
    /// store keeps no such log (PostgreSQL checkpoints itself), and the job then stops.
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

/// Runs `work`, whose last step is its one write statement, and returns its result (see
/// [`UnitOfWork::single_write`]).
///
/// # Errors
/// What `work` returns, or the storage failure that stopped it.
pub fn in_single_write<T>(
    unit_of_work: &dyn UnitOfWork,
    work: impl FnOnce(&mut dyn Repositories) -> Result<T, ApplicationError>,
) -> Result<T, ApplicationError> {
    run(work, |adapted| unit_of_work.single_write(adapted))
}

/// Runs `work`, whose reads all come before its first write, and returns its result (see
/// [`UnitOfWork::batched_writes`]).
///
/// # Errors
/// What `work` returns, or the storage failure that stopped it.
pub fn in_batched_writes<T>(
    unit_of_work: &dyn UnitOfWork,
    work: impl FnOnce(&mut dyn Repositories) -> Result<T, ApplicationError>,
) -> Result<T, ApplicationError> {
    run(work, |adapted| unit_of_work.batched_writes(adapted))
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
