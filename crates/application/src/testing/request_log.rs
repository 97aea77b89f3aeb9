//! The request log, in memory.

use super::{filtered_page_of, in_scope_of, State};
use crate::pagination::{Page, PageRequest};
use crate::ports::{RequestLogFilter, RequestLogRepository, StoreError};
use crate::scope::Scope;
use payments_domain::ids::{AccountId, RequestLogId};
use payments_domain::request_log::{RequestLog, Retention};
use payments_domain::time::Timestamp;
use std::collections::HashMap;

impl RequestLogRepository for State {
    fn append(&mut self, entries: &[RequestLog]) -> Result<(), StoreError> {
        self.request_logs.extend_from_slice(entries);
        Ok(())
    }

    fn find(&mut self, scope: &Scope, id: &RequestLogId) -> Result<Option<RequestLog>, StoreError> {
        Ok(self.request_logs.iter().find(|e| &e.id == id && in_scope_of(&e.account_id, e.livemode, scope)).cloned())
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &RequestLogFilter,
        page: &PageRequest,
    ) -> Result<Page<RequestLog>, StoreError> {
        let in_scope: Vec<&RequestLog> =
            self.request_logs.iter().filter(|e| in_scope_of(&e.account_id, e.livemode, scope)).collect();
        filtered_page_of(&in_scope, |e| e.id.as_str(), |e| filter.matches(e), page)
    }

    fn prune(&mut self, retention: Retention, now: Timestamp) -> Result<usize, StoreError> {
        let cutoff = retention.cutoff(now);
        Ok(self.keep_newest(retention, |_| true, |entry| entry.created_at >= cutoff))
    }

    fn trim(&mut self, scope: &Scope, retention: Retention) -> Result<usize, StoreError> {
        Ok(self.keep_newest(retention, |entry| in_scope_of(&entry.account_id, entry.livemode, scope), |_| true))
    }
}

impl State {
    /// Of the entries `in_reach`, keeps each tenant's newest within `retention`'s caps that are
    /// `recent`; returns how many went.
    fn keep_newest(
        &mut self,
        retention: Retention,
        in_reach: impl Fn(&RequestLog) -> bool,
        recent: impl Fn(&RequestLog) -> bool,
    ) -> usize {
        let before = self.request_logs.len();
        let mut counted: HashMap<(AccountId, bool), (u32, u64)> = HashMap::new();
        // Newest first, so each tenant keeps its newest rows up to the caps.
        let mut newest_first: Vec<RequestLog> = std::mem::take(&mut self.request_logs);
        newest_first.reverse();
        newest_first.retain(|entry| {
            if !in_reach(entry) {
                return true;
            }
            let (rows, bytes) = counted.entry((entry.account_id.clone(), entry.livemode)).or_default();
            *rows += 1;
            *bytes += entry.size_bytes();
            recent(entry) && retention.keeps(*rows, *bytes)
        });
        newest_first.reverse();
        self.request_logs = newest_first;
        before - self.request_logs.len()
    }
}
