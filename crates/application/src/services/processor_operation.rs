//! What the services share about operations sent to a live processor: finding an operation and
//! the processor's payment it acts on, recording whether the processor answered, and the
//! operations due for a check (the janitor's work, each run by the service of what it acts on).

use super::due::{Due, DueKind};
use crate::error::ApplicationError;
use crate::ports::connector::ConnectorError;
use crate::ports::{reading, Repositories, UnitOfWork};
use crate::scope::Scope;
use payments_domain::connector_account::LastCall;
use payments_domain::ids::PaymentId;
use payments_domain::processor_operation::{Answer, OperationKind, OperationState, ProcessorOperation};
use payments_domain::time::Timestamp;

/// Records, for the console, whether the processor answered: a refusal is an answer; a request not
/// sent, an answer lost, or keys refused are not.
pub(crate) fn record_call<T>(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    answer: &Result<T, ConnectorError>,
    now: Timestamp,
) -> Result<(), ApplicationError> {
    let answered = matches!(answer, Ok(_) | Err(ConnectorError::Refused { .. }));
    Ok(repositories.connector_accounts().record_call(&scope.account_id, LastCall { answered, at: now })?)
}

/// The processor's id for the payment `payment`, from its authorization.
pub(crate) fn authorized_reference(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    payment: &PaymentId,
) -> Result<String, ApplicationError> {
    let operations = repositories.processor_operations().of_payment(scope, payment)?;
    succeeded_reference(&operations, &OperationKind::Authorize)
        .ok_or_else(|| ApplicationError::internal("a live payment has no authorization at the processor"))
}

pub(crate) fn succeeded_reference(operations: &[ProcessorOperation], kind: &OperationKind) -> Option<String> {
    operations.iter().filter(|operation| operation.kind() == kind).find_map(|operation| match operation.state() {
        OperationState::Succeeded { processor_reference } => Some(processor_reference.clone()),
        _ => None,
    })
}

pub(crate) fn find_operation(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    key: &str,
) -> Result<ProcessorOperation, ApplicationError> {
    repositories
        .processor_operations()
        .find(scope, key)?
        .ok_or_else(|| ApplicationError::NotFound { resource: "processor_operation", id: key.to_owned() })
}

/// A check's error: no answer about the operation, which is asked again on its schedule.
pub(crate) fn check_failed(error: ConnectorError) -> ConnectorError {
    // Whatever stopped the check (a refusal of it, no connection, keys refused), the operation
    // itself may still have happened: only an answer about it settles it.
    ConnectorError::OutcomeUnknown(error.to_string())
}

/// A check that found nothing of `operation` at the processor at `at`: proof that it was never
/// sent once no request of it can still land ([`ProcessorOperation::absence_at`]); until then no
/// answer, asked again on its schedule.
pub(crate) fn absent(operation: &ProcessorOperation, at: Timestamp, why: &str) -> ConnectorError {
    match operation.absence_at(at) {
        Answer::NotSent => ConnectorError::NotSent(why.to_owned()),
        _ => ConnectorError::OutcomeUnknown(format!("{why}, yet")),
    }
}

/// A check with no connector to ask: it settles nothing, and the operation waits for its next
/// check (it does not stay due, ahead of every other).
pub(crate) fn unasked() -> ConnectorError {
    ConnectorError::OutcomeUnknown("no live processor is set up for the account".into())
}

/// The operations of `within` (or of every scope) whose check is due at `now`: an intent's
/// (authorize, capture, void) as [`DueKind::ProcessorOperation`], a refund's as
/// [`DueKind::RefundOperation`].
///
/// # Errors
/// Storage failures.
pub(crate) fn due_operations(
    unit_of_work: &dyn UnitOfWork,
    within: Option<&Scope>,
    now: Timestamp,
    limit: u32,
) -> Result<Vec<Due>, ApplicationError> {
    let due = reading(unit_of_work, |repositories| Ok(repositories.processor_operations().due(within, now, limit)?))?;
    Ok(due
        .into_iter()
        .filter_map(|operation| {
            let kind = match operation.kind() {
                OperationKind::Refund(_) => DueKind::RefundOperation,
                OperationKind::Authorize | OperationKind::Capture | OperationKind::Void => DueKind::ProcessorOperation,
            };
            Some(Due {
                kind,
                scope: Scope::of(operation.account_id(), operation.livemode()),
                at: operation.next_check_at()?,
                id: operation.idempotency_key().to_owned(),
            })
        })
        .collect())
}
