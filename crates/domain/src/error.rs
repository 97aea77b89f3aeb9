//! Why the domain refuses an operation.

use crate::validation::FieldError;

/// A refused operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// The operation is not allowed from the resource's current status.
    #[error("cannot {action} a {resource} whose status is {status}")]
    InvalidState { resource: &'static str, status: &'static str, action: &'static str },
    /// A parameter of the operation is not acceptable in the resource's current state.
    #[error("{0}")]
    Invalid(FieldError),
}
