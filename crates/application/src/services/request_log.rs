//! The request log: recording what the API answered, reading it back, and keeping it bounded.

use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, RequestLogFilter, UnitOfWork};
use crate::scope::Scope;
use payments_domain::ids::RequestLogId;
use payments_domain::request_log::{RequestLog, Retention};
use std::sync::Arc;

/// Request log use cases.
pub struct RequestLogService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    retention: Retention,
}

impl RequestLogService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, retention: Retention) -> Self {
        Self { unit_of_work, clock, retention }
    }

    /// Records logged requests, of any accounts.
    ///
    /// # Errors
    /// Storage failures.
    pub fn record(&self, entries: &[RequestLog]) -> Result<(), ApplicationError> {
        if entries.is_empty() {
            return Ok(());
        }
        in_transaction(self.unit_of_work.as_ref(), |repositories| Ok(repositories.request_logs().append(entries)?))
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<RequestLog, ApplicationError> {
        let not_found = || ApplicationError::NotFound { resource: "request_log", id: id.to_owned() };
        let log_id = RequestLogId::parse(id).ok_or_else(not_found)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.request_logs().find(scope, &log_id)?.ok_or_else(not_found)
        })
    }

    /// # Errors
    /// `resource_not_found` naming the cursor when it is unknown; storage failures.
    pub fn list(
        &self,
        scope: &Scope,
        filter: &RequestLogFilter,
        page: &PageRequest,
    ) -> Result<Page<RequestLog>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.request_logs().list(scope, filter, page).map_err(|error| page.explain(error))
        })
    }

    /// Drops what the retention no longer keeps; returns how many entries went.
    ///
    /// # Errors
    /// Storage failures.
    pub fn prune(&self) -> Result<usize, ApplicationError> {
        let now = self.clock.now();
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.request_logs().prune(self.retention, now)?)
        })
    }
}
