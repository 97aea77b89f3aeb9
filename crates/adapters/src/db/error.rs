//! The one place where diesel and pool errors become port errors.

use diesel::result::{DatabaseErrorKind, Error};
use payments_application::ports::StoreError;

/// Messages by which PostgreSQL and SQLite say the database went away or is busy, when diesel
/// reports them without a specific kind.
const UNAVAILABLE_MESSAGES: [&str; 7] = [
    "terminating connection",
    "server closed the connection",
    "no connection to the server",
    "connection to server",
    "database is locked",
    "the database system is",
    // A node that was the primary and is a standby now (after a failover), reached by a connection
    // made before: the request is retried on a new connection, which finds the new primary.
    "in a read-only transaction",
];

/// Maps a diesel error to the port's error.
pub(crate) fn store_error(error: Error) -> StoreError {
    match error {
        Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            StoreError::UniqueViolation(info.constraint_name().unwrap_or(info.message()).to_owned())
        }
        // A row that names one deleted meanwhile (an account deleted while its requests ran).
        Error::DatabaseError(DatabaseErrorKind::SerializationFailure | DatabaseErrorKind::ForeignKeyViolation, _) => {
            StoreError::Conflict
        }
        // Two transactions that each waited for the other (PostgreSQL rolled one back): as a lost
        // race, the loser may be retried.
        Error::DatabaseError(_, ref info) if info.message().contains("deadlock detected") => StoreError::Conflict,
        Error::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
            StoreError::Unavailable(info.message().to_owned().into())
        }
        Error::DatabaseError(_, ref info) if is_unavailable(info.message()) => {
            StoreError::Unavailable(info.message().to_owned().into())
        }
        other => StoreError::Other(other.into()),
    }
}

pub(crate) fn is_unavailable(message: &str) -> bool {
    UNAVAILABLE_MESSAGES.iter().any(|known| message.contains(known))
}

/// A connection could not be had from the pool within its timeout.
pub(crate) fn pool_error(error: r2d2::Error) -> StoreError {
    StoreError::Unavailable(error.into())
}

/// A stored value that does not convert back to its domain type.
pub(crate) fn corrupt(what: &str, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Other(format!("stored {what} is invalid: {detail}").into())
}

/// A versioned update that matched no row lost an optimistic-concurrency race.
pub(crate) fn versioned(updated: usize) -> Result<(), StoreError> {
    if updated == 0 {
        return Err(StoreError::Conflict);
    }
    Ok(())
}
