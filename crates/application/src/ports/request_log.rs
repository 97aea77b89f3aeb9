//! The request log of each account.

use crate::error::StoreError;
use crate::pagination::{Page, PageRequest};
use crate::scope::Scope;
use payments_domain::ids::RequestLogId;
use payments_domain::request_log::{RequestLog, RequestSource, Retention, StatusRange};
use payments_domain::time::Timestamp;

/// The list filters of `GET /request_logs`; every given one must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestLogFilter {
    pub status: Option<StatusRange>,
    pub method: Option<String>,
    /// The start of the path.
    pub path_prefix: Option<String>,
    pub object_id: Option<String>,
    pub source: Option<RequestSource>,
}

impl RequestLogFilter {
    /// Whether `entry` passes this filter.
    #[must_use]
    pub fn matches(&self, entry: &RequestLog) -> bool {
        self.status.is_none_or(|range| range.contains(entry.status))
            && self.method.as_deref().is_none_or(|method| entry.method == method)
            && self.path_prefix.as_deref().is_none_or(|prefix| entry.path.starts_with(prefix))
            && self.object_id.as_deref().is_none_or(|id| entry.object_id.as_deref() == Some(id))
            && self.source.is_none_or(|source| entry.source == source)
    }
}

/// Logged requests, confined to their account and mode.
pub trait RequestLogRepository {
    /// Records `entries`, of any accounts.
    ///
    /// # Errors
    /// Storage failures.
    fn append(&mut self, entries: &[RequestLog]) -> Result<(), StoreError>;

    /// # Errors
    /// Storage failures.
    fn find(&mut self, scope: &Scope, id: &RequestLogId) -> Result<Option<RequestLog>, StoreError>;

    /// A page of the scope's entries that match `filter`, newest first.
    ///
    /// # Errors
    /// [`StoreError::UnknownCursor`] when the cursor names no entry of the scope; storage failures.
    fn list(
        &mut self,
        scope: &Scope,
        filter: &RequestLogFilter,
        page: &PageRequest,
    ) -> Result<Page<RequestLog>, StoreError>;

    /// Drops every entry older than `retention` allows at `now`, and each account's oldest entries
    /// in each mode beyond its row and byte caps; returns how many. Safe to run in several
    /// instances at once.
    ///
    /// # Errors
    /// Storage failures.
    fn prune(&mut self, retention: Retention, now: Timestamp) -> Result<usize, StoreError>;

    /// Drops the scope's oldest entries beyond `retention`'s row and byte caps (its newest stay, as
    /// many as both caps keep); returns how many. Safe to run in several instances at once.
    ///
    /// # Errors
    /// Storage failures.
    fn trim(&mut self, scope: &Scope, retention: Retention) -> Result<usize, StoreError>;
}
