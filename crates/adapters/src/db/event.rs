//! The event outbox in the database.

use super::connection::AnyConnection;
use super::cursor_seq;
use super::error::store_error;
use super::json::{invalid, parse_id};
use super::schema::{events, webhook_deliveries};
use super::session::DbSession;
use super::webhook_delivery::Outstanding;
use diesel::prelude::*;
use payments_application::pagination::{Cursor, Page, PageRequest};
use payments_application::ports::{EventFilter, EventRepository, StoreError};
use payments_application::Scope;
use payments_domain::event::{Event, EventType};
use payments_domain::ids::{AccountId, EventId};
use payments_domain::time::Timestamp;
use std::collections::HashMap;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = events, treat_none_as_default_value = false)]
struct EventRow {
    id: String,
    account_id: String,
    livemode: bool,
    event_type: String,
    object_id: String,
    created_at: i64,
    body: String,
}

impl EventRow {
    fn from_domain(event: &Event) -> Self {
        Self {
            id: event.id.to_string(),
            account_id: event.account_id.to_string(),
            livemode: event.livemode,
            event_type: event.event_type.as_str().to_owned(),
            object_id: event.object_id.clone(),
            created_at: event.created_at.unix_seconds(),
            body: event.body.clone(),
        }
    }

    fn into_domain(self, pending_webhooks: i64) -> Result<Event, StoreError> {
        Ok(Event {
            id: parse_id("event id", &self.id, EventId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            event_type: EventType::parse(&self.event_type).map_err(invalid("event type"))?,
            object_id: self.object_id,
            pending_webhooks,
            created_at: Timestamp::from_unix_seconds(self.created_at),
            body: self.body,
        })
    }
}

impl DbSession<'_> {
    /// The events with the number of each one's deliveries outstanding now, counted by a second
    /// query rather than a subquery of the first: on Citus a correlated subquery in the select list
    /// runs on every shard, while this query names the events' account and runs on its worker alone
    /// (the webhook worker's events, from many accounts, are read across shards anyway).
    fn counted(&mut self, rows: Vec<EventRow>) -> Result<Vec<Event>, StoreError> {
        let Some(first) = rows.first() else {
            return Ok(Vec::new());
        };
        let mut query = webhook_deliveries::table
            .filter(webhook_deliveries::event_id.eq_any(rows.iter().map(|row| row.id.clone()).collect::<Vec<_>>()))
            .filter(Outstanding)
            .group_by(webhook_deliveries::event_id)
            .select((webhook_deliveries::event_id, diesel::dsl::count_star()))
            .into_boxed();
        let account = &first.account_id;
        query = if rows.iter().all(|row| &row.account_id == account) {
            query.filter(webhook_deliveries::account_id.eq(account.clone()))
        } else {
            query.filter(
                webhook_deliveries::account_id
                    .eq_any(rows.iter().map(|row| row.account_id.clone()).collect::<Vec<_>>()),
            )
        };
        let counts: HashMap<String, i64> = query.load(self.reading()?).map_err(store_error)?.into_iter().collect();
        rows.into_iter()
            .map(|row| {
                let pending_webhooks = counts.get(&row.id).copied().unwrap_or(0);
                row.into_domain(pending_webhooks)
            })
            .collect()
    }

    fn event_seq(&mut self, scope: &Scope, id: &str) -> Result<i64, StoreError> {
        let found = events::table
            .filter(in_scope!(events, scope))
            .filter(events::id.eq(id))
            .select(events::seq)
            .get_result(self.reading()?)
            .optional();
        cursor_seq(found)
    }
}

