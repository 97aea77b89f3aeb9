//! Why a client command failed, and the real time the commands read.

use crate::api::ApiError;

/// Why a client command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Api(#[from] ApiError),
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

/// The real time now.
pub(crate) fn now() -> payments_domain::time::Timestamp {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    payments_domain::time::Timestamp::from_unix_millis(i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX))
}
