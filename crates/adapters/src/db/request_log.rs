//! The request log in the database.

use super::cursor_seq;
use super::error::{corrupt, store_error};
use super::json::parse_id;
use super::schema::request_logs as logs;
use super::session::DbSession;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{RequestLogFilter, RequestLogRepository, StoreError};
use payments_application::Scope;
use payments_domain::account::KeyKind;
use payments_domain::ids::{AccountId, RequestLogId};
use payments_domain::request_log::{RequestLog, RequestSource, Retention};
use payments_domain::time::Timestamp;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = logs, treat_none_as_default_value = false)]
struct RequestLogRow {
    id: String,
    account_id: String,
    livemode: bool,
    source: String,
    key_kind: String,
    method: String,
    path: String,
    query: String,
    status: i32,
    duration_ms: i64,
    idempotency_key: Option<String>,
    replayed: bool,
    object_id: Option<String>,
    request_body: Option<String>,
    response_body: Option<String>,
    created_at: i64,
    /// [`RequestLog::size_bytes`], summed by the byte cap's pruning.
    size_bytes: i64,
}

impl RequestLogRow {
    fn from_domain(entry: &RequestLog) -> Self {
        Self {
            id: entry.id.to_string(),
            account_id: entry.account_id.to_string(),
            livemode: entry.livemode,
            source: entry.source.as_str().to_owned(),
            key_kind: entry.key_kind.as_str().to_owned(),
            method: entry.method.clone(),
            path: entry.path.clone(),
            query: entry.query.clone(),
            status: i32::from(entry.status),
            duration_ms: entry.duration_ms,
            idempotency_key: entry.idempotency_key.clone(),
            replayed: entry.replayed,
            object_id: entry.object_id.clone(),
            request_body: entry.request_body.clone(),
            response_body: entry.response_body.clone(),
            created_at: entry.created_at.unix_seconds(),
            size_bytes: i64::try_from(entry.size_bytes()).unwrap_or(i64::MAX),
        }
    }

    fn into_domain(self) -> Result<RequestLog, StoreError> {
        Ok(RequestLog {
            id: parse_id("request log id", &self.id, RequestLogId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            source: RequestSource::parse(&self.source).ok_or_else(|| corrupt("request source", &self.source))?,
            key_kind: KeyKind::parse(&self.key_kind).ok_or_else(|| corrupt("key kind", &self.key_kind))?,
            method: self.method,
            path: self.path,
            query: self.query,
            status: u16::try_from(self.status).map_err(|e| corrupt("status", e))?,
            duration_ms: self.duration_ms,
            idempotency_key: self.idempotency_key,
            replayed: self.replayed,
            object_id: self.object_id,
            request_body: self.request_body,
            response_body: self.response_body,
            created_at: Timestamp::from_unix_seconds(self.created_at),
        })
    }
}

/// `prefix` as a `LIKE` pattern that matches what starts with it: `\`, `%` and `_` are themselves.
fn starts_with(prefix: &str) -> String {
    let mut pattern = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '\\' | '%' | '_') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

impl DbSession<'_> {
    fn request_log_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = logs::table
            .filter(in_scope!(logs, scope))
            .filter(logs::id.eq(id))
            .select(logs::seq)
            .get_result(self.reading()?)
            .optional();
        cursor_seq(found)
    }
}

