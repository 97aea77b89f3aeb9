//! Webhook deliveries and their attempts in the database. Claims are conditional updates, portable
//! to both backends: a delivery is taken only if it is still pending and its lease has run out.
//! Moving a webhook's deliveries (pausing, resuming, canceling, postponing) is one statement
//! whatever their number: nothing is read into memory for it.

use super::error::{corrupt, store_error};
use super::json::parse_id;
use super::prepared::Prepare;
use super::schema::{webhook_deliveries as deliveries, webhook_delivery_attempts as attempts};
use super::session::DbSession;
use super::webhook::enabled_in;
use diesel::prelude::*;
use payments_application::ports::{DeliveryAttempt, DeliveryBacklog, DeliveryRepository, PassOver, StoreError};
use payments_application::Scope;
use payments_domain::account::Mode;
use payments_domain::event::Event;
use payments_domain::ids::{AccountId, DeliveryId, EventId, WebhookId};
use payments_domain::time::Timestamp;
use payments_domain::webhook::{DeliveryMove, DeliveryStatus, Webhook};
use payments_domain::webhook_delivery::{fan_out, Delivery, StoredDelivery};

/// The condition "the delivery is outstanding" (it counts in its event's `pending_webhooks`), with
/// literal values: the same terms as the partial index `webhook_deliveries_outstanding`, so both
/// backends can use that index whatever plan they cache.
pub(super) const OUTSTANDING: &str = "webhook_deliveries.status IN ('pending', 'paused')";

/// [`OUTSTANDING`] as a condition the connection's statement cache keeps: diesel's `sql` literal
/// would keep every statement holding it (an event's `pending_webhooks`) out of the cache.
#[derive(Debug, Clone, Copy, diesel::query_builder::QueryId, diesel::expression::ValidGrouping)]
pub(super) struct Outstanding;

impl diesel::Expression for Outstanding {
    type SqlType = diesel::sql_types::Bool;
}

// Like a literal, it may appear in any query naming `webhook_deliveries`, a correlated subquery too.
impl<QS> diesel::AppearsOnTable<QS> for Outstanding {}

impl<DB: diesel::backend::Backend> diesel::query_builder::QueryFragment<DB> for Outstanding {
    fn walk_ast<'b>(&'b self, mut out: diesel::query_builder::AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(OUTSTANDING);
        Ok(())
    }
}

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = deliveries, treat_none_as_default_value = false)]
pub(super) struct DeliveryRow {
    id: String,
    account_id: String,
    livemode: bool,
    webhook_id: String,
    event_id: String,
    status: String,
    attempts: i64,
    next_attempt_at_ms: i64,
    lease_until_ms: i64,
    created_at_ms: i64,
}

impl DeliveryRow {
    pub(super) fn from_domain(delivery: &Delivery) -> Self {
        Self {
            id: delivery.id().to_string(),
            account_id: delivery.account_id().to_string(),
            livemode: delivery.livemode(),
            webhook_id: delivery.webhook_id().to_string(),
            event_id: delivery.event_id().to_string(),
            status: delivery.status().as_str().to_owned(),
            attempts: delivery.attempts(),
            next_attempt_at_ms: delivery.next_attempt_at().unix_millis(),
            lease_until_ms: 0,
            created_at_ms: delivery.created_at().unix_millis(),
        }
    }

    fn into_domain(self) -> Result<Delivery, StoreError> {
        Ok(Delivery::restore(StoredDelivery {
            id: parse_id("delivery id", &self.id, DeliveryId::parse)?,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            webhook_id: parse_id("webhook id", &self.webhook_id, WebhookId::parse)?,
            event_id: parse_id("event id", &self.event_id, EventId::parse)?,
            status: DeliveryStatus::parse(&self.status).ok_or_else(|| corrupt("delivery status", &self.status))?,
            attempts: self.attempts,
            next_attempt_at: Timestamp::from_unix_millis(self.next_attempt_at_ms),
            created_at: Timestamp::from_unix_millis(self.created_at_ms),
        }))
    }
}

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = attempts, treat_none_as_default_value = false)]
struct AttemptRow {
    account_id: String,
    livemode: bool,
    delivery_id: String,
    webhook_id: String,
    event_id: String,
    attempted_at_ms: i64,
    status_code: Option<i32>,
    error: Option<String>,
    duration_ms: i64,
    response_excerpt: Option<String>,
}