impl EventRepository for DbSession<'_> {
    fn append(&mut self, events: &[Event], deliveries_due: Timestamp) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let rows: Vec<EventRow> = events.iter().map(EventRow::from_domain).collect();
        self.insert(events::table, rows)?;
        self.deliver(events, deliveries_due, super::webhook_delivery::make_deliveries)
    }

    fn find(&mut self, scope: &Scope, id: &EventId) -> Result<Option<Event>, StoreError> {
        let row = events::table
            .filter(in_scope!(events, scope))
            .filter(events::id.eq(id.as_str()))
            .select(EventRow::as_select())
            .get_result::<EventRow>(self.reading()?)
            .optional()
            .map_err(store_error)?;
        Ok(self.counted(row.into_iter().collect())?.pop())
    }

    fn find_many(&mut self, ids: &[EventId]) -> Result<Vec<Event>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = events::table
            .filter(events::id.eq_any(ids.iter().map(EventId::as_str)))
            .select(EventRow::as_select())
            .load::<EventRow>(self.reading()?)
            .map_err(store_error)?;
        self.counted(rows)
    }

    fn list(&mut self, scope: &Scope, filter: &EventFilter, page: &PageRequest) -> Result<Page<Event>, StoreError> {
        let mut query = events::table
            .filter(listed!(events, scope))
            .select(EventRow::as_select())
            .limit(i64::from(page.limit()) + 1)
            .into_boxed();
        if let Some(event_type) = filter.event_type {
            query = query.filter(events::event_type.eq(event_type.as_str()));
        }
        if !filter.object_ids.is_empty() {
            query = query.filter(events::object_id.eq_any(filter.object_ids.clone()));
        }
        let query = match page.cursor() {
            None => query.order(events::seq.desc()),
            Some(Cursor::After(id)) => {
                query.filter(events::seq.lt(self.event_seq(scope, id)?)).order(events::seq.desc())
            }
            Some(Cursor::Before(id)) => {
                query.filter(events::seq.gt(self.event_seq(scope, id)?)).order(events::seq.asc())
            }
        };
        let rows = query.load::<EventRow>(self.reading()?).map_err(store_error)?;
        Ok(Page::from_overfetched(self.counted(rows)?, page))
    }

    fn stream(&mut self, scope: &Scope, after: Option<&EventId>, limit: u32) -> Result<Vec<Event>, StoreError> {
        let mut query = self.streamed(scope)?.select(EventRow::as_select()).limit(i64::from(limit));
        if let Some(after) = after {
            let found = events::table
                .filter(in_scope!(events, scope))
                .filter(events::id.eq(after.as_str()))
                .select((events::txid, events::seq))
                .get_result::<(i64, i64)>(self.reading()?)
                .optional()
                .map_err(store_error)?;
            let (txid, seq) = found.ok_or(StoreError::UnknownCursor)?;
            query = query.filter(events::txid.gt(txid).or(events::txid.eq(txid).and(events::seq.gt(seq))));
        }
        let rows = query.order((events::txid.asc(), events::seq.asc())).load::<EventRow>(self.reading()?);
        rows.map_err(store_error)?.into_iter().map(|row| row.into_domain(0)).collect()
    }

    fn stream_end(&mut self, scope: &Scope) -> Result<Option<EventId>, StoreError> {
        let last = self.streamed(scope)?.select(events::id).order((events::txid.desc(), events::seq.desc())).limit(1);
        let id = last.get_result::<String>(self.reading()?).optional().map_err(store_error)?;
        id.map(|id| parse_id("event id", &id, EventId::parse)).transpose()
    }
}

impl DbSession<'_> {
    /// The scope's events on its stream (`txid > 0`, true of every row, stated for the index partial
    /// on it): on PostgreSQL, those whose transaction (`txid`) is older than every transaction still
    /// running, so that one committing later can append none before them; SQLite commits one writer
    /// at a time, so every event it shows is final in `seq` order.
    ///
    /// The horizon is read on its own, before the events: on Citus a query of the events runs on
    /// the worker that holds the account, whose transaction ids are not the coordinator's, while
    /// `txid` is the coordinator's (which evaluates an insert's defaults). A horizon read before the
    /// events is older than theirs, so it never lets through an event still being committed.
    fn streamed(
        &mut self,
        scope: &Scope,
    ) -> Result<events::BoxedQuery<'static, super::connection::MultiBackend>, StoreError> {
        let query = events::table.filter(in_scope!(events, scope).and(super::Positive(events::txid))).into_boxed();
        Ok(match self.reading()? {
            AnyConnection::Postgresql(connection) => {
                let horizon = diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                    "pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
                ))
                .get_result::<i64>(connection)
                .map_err(store_error)?;
                query.filter(events::txid.lt(horizon))
            }
            AnyConnection::Sqlite(_) => query,
        })
    }
}
