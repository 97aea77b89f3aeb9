//! The errors of the application: what a use case reports to its caller, and the storage failure
//! every repository port reports (defined here, not among the ports, so neither module needs the
//! other).

use payments_domain::error::DomainError;
use payments_domain::validation::FieldError;

/// A boxed error that keeps its cause chain for the log.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a use case did not complete. Each variant maps to one HTTP status in the api.
#[derive(Debug, thiserror::Error)]
pub enum ApplicationError {
    /// One or more parameters are invalid; nothing was changed.
    #[error("invalid parameters: {}", display_all(.0))]
    Validation(Vec<FieldError>),
    /// The operation is not allowed in the resource's current state.
    #[error("{0}")]
    InvalidState(StateRefusal),
    /// The resource does not exist for this account and mode.
    #[error("no such {resource}: {id}")]
    NotFound { resource: &'static str, id: String },
    /// The credentials are missing, malformed, unknown or not allowed here.
    #[error("authentication failed")]
    Unauthenticated,
    /// A concurrent update of the same resource won.
    #[error("a concurrent update of the resource won")]
    Conflict,
    /// The idempotency key was used before with a different request.
    #[error("the idempotency key was used with a different request")]
    IdempotencyKeyReused,
    /// A request with the same idempotency key is still being processed.
    #[error("a request with the same idempotency key is in progress")]
    IdempotencyKeyInUse,
    /// Something this request needs is not configured here (a live payment processor, a mail
    /// server); the message says what, and retrying does not help until it is.
    #[error("{0}")]
    NotConfigured(String),
    /// The live processor refused the request (its 4xx), with the contract's code for it; nothing
    /// moved.
    #[error("the processor refused: {code}: {detail}")]
    ProcessorRefused { code: String, detail: String },
    /// The live processor could not be asked, or did not answer; the message says which. Nothing
    /// the request claimed is kept unless the processor may have acted, and then it is checked.
    #[error("{0}")]
    ProcessorUnavailable(String),
    /// The storage cannot be reached; retrying later may succeed.
    #[error("the storage is unavailable")]
    Unavailable(#[source] BoxError),
    /// A fault that the caller cannot fix.
    #[error("internal error")]
    Internal(#[source] BoxError),
}

/// Why an operation is not allowed in a resource's current state; the message is the API's `detail`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateRefusal {
    /// The resource's status does not allow the operation (the domain's refusal).
    #[error("Cannot {action} a {resource} whose status is {status}.")]
    Status { resource: &'static str, status: &'static str, action: &'static str },
    /// The payment of the resource (a checkout session, a billing statement) is processing: it
    /// completes or fails within seconds, and then the operation can be tried again.
    #[error("This {resource}'s payment is processing; it completes or fails within seconds.")]
    PaymentProcessing { resource: &'static str },
    /// A billing statement's customer was deleted.
    #[error("The customer {customer_id} of this billing statement was deleted.")]
    StatementCustomerDeleted { customer_id: String },
    /// A setup intent's customer was deleted: no payment method can be saved for them.
    #[error("Cannot attach a payment method to this setup intent: its customer {customer_id} was deleted.")]
    SetupCustomerDeleted { customer_id: String },
    /// A payment intent made by another resource is changed only through that resource.
    #[error("This payment intent belongs to {owner}, so it cannot be {done} directly; {instead}.")]
    OwnedIntent { owner: String, done: &'static str, instead: &'static str },
    /// A checkout session that is no longer payable (`expired` once past its `expires_at`).
    #[error("This checkout session is {status} and cannot be paid.")]
    SessionNotPayable { status: &'static str },
    /// An operation of the payment was sent to the live processor, which has not answered yet.
    #[error("The processor has not answered this payment's {operation} yet; it is being checked. Retry later.")]
    ProcessorOperationPending { operation: &'static str },
    /// An archived product cannot be priced, nor an archived price (or one of an archived product)
    /// offered on a page: offer it again (`active=true`) first.
    #[error("The {resource} is archived: offer it again with active=true first.")]
    Archived { resource: &'static str },
    /// A product with prices is archived, not deleted: its prices may have been sold.
    #[error("This product has prices, so it cannot be deleted: archive it with active=false.")]
    ProductPriced,
    /// Exported objects are imported only into an account whose test mode holds none.
    #[error("Account {account_id} already has test-mode objects; delete its test data before importing into it.")]
    AccountHasTestData { account_id: String },
}

impl ApplicationError {
    /// A validation failure of one parameter.
    #[must_use]
    pub fn invalid(error: FieldError) -> Self {
        Self::Validation(vec![error])
    }

    /// An internal fault described by a message.
    #[must_use]
    pub fn internal(message: &str) -> Self {
        Self::Internal(message.to_owned().into())
    }
}

impl From<DomainError> for ApplicationError {
    fn from(error: DomainError) -> Self {
        match error {
            DomainError::InvalidState { resource, status, action } => {
                Self::InvalidState(StateRefusal::Status { resource, status, action })
            }
            DomainError::Invalid(field) => Self::Validation(vec![field]),
        }
    }
}

/// An error and its causes, one `Caused by:` per line, for log lines.
#[must_use]
pub fn cause_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str("\nCaused by: ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn display_all(errors: &[FieldError]) -> String {
    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// A storage failure, as every repository reports it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An optimistic-concurrency check failed: a concurrent update won.
    #[error("a concurrent update won")]
    Conflict,
    /// A unique constraint refused the write; carries the constraint or index name.
    #[error("unique constraint {0} violated")]
    UniqueViolation(String),
    /// A list cursor names no object of the scope.
    #[error("the list cursor names no object")]
    UnknownCursor,
    /// More records than the operation may return.
    #[error("more than {0} records")]
    TooMany(usize),
    /// The record at `index` of those given to store cannot be stored, for `reason`.
    #[error("record {index}: {reason}")]
    RowRefused { index: usize, reason: String },
    /// The storage cannot be reached (connection refused or lost, pool timed out, database locked).
    #[error("the storage is unavailable")]
    Unavailable(#[source] BoxError),
    /// Any other storage fault.
    #[error("storage failure")]
    Other(#[source] BoxError),
}

impl From<StoreError> for ApplicationError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Conflict | StoreError::UniqueViolation(_) => Self::Conflict,
            StoreError::Unavailable(source) => Self::Unavailable(source),
            StoreError::Other(source) => Self::Internal(source),
            StoreError::UnknownCursor => Self::internal("a list cursor was not resolved by its use case"),
            StoreError::TooMany(_) | StoreError::RowRefused { .. } => {
                Self::internal("a refused batch was not resolved by its use case")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusals read, byte for byte, as the API wrote them when they were preformatted strings.
    #[test]
    fn refusals_read_as_the_api_has_always_written_them() {
        let domain = DomainError::InvalidState { resource: "payment_intent", status: "succeeded", action: "cancel" };
        let cases = [
            (ApplicationError::from(domain).to_string(), "Cannot cancel a payment_intent whose status is succeeded."),
            (
                StateRefusal::PaymentProcessing { resource: "checkout session" }.to_string(),
                "This checkout session's payment is processing; it completes or fails within seconds.",
            ),
            (
                StateRefusal::StatementCustomerDeleted { customer_id: "cus_1".into() }.to_string(),
                "The customer cus_1 of this billing statement was deleted.",
            ),
            (
                StateRefusal::SetupCustomerDeleted { customer_id: "cus_1".into() }.to_string(),
                "Cannot attach a payment method to this setup intent: its customer cus_1 was deleted.",
            ),
            (
                StateRefusal::OwnedIntent {
                    owner: "checkout session cs_1".into(),
                    done: "canceled",
                    instead: "expire the session instead",
                }
                .to_string(),
                "This payment intent belongs to checkout session cs_1, so it cannot be canceled directly; expire the \
                 session instead.",
            ),
            (
                StateRefusal::SessionNotPayable { status: "expired" }.to_string(),
                "This checkout session is expired and cannot be paid.",
            ),
        ];
        for (shown, expected) in cases {
            assert_eq!(shown, expected);
        }
    }
}