impl AttemptRow {
    fn into_domain(self) -> Result<DeliveryAttempt, StoreError> {
        Ok(DeliveryAttempt {
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            delivery_id: parse_id("delivery id", &self.delivery_id, DeliveryId::parse)?,
            webhook_id: parse_id("webhook id", &self.webhook_id, WebhookId::parse)?,
            event_id: parse_id("event id", &self.event_id, EventId::parse)?,
            attempted_at: Timestamp::from_unix_millis(self.attempted_at_ms),
            status_code: self.status_code.map(|code| u16::try_from(code).unwrap_or(0)),
            error: self.error,
            duration_ms: self.duration_ms,
            response_excerpt: self.response_excerpt,
        })
    }
}

/// Makes a delivery of each appended event to every enabled webhook of its scope that listens to it
/// ([`fan_out`]), on a session whose other writes have not gone out yet (they go out together).
pub(super) fn make_deliveries(
    session: &mut DbSession<'_>,
    events: Vec<Event>,
    due: Timestamp,
) -> Result<(), StoreError> {
    let mut scopes: Vec<Scope> = Vec::new();
    for event in &events {
        let scope = Scope { account_id: event.account_id.clone(), mode: Mode::from_livemode(event.livemode) };
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    let mut webhooks = Vec::new();
    for scope in &scopes {
        webhooks.extend(enabled_in(session.unsent_reading(), scope)?);
    }
    let ids = session.ids();
    let made = fan_out(&events, &webhooks, due, || DeliveryId::from_random(&ids.id_part()));
    if made.is_empty() {
        return Ok(());
    }
    session.queued.deliveries = true;
    let rows: Vec<DeliveryRow> = made.iter().map(DeliveryRow::from_domain).collect();
    session.insert(deliveries::table, rows)
}

impl DeliveryRepository for DbSession<'_> {
    fn insert(&mut self, deliveries: &[Delivery]) -> Result<(), StoreError> {
        if deliveries.is_empty() {
            return Ok(());
        }
        self.queued.deliveries = true;
        let rows: Vec<DeliveryRow> = deliveries.iter().map(DeliveryRow::from_domain).collect();
        self.insert(deliveries::table, rows)
    }

    fn due(&mut self, now: Timestamp, limit: u32, pass_over: &PassOver) -> Result<Vec<Delivery>, StoreError> {
        let now_ms = now.unix_millis();
        let mut query = deliveries::table
            .filter(deliveries::status.eq(DeliveryStatus::Pending.as_str()))
            .filter(deliveries::next_attempt_at_ms.le(now_ms))
            .filter(deliveries::lease_until_ms.le(now_ms))
            .order(deliveries::next_attempt_at_ms.asc())
            .limit(i64::from(limit))
            .select(DeliveryRow::as_select())
            .into_boxed();
        if !pass_over.webhooks.is_empty() {
            let webhooks: Vec<&str> = pass_over.webhooks.iter().map(WebhookId::as_str).collect();
            query = query.filter(diesel::dsl::not(deliveries::webhook_id.eq_any(webhooks)));
        }
        if !pass_over.accounts.is_empty() {
            let accounts: Vec<&str> = pass_over.accounts.iter().map(AccountId::as_str).collect();
            query = query.filter(diesel::dsl::not(deliveries::account_id.eq_any(accounts)));
        }
        query.load(self.reading()?).map_err(store_error)?.into_iter().map(DeliveryRow::into_domain).collect()
    }

    fn claim(
        &mut self,
        ids: &[DeliveryId],
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Vec<DeliveryId>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let now_ms = now.unix_millis();
        let claimed: Vec<String> = diesel::update(
            deliveries::table
                .filter(deliveries::id.eq_any(ids.iter().map(DeliveryId::as_str)))
                .filter(deliveries::status.eq(DeliveryStatus::Pending.as_str()))
                .filter(deliveries::lease_until_ms.le(now_ms)),
        )
        .set((deliveries::lease_owner.eq(owner), deliveries::lease_until_ms.eq(lease_until.unix_millis())))
        .returning(deliveries::id)
        .get_results(self.write_now()?)
        .map_err(store_error)?;
        claimed.iter().map(|id| parse_id("delivery id", id, DeliveryId::parse)).collect()
    }

    fn release(&mut self, ids: &[DeliveryId], owner: &str) -> Result<u64, StoreError> {
        if ids.is_empty() {
            return Ok(0);
        }
        diesel::update(
            deliveries::table
                .filter(deliveries::id.eq_any(ids.iter().map(DeliveryId::as_str)))
                .filter(deliveries::lease_owner.eq(owner)),
        )
        .set((deliveries::lease_owner.eq(None::<String>), deliveries::lease_until_ms.eq(0)))
        .execute(self.write_now()?)
        .map(|released| u64::try_from(released).unwrap_or(u64::MAX))
        .map_err(store_error)
    }

    fn settle(&mut self, delivery: &Delivery, owner: &str) -> Result<bool, StoreError> {
        let updated = diesel::update(
            deliveries::table
                .filter(in_scope!(deliveries, delivery.account_id(), delivery.livemode()))
                .filter(deliveries::id.eq(delivery.id().as_str()))
                .filter(deliveries::lease_owner.eq(owner))
                .filter(deliveries::status.eq(DeliveryStatus::Pending.as_str())),
        )
        .set((
            deliveries::status.eq(delivery.status().as_str()),
            deliveries::attempts.eq(delivery.attempts()),
            deliveries::next_attempt_at_ms.eq(delivery.next_attempt_at().unix_millis()),
            deliveries::lease_owner.eq(None::<String>),
            deliveries::lease_until_ms.eq(0),
        ))
        .prepared()
        .execute(self.write_now()?)
        .map_err(store_error)?;
        Ok(updated == 1)
    }

    fn move_all(&mut self, webhook: &Webhook, change: &DeliveryMove) -> Result<u64, StoreError> {
        let selected = deliveries::table
            .filter(in_scope!(deliveries, webhook.account_id(), webhook.livemode()))
            .filter(deliveries::webhook_id.eq(webhook.id().as_str()))
            .filter(deliveries::status.eq(change.from.as_str()));
        let moved = match change.due_at {
            Some(due) => diesel::update(selected)
                .set((deliveries::status.eq(change.to.as_str()), deliveries::next_attempt_at_ms.eq(due.unix_millis())))
                .execute(self.write_now()?),
            None => diesel::update(selected).set(deliveries::status.eq(change.to.as_str())).execute(self.write_now()?),
        }
        .map_err(store_error)?;
        self.queued.deliveries |= change.to == DeliveryStatus::Pending && moved > 0;
        Ok(u64::try_from(moved).unwrap_or(u64::MAX))
    }

    fn postpone(&mut self, webhook: &Webhook, until: Timestamp, now: Timestamp) -> Result<u64, StoreError> {
        let until_ms = until.unix_millis();
        diesel::update(
            deliveries::table
                .filter(in_scope!(deliveries, webhook.account_id(), webhook.livemode()))
                .filter(deliveries::webhook_id.eq(webhook.id().as_str()))
                .filter(deliveries::status.eq(DeliveryStatus::Pending.as_str()))
                .filter(deliveries::next_attempt_at_ms.lt(until_ms))
                .filter(deliveries::lease_until_ms.le(now.unix_millis())),
        )
        .set(deliveries::next_attempt_at_ms.eq(until_ms))
        .execute(self.write_now()?)
        .map(|moved| u64::try_from(moved).unwrap_or(u64::MAX))
        .map_err(store_error)
    }

    fn bring_forward(&mut self, webhook: &Webhook, until: Timestamp, now: Timestamp) -> Result<u64, StoreError> {
        let now_ms = now.unix_millis();
        diesel::update(
            deliveries::table
                .filter(in_scope!(deliveries, webhook.account_id(), webhook.livemode()))
                .filter(deliveries::webhook_id.eq(webhook.id().as_str()))
                .filter(deliveries::status.eq(DeliveryStatus::Pending.as_str()))
                .filter(deliveries::next_attempt_at_ms.gt(now_ms))
                .filter(deliveries::next_attempt_at_ms.lt(until.unix_millis()))
                .filter(deliveries::lease_until_ms.le(now_ms)),
        )
        .set(deliveries::next_attempt_at_ms.eq(now_ms))
        .execute(self.write_now()?)
        .map(|moved| u64::try_from(moved).unwrap_or(u64::MAX))
        .map_err(store_error)
    }

    fn recover(&mut self, webhook: &Webhook, since: Timestamp, recovery: &DeliveryMove) -> Result<u64, StoreError> {
        let Some(due_ms) = recovery.due_at.map(Timestamp::unix_millis) else {
            return Ok(0);
        };
        diesel::update(
            deliveries::table
                .filter(in_scope!(deliveries, webhook.account_id(), webhook.livemode()))
                .filter(deliveries::webhook_id.eq(webhook.id().as_str()))
                .filter(deliveries::status.eq(recovery.from.as_str()))
                .filter(deliveries::next_attempt_at_ms.ge(since.unix_millis())),
        )
        .set((
            deliveries::status.eq(recovery.to.as_str()),
            deliveries::next_attempt_at_ms.eq(due_ms),
            deliveries::created_at_ms.eq(due_ms),
        ))
        .execute(self.write_now()?)
        .map(|moved| u64::try_from(moved).unwrap_or(u64::MAX))
        .map_err(store_error)
    }

    fn record_attempts(&mut self, attempts: &[DeliveryAttempt]) -> Result<(), StoreError> {
        if attempts.is_empty() {
            return Ok(());
        }
        let rows: Vec<AttemptRow> = attempts
            .iter()
            .map(|attempt| AttemptRow {
                account_id: attempt.account_id.to_string(),
                livemode: attempt.livemode,
                delivery_id: attempt.delivery_id.to_string(),
                webhook_id: attempt.webhook_id.to_string(),
                event_id: attempt.event_id.to_string(),
                attempted_at_ms: attempt.attempted_at.unix_millis(),
                status_code: attempt.status_code.map(i32::from),
                error: attempt.error.clone(),
                duration_ms: attempt.duration_ms,
                response_excerpt: attempt.response_excerpt.clone(),
            })
            .collect();
        self.insert(attempts::table, rows)
    }

    fn attempts(&mut self, webhook: &Webhook, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let of_webhook = attempts::table
            .filter(in_scope!(attempts, webhook.account_id(), webhook.livemode()))
            .filter(attempts::webhook_id.eq(webhook.id().as_str()))
            .into_boxed();
        self.latest_attempts(of_webhook, limit)
    }

    fn failed_attempts(&mut self, scope: &Scope, limit: u32) -> Result<Vec<DeliveryAttempt>, StoreError> {
        // Not delivered, as `payments_domain::webhook_delivery::is_delivered` says: an error, or no
        // 2xx answer (the index `webhook_delivery_attempts_failed` holds these rows only).
        let failed = attempts::error
            .is_not_null()
            .or(attempts::status_code.is_null())
            .or(attempts::status_code.lt(200))
            .or(attempts::status_code.gt(299));
        let of_scope = attempts::table.filter(in_scope!(attempts, scope)).filter(failed).into_boxed();
        self.latest_attempts(of_scope, limit)
    }

    fn attempts_of_event(&mut self, scope: &Scope, event_id: &EventId) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let rows: Vec<AttemptRow> = attempts::table
            .filter(in_scope!(attempts, scope))
            .filter(attempts::event_id.eq(event_id.as_str()))
            .order(attempts::seq.asc())
            .select(AttemptRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?;
        rows.into_iter().map(AttemptRow::into_domain).collect()
    }

    fn backlog(&mut self) -> Result<DeliveryBacklog, StoreError> {
        let (pending, oldest_created_at_ms): (i64, Option<i64>) = deliveries::table
            .filter(deliveries::status.eq(DeliveryStatus::Pending.as_str()))
            .select((diesel::dsl::count_star(), diesel::dsl::min(deliveries::created_at_ms)))
            .get_result(self.reading()?)
            .map_err(store_error)?;
        Ok(DeliveryBacklog { pending, oldest_created_at: oldest_created_at_ms.map(Timestamp::from_unix_millis) })
    }
}