impl RequestLogRepository for DbSession<'_> {
    fn append(&mut self, entries: &[RequestLog]) -> Result<(), StoreError> {
        self.insert(logs::table, entries.iter().map(RequestLogRow::from_domain).collect())
    }

    fn find(&mut self, scope: &Scope, id: &RequestLogId) -> Result<Option<RequestLog>, StoreError> {
        logs::table
            .filter(in_scope!(logs, scope))
            .filter(logs::id.eq(id.as_str()))
            .select(RequestLogRow::as_select())
            .get_result::<RequestLogRow>(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(RequestLogRow::into_domain)
            .transpose()
    }

    fn list(
        &mut self,
        scope: &Scope,
        filter: &RequestLogFilter,
        page: &PageRequest,
    ) -> Result<Page<RequestLog>, StoreError> {
        let mut query = logs::table
            .filter(listed!(logs, scope))
            .select(RequestLogRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(range) = filter.status {
            query = query.filter(logs::status.between(i32::from(range.min), i32::from(range.max)));
        }
        if let Some(method) = &filter.method {
            query = query.filter(logs::method.eq(method.clone()));
        }
        if let Some(prefix) = &filter.path_prefix {
            query = query.filter(logs::path.like(starts_with(prefix)).escape('\\'));
        }
        if let Some(object_id) = &filter.object_id {
            query = query.filter(logs::object_id.eq(object_id.clone()));
        }
        if let Some(source) = filter.source {
            query = query.filter(logs::source.eq(source.as_str()));
        }
        let query = match page.cursor() {
            None => query.order(logs::seq.desc()),
            Some(Cursor::After(id)) => {
                query.filter(logs::seq.lt(self.request_log_seq(scope, id)?)).order(logs::seq.desc())
            }
            Some(Cursor::Before(id)) => {
                query.filter(logs::seq.gt(self.request_log_seq(scope, id)?)).order(logs::seq.asc())
            }
        };
        let rows = query.load::<RequestLogRow>(self.reading()?).map_err(store_error)?;
        let entries = rows.into_iter().map(RequestLogRow::into_domain).collect::<Result<Vec<_>, _>>()?;
        Ok(Page::from_overfetched(entries, page))
    }

    fn prune(&mut self, retention: Retention, now: Timestamp) -> Result<usize, StoreError> {
        let connection = self.write_now()?;
        let cutoff = retention.cutoff(now).unix_seconds();
        let mut pruned =
            diesel::delete(logs::table.filter(logs::created_at.lt(cutoff))).execute(connection).map_err(store_error)?;
        let max_bytes = i64::try_from(retention.max_bytes).unwrap_or(i64::MAX);
        let over_a_cap: Vec<(String, bool)> = logs::table
            .group_by((logs::account_id, logs::livemode))
            .having(
                diesel::dsl::count_star().gt(i64::from(retention.max_rows)).or(diesel::dsl::sql::<
                    diesel::sql_types::Bool,
                >(
                    "SUM(request_logs.size_bytes) > "
                )
                .bind::<diesel::sql_types::BigInt, _>(max_bytes)),
            )
            .select((logs::account_id, logs::livemode))
            .load(connection)
            .map_err(store_error)?;
        for (account_id, livemode) in over_a_cap {
            let account_id = AccountId::parse(&account_id).ok_or_else(|| corrupt("account id", &account_id))?;
            pruned += self.trim(&Scope::of(&account_id, livemode), retention)?;
        }
        Ok(pruned)
    }

    /// Its newest entries stay, as many as both caps keep: what goes is the shortest run of the
    /// oldest that brings the rest within them, found from the oldest in pages.
    fn trim(&mut self, scope: &Scope, retention: Retention) -> Result<usize, StoreError> {
        let connection = self.write_now()?;
        let (rows, bytes): (i64, i64) = logs::table
            .filter(listed!(logs, scope))
            .select((
                diesel::dsl::count_star(),
                diesel::dsl::sql::<diesel::sql_types::BigInt>(
                    "COALESCE(CAST(SUM(request_logs.size_bytes) AS BIGINT), 0)",
                ),
            ))
            .get_result(connection)
            .map_err(store_error)?;
        let (mut rows, mut bytes) = (u32::try_from(rows).unwrap_or(u32::MAX), u64::try_from(bytes).unwrap_or(0));
        let mut last_dropped = None;
        while !retention.keeps(rows, bytes) {
            let oldest: Vec<(i64, i64)> = logs::table
                .filter(listed!(logs, scope).and(logs::seq.gt(last_dropped.unwrap_or(0))))
                .order(logs::seq.asc())
                .limit(TRIM_PAGE)
                .select((logs::seq, logs::size_bytes))
                .load(connection)
                .map_err(store_error)?;
            if oldest.is_empty() {
                break;
            }
            for (seq, size) in oldest {
                if retention.keeps(rows, bytes) {
                    break;
                }
                rows = rows.saturating_sub(1);
                bytes = bytes.saturating_sub(u64::try_from(size).unwrap_or(0));
                last_dropped = Some(seq);
            }
        }
        let Some(last) = last_dropped else { return Ok(0) };
        let beyond = logs::table.filter(in_scope!(logs, scope)).filter(logs::seq.le(last));
        diesel::delete(beyond).execute(connection).map_err(store_error)
    }
}

/// Rows of a scope's oldest entries read at once while looking for the last one to drop.
const TRIM_PAGE: i64 = 1_000;
