//! Events live processors send to an account's connector. Each is checked with the connector
//! (its signature, and a mode that is the connector's), kept once by the processor's event id, and
//! answered at once. The due work acts on it later: the payment or refund it names is fetched
//! again from the processor, whose answer is the truth (never the event's body), and recorded only
//! while the operation it settles is still unanswered, through the service that owns it.

use super::due::{Due, DueKind};
use super::{PaymentIntentService, RefundService};
use crate::error::ApplicationError;
use crate::ports::connector::{wait, ConnectorDirectory, ConnectorError, InboundObject};
use crate::ports::{in_transaction, reading, Clock, UnitOfWork};
use crate::scope::Scope;
use payments_domain::ids::ConnectorAccountId;
use payments_domain::processor_event::{EventObject, ProcessorEvent};
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use std::sync::Arc;

/// Processor events use cases.
pub struct ProcessorEventService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    connectors: Arc<dyn ConnectorDirectory>,
    payment_intents: Arc<PaymentIntentService>,
    refunds: Arc<RefundService>,
}

impl ProcessorEventService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        connectors: Arc<dyn ConnectorDirectory>,
        (payment_intents, refunds): (Arc<PaymentIntentService>, Arc<RefundService>),
    ) -> Self {
        Self { unit_of_work, clock, connectors, payment_intents, refunds }
    }

    /// Takes an event the processor sent to the connector `connector_id`: checked, and kept once.
    ///
    /// # Errors
    /// `resource_not_found` for no such connector; `parameter_invalid` for an event the processor
    /// did not sign, that is no event, or of the other mode; storage failures.
    pub fn receive(
        &self,
        connector_id: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<(), ApplicationError> {
        let unknown = || ApplicationError::NotFound { resource: "connector", id: connector_id.to_owned() };
        let id = ConnectorAccountId::parse(connector_id).ok_or_else(unknown)?;
        let stored =
            reading(self.unit_of_work.as_ref(), |repositories| Ok(repositories.connector_accounts().find(&id)?))?
                .ok_or_else(unknown)?;
        let scope = Scope::of(&stored.account_id, true);
        let connector = self.connectors.connector(&scope)?.ok_or_else(unknown)?;
        let now = self.clock.now();
        let refused = |detail: String| ApplicationError::invalid(FieldError::invalid("event", detail));
        connector.verify_webhook(headers, body, now).map_err(|error| refused(error.0))?;
        let event = connector.parse_webhook(body).map_err(|error| refused(error.0))?;
        if event.livemode != connector.livemode() {
            let mode = |live: bool| if live { "live" } else { "test" };
            return Err(refused(format!(
                "A {} event was sent to a connector with {} keys.",
                mode(event.livemode),
                mode(connector.livemode())
            )));
        }
        let object = match event.object {
            InboundObject::Payment(reference) => EventObject::Payment(reference),
            InboundObject::Refund(reference) => EventObject::Refund(reference),
            InboundObject::Ignored => return Ok(()),
        };
        let kept = ProcessorEvent::received((id.as_str(), &event.event_id), (stored.account_id, true), object, now);
        in_transaction(self.unit_of_work.as_ref(), |repositories| Ok(repositories.processor_events().insert(&kept)?))
    }

    /// The events of `within` (or of every scope) not acted on yet.
    ///
    /// # Errors
    /// Storage failures.
    pub fn due(&self, within: Option<&Scope>, limit: u32) -> Result<Vec<Due>, ApplicationError> {
        let events = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.processor_events().unprocessed(within, limit)?)
        })?;
        Ok(events
            .into_iter()
            .map(|event| Due {
                kind: DueKind::ProcessorEvent,
                scope: Scope::of(&event.account_id, event.livemode),
                id: event.id,
                at: event.received_at,
            })
            .collect())
    }

    /// Acts on the event `due` names: its object fetched again from the processor, and recorded
    /// where it settles an operation still unanswered. Returns whether anything moved.
    ///
    /// # Errors
    /// Storage failures; a processor that cannot be asked (the event is acted on at the next run).
    pub fn process(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let scope = &due.scope;
        let event = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.processor_events().find(scope, &due.id)?)
        })?;
        let Some(event) = event.filter(|event| event.processed_at.is_none()) else { return Ok(false) };
        let fetched = match self.connectors.connector(scope)? {
            None => Ok(Ok(false)),
            Some(connector) => match &event.object {
                EventObject::Payment(reference) => wait(connector.retrieve(reference))
                    .map(|payment| self.payment_intents.settle_from_processor(scope, payment)),
                EventObject::Refund(reference) => wait(connector.retrieve_refund(reference))
                    .map(|refund| self.refunds.settle_from_processor(scope, refund)),
            },
        };
        let moved = match fetched {
            Ok(moved) => moved?,
            // The processor refused the read (no such object), or has not answered for an hour.
            Err(error) if matches!(error, ConnectorError::Refused { .. }) || event.is_let_go_at(at) => {
                tracing::warn!(event = %event.processor_event_id(), %error, "a processor event's object could not be fetched; let go");
                false
            }
            Err(error) => return Err(ApplicationError::ProcessorUnavailable(error.to_string())),
        };
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.processor_events().mark_processed(scope, &event.id, at)?)
        })?;
        Ok(moved)
    }
}
