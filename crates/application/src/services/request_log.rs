//! The request log: recording what the API answered, reading it back, and keeping it bounded: by
//! age and caps at each prune, and within each account's caps as it is written.

use crate::error::ApplicationError;
use crate::pagination::{Page, PageRequest};
use crate::ports::{in_transaction, reading, Clock, RequestLogFilter, UnitOfWork};
use crate::scope::Scope;
use payments_domain::ids::RequestLogId;
use payments_domain::request_log::{RequestLog, Retention};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Request log use cases.
pub struct RequestLogService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    retention: Retention,
    /// Bytes this instance recorded in each scope since it last held the scope to its caps.
    written: Mutex<HashMap<Scope, u64>>,
}

impl RequestLogService {
    #[must_use]
    pub fn new(unit_of_work: Arc<dyn UnitOfWork>, clock: Arc<dyn Clock>, retention: Retention) -> Self {
        Self { unit_of_work, clock, retention, written: Mutex::default() }
    }

    /// Records logged requests, of any accounts; then holds each scope that has written
    /// [`Retention::trim_every_bytes`] since it was last held to its caps, so that an account that
    /// logs fast stays within its byte cap between two prunes.
    ///
    /// # Errors
    /// Storage failures of the entries' write (not of the trim after it, which is tried again).
    pub fn record(&self, entries: &[RequestLog]) -> Result<(), ApplicationError> {
        if entries.is_empty() {
            return Ok(());
        }
        in_transaction(self.unit_of_work.as_ref(), |repositories| Ok(repositories.request_logs().append(entries)?))?;
        let due: Vec<Scope> = {
            let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
            for entry in entries {
                *written.entry(Scope::of(&entry.account_id, entry.livemode)).or_default() += entry.size_bytes();
            }
            let due: Vec<Scope> = written
                .iter()
                .filter(|(_, bytes)| **bytes >= self.retention.trim_every_bytes())
                .map(|(scope, _)| scope.clone())
                .collect();
            for scope in &due {
                written.remove(scope);
            }
            due
        };
        for scope in due {
            let trimmed = in_transaction(self.unit_of_work.as_ref(), |repositories| {
                Ok(repositories.request_logs().trim(&scope, self.retention)?)
            });
            // The entries are written whatever befalls the trim: a failed one is tried again with
            // the next batch of the scope, and the prune holds the caps meanwhile.
            if let Err(error) = trimmed {
                tracing::warn!(%error, "could not hold a scope's request log to its caps; trying with its next entries");
                let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
                *written.entry(scope).or_default() += self.retention.trim_every_bytes();
            }
        }
        Ok(())
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
        let pruned = in_transaction(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.request_logs().prune(self.retention, now)?)
        })?;
        // Every scope is within its caps now: what each wrote since counts from here.
        self.written.lock().unwrap_or_else(PoisonError::into_inner).clear();
        Ok(pruned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::contract::request_log;
    use crate::testing::TestPorts;
    use payments_domain::account::Mode;

    #[test]
    fn an_account_that_logs_fast_is_held_to_its_byte_cap_as_it_writes() {
        let ports = TestPorts::new();
        let scope = ports.scope(Mode::Test);
        let entry = |n: u32| RequestLog { response_body: Some("x".repeat(1_000)), ..request_log(&scope, n) };
        let size = entry(1).size_bytes();
        let retention = Retention { max_age_seconds: 86_400, max_rows: 1_000_000, max_bytes: 16 * size };
        let service = RequestLogService::new(ports.store.clone(), ports.clock.clone(), retention);
        let page = PageRequest::new(Some(100), None, None).unwrap();
        for batch in 0..10 {
            let entries: Vec<RequestLog> = (0..10).map(|n| entry(batch * 10 + n + 1)).collect();
            service.record(&entries).unwrap();
            let kept = service.list(&scope, &RequestLogFilter::default(), &page).unwrap();
            let bytes: u64 = kept.data.iter().map(RequestLog::size_bytes).sum();
            // Over the cap by less than what is written between two enforcements, and a batch.
            let most = retention.max_bytes + retention.trim_every_bytes() + 10 * size;
            assert!(bytes <= most, "{bytes} after batch {batch}");
        }
        let kept = service.list(&scope, &RequestLogFilter::default(), &page).unwrap();
        assert!(kept.data.len() <= 16, "{} entries kept", kept.data.len());
        assert_eq!(kept.data.first().map(|newest| newest.duration_ms), Some(100), "the newest stay");
    }
}
