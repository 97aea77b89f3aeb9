//! Events: every state change a merchant can be told about, written to the outbox with the change.

use crate::ids::{AccountId, EventId};
use crate::time::Timestamp;
use crate::validation::Invalid;
use std::fmt;

macro_rules! event_types {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// Every event type the service emits or a webhook may subscribe to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EventType {
            $($variant,)*
        }

        impl EventType {
            pub const ALL: &'static [Self] = &[$(Self::$variant,)*];

            #[must_use]
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }
        }
    };
}

event_types! {
    PaymentIntentSucceeded => "payment_intent.succeeded",
    PaymentIntentAwaitingCapture => "payment_intent.awaiting_capture",
    PaymentIntentCanceled => "payment_intent.canceled",
    PaymentPaid => "payment.paid",
    PaymentFailed => "payment.failed",
    PaymentRefunded => "payment.refunded",
    RefundCreated => "refund.created",
    RefundUpdated => "refund.updated",
    SetupIntentSucceeded => "setup_intent.succeeded",
    CheckoutSessionCompleted => "checkout_session.completed",
    CheckoutSessionExpired => "checkout_session.expired",
    BillingStatementCreated => "billing_statement.created",
    BillingStatementUpdated => "billing_statement.updated",
    BillingStatementDeleted => "billing_statement.deleted",
    BillingStatementFinalized => "billing_statement.finalized",
    BillingStatementSent => "billing_statement.sent",
    BillingStatementVoided => "billing_statement.voided",
    BillingStatementMarkedUncollectible => "billing_statement.marked_uncollectible",
    BillingStatementPaid => "billing_statement.paid",
    BillingStatementWillBeDue => "billing_statement.will_be_due",
    BillingStatementOverdue => "billing_statement.overdue",
    BillingStatementLineItemCreated => "billing_statement_line_item.created",
    BillingStatementLineItemUpdated => "billing_statement_line_item.updated",
    BillingStatementLineItemDeleted => "billing_statement_line_item.deleted",
}

impl EventType {
    /// # Errors
    /// `parameter_invalid` for a name that is not an event type.
    pub fn parse(name: &str) -> Result<Self, Invalid> {
        Self::ALL
            .iter()
            .copied()
            .find(|event_type| event_type.as_str() == name)
            .ok_or_else(|| Invalid::value(format!("{name} is not an event type.")))
    }

    /// A webhook's list of types: at least one, every one known; duplicates go, order stays.
    ///
    /// # Errors
    /// `parameter_invalid` naming the first unknown type, or for an empty list.
    pub fn parse_list(names: &[String]) -> Result<Vec<Self>, Invalid> {
        if names.is_empty() {
            return Err(Invalid::value("List at least one event type."));
        }
        let mut types = Vec::with_capacity(names.len());
        for name in names {
            let event_type = Self::parse(name)?;
            if !types.contains(&event_type) {
                types.push(event_type);
            }
        }
        Ok(types)
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An event: what happened, and its envelope exactly as `GET /events/:id` returns it and webhooks
/// receive it, rendered once when the event is appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub id: EventId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub event_type: EventType,
    /// Deliveries of this event not yet delivered, failed or canceled.
    pub pending_webhooks: i64,
    pub created_at: Timestamp,
    /// The envelope as JSON text; its `pending_webhooks` is the number of webhooks the event was
    /// sent to when it happened.
    pub body: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_parses_back_from_its_name() {
        assert_eq!(EventType::ALL.len(), 24);
        for event_type in EventType::ALL {
            assert_eq!(EventType::parse(event_type.as_str()), Ok(*event_type));
        }
        assert!(EventType::parse("payment.exploded").unwrap_err().detail.contains("payment.exploded"));
    }

    #[test]
    fn a_list_keeps_its_order_without_duplicates() {
        let names = ["payment.paid", "refund.created", "payment.paid"].map(String::from);
        assert_eq!(EventType::parse_list(&names), Ok(vec![EventType::PaymentPaid, EventType::RefundCreated]));
        assert_eq!(EventType::parse_list(&[]).unwrap_err().detail, "List at least one event type.");
    }
}
