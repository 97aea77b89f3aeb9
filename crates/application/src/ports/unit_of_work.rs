//! The unit of work: one transaction that hands out the repositories.

use super::{
    AccountRepository, CustomerRepository, EventRepository, IdempotencyRepository, PaymentIntentRepository,
    PaymentRepository, RefundRepository, StoreError,
};
use super::{DeliveryRepository, WebhookRepository};
use crate::error::ApplicationError;

/// The repositories of one transaction.
pub trait Repositories {
    fn accounts(&mut self) -> &mut dyn AccountRepository;
    fn customers(&mut self) -> &mut dyn CustomerRepository;
    fn idempotency_keys(&mut self) -> &mut dyn IdempotencyRepository;
    fn payment_intents(&mut self) -> &mut dyn PaymentIntentRepository;
    fn payments(&mut self) -> &mut dyn PaymentRepository;
    fn refunds(&mut self) -> &mut dyn RefundRepository;
    fn events(&mut self) -> &mut dyn EventRepository;
    fn webhooks(&mut self) -> &mut dyn WebhookRepository;
    fn deliveries(&mut self) -> &mut dyn DeliveryRepository;
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
pub fn retry_on_conflict<T>(mut use_case: impl FnMut() -> Result<T, ApplicationError>) -> Result<T, ApplicationError> {
    let mut attempt = 1;
    loop {
        match use_case() {
            Err(ApplicationError::Conflict) if attempt < CONFLICT_ATTEMPTS => attempt += 1,
            outcome => return outcome,
        }
    }
}
