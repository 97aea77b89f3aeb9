//! The events live processors sent, in the database; times in milliseconds. An event sent again
//! is kept once (its id is the connector's and the processor's event id).

use super::error::{corrupt, store_error};
use super::json::parse_id;
use super::schema::processor_events;
use super::session::DbSession;
use super::write_batch::Expect;
use diesel::prelude::*;
use payments_application::ports::{ProcessorEventRepository, StoreError};
use payments_application::Scope;
use payments_domain::ids::AccountId;
use payments_domain::processor_event::{EventObject, ProcessorEvent};
use payments_domain::time::Timestamp;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = processor_events)]
struct EventRow {
    id: String,
    account_id: String,
    livemode: bool,
    object_kind: String,
    object_reference: String,
    received_at: i64,
    processed_at: Option<i64>,
}

impl EventRow {
    fn from_domain(event: &ProcessorEvent) -> Self {
        Self {
            id: event.id.clone(),
            account_id: event.account_id.to_string(),
            livemode: event.livemode,
            object_kind: event.object.kind().to_owned(),
            object_reference: event.object.reference().to_owned(),
            received_at: event.received_at.unix_millis(),
            processed_at: event.processed_at.map(Timestamp::unix_millis),
        }
    }

    fn into_domain(self) -> Result<ProcessorEvent, StoreError> {
        let object = EventObject::parse(&self.object_kind, self.object_reference)
            .ok_or_else(|| corrupt("processor event object", &self.object_kind))?;
        Ok(ProcessorEvent {
            id: self.id,
            account_id: parse_id("account id", &self.account_id, AccountId::parse)?,
            livemode: self.livemode,
            object,
            received_at: Timestamp::from_unix_millis(self.received_at),
            processed_at: self.processed_at.map(Timestamp::from_unix_millis),
        })
    }
}

impl ProcessorEventRepository for DbSession<'_> {
    fn insert(&mut self, event: &ProcessorEvent) -> Result<(), StoreError> {
        self.write(
            diesel::insert_into(processor_events::table).values(EventRow::from_domain(event)).on_conflict_do_nothing(),
            Expect::AnyRows,
        )
    }

    fn unprocessed(&mut self, within: Option<&Scope>, limit: u32) -> Result<Vec<ProcessorEvent>, StoreError> {
        let mut query = processor_events::table.into_boxed();
        if let Some(scope) = within {
            query = query.filter(in_scope!(processor_events, scope));
        }
        query
            .filter(processor_events::processed_at.is_null())
            .order(processor_events::received_at.asc())
            .limit(i64::from(limit))
            .select(EventRow::as_select())
            .load(self.reading()?)
            .map_err(store_error)?
            .into_iter()
            .map(EventRow::into_domain)
            .collect()
    }

    fn find(&mut self, scope: &Scope, id: &str) -> Result<Option<ProcessorEvent>, StoreError> {
        processor_events::table
            .filter(in_scope!(processor_events, scope))
            .filter(processor_events::id.eq(id))
            .select(EventRow::as_select())
            .get_result(self.reading()?)
            .optional()
            .map_err(store_error)?
            .map(EventRow::into_domain)
            .transpose()
    }

    fn mark_processed(&mut self, scope: &Scope, id: &str, at: Timestamp) -> Result<(), StoreError> {
        let update = diesel::update(
            processor_events::table
                .filter(in_scope!(processor_events, scope))
                .filter(processor_events::id.eq(id.to_owned()))
                .filter(processor_events::processed_at.is_null()),
        )
        .set(processor_events::processed_at.eq(Some(at.unix_millis())));
        self.write(update, Expect::AnyRows)
    }
}