impl DbSession<'_> {
    /// The latest `limit` attempts `query` selects, newest first.
    fn latest_attempts<'q>(
        &mut self,
        query: attempts::BoxedQuery<'q, super::connection::MultiBackend>,
        limit: u32,
    ) -> Result<Vec<DeliveryAttempt>, StoreError> {
        let rows: Vec<AttemptRow> = query
            .order(attempts::seq.desc())
            .limit(i64::from(limit))
            .select(AttemptRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?;
        rows.into_iter().map(AttemptRow::into_domain).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{deliveries, Outstanding, OUTSTANDING};
    use diesel::prelude::*;
    use diesel::query_builder::QueryFragment;
    use payments_domain::webhook::DeliveryStatus;

    #[test]
    fn a_count_of_outstanding_deliveries_stays_in_the_statement_cache() {
        let count = deliveries::table.filter(Outstanding).count();
        assert!(QueryFragment::<diesel::pg::Pg>::is_safe_to_cache_prepared(&count, &diesel::pg::Pg).unwrap());
        let sql = diesel::debug_query::<diesel::pg::Pg, _>(&count).to_string();
        assert!(sql.contains(OUTSTANDING), "the literal the partial index names: {sql}");
    }

    #[test]
    fn the_outstanding_condition_names_exactly_the_outstanding_statuses() {
        let named: Vec<DeliveryStatus> = DeliveryStatus::ALL
            .into_iter()
            .filter(|status| OUTSTANDING.contains(&format!("'{}'", status.as_str())))
            .collect();
        let outstanding: Vec<DeliveryStatus> = DeliveryStatus::ALL.into_iter().filter(|s| s.is_outstanding()).collect();
        assert_eq!(named, outstanding);
    }
}
