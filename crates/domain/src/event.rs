//! Events: every state change a merchant can be told about, written to the outbox with the change.

use crate::ids::{
    AccountId, BillingStatementId, BillingStatementLineItemId, CheckoutSessionId, EventId, PaymentId, PaymentIntentId,
    PayoutId, RefundId, SetupIntentId,
};
use crate::time::Timestamp;
use crate::validation::Invalid;
use std::fmt;

/// Declares the event types, each with its name and the resource it is about (its subject): one line
/// registers an event type everywhere (parsing, webhooks' lists, the OpenAPI document's webhooks).
macro_rules! event_types {
    ($($variant:ident => $name:literal about $subject:ident),* $(,)?) => {
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

            /// The resource the event is about: its `data` is that resource's JSON.
            #[must_use]
            pub fn subject(self) -> EventSubject {
                match self {
                    $(Self::$variant => EventSubject::$subject,)*
                }
            }
        }
    };
}

/// A resource that events are about. An event type's name is its subject's resource, a dot and what
/// happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventSubject {
    PaymentIntent,
    Payment,
    Refund,
    SetupIntent,
    CheckoutSession,
    BillingStatement,
    BillingStatementLineItem,
    Payout,
}

impl EventSubject {
    pub const ALL: [Self; 8] = [
        Self::PaymentIntent,
        Self::Payment,
        Self::Refund,
        Self::SetupIntent,
        Self::CheckoutSession,
        Self::BillingStatement,
        Self::BillingStatementLineItem,
        Self::Payout,
    ];

    /// The resource's name, as its JSON's `resource` gives it.
    #[must_use]
    pub fn resource(self) -> &'static str {
        match self {
            Self::PaymentIntent => "payment_intent",
            Self::Payment => "payment",
            Self::Refund => "refund",
            Self::SetupIntent => "setup_intent",
            Self::CheckoutSession => "checkout_session",
            Self::BillingStatement => "billing_statement",
            Self::BillingStatementLineItem => "billing_statement_line_item",
            Self::Payout => "payout",
        }
    }

    /// The prefix of the resource's ids.
    #[must_use]
    pub fn id_prefix(self) -> &'static str {
        match self {
            Self::PaymentIntent => PaymentIntentId::PREFIX,
            Self::Payment => PaymentId::PREFIX,
            Self::Refund => RefundId::PREFIX,
            Self::SetupIntent => SetupIntentId::PREFIX,
            Self::CheckoutSession => CheckoutSessionId::PREFIX,
            Self::BillingStatement => BillingStatementId::PREFIX,
            Self::BillingStatementLineItem => BillingStatementLineItemId::PREFIX,
            Self::Payout => PayoutId::PREFIX,
        }
    }
}

event_types! {
    PaymentIntentSucceeded => "payment_intent.succeeded" about PaymentIntent,
    PaymentIntentAwaitingCapture => "payment_intent.awaiting_capture" about PaymentIntent,
    PaymentIntentCanceled => "payment_intent.canceled" about PaymentIntent,
    PaymentPaid => "payment.paid" about Payment,
    PaymentFailed => "payment.failed" about Payment,
    PaymentRefunded => "payment.refunded" about Payment,
    RefundCreated => "refund.created" about Refund,
    RefundUpdated => "refund.updated" about Refund,
    SetupIntentSucceeded => "setup_intent.succeeded" about SetupIntent,
    CheckoutSessionCompleted => "checkout_session.completed" about CheckoutSession,
    CheckoutSessionExpired => "checkout_session.expired" about CheckoutSession,
    BillingStatementCreated => "billing_statement.created" about BillingStatement,
    BillingStatementUpdated => "billing_statement.updated" about BillingStatement,
    BillingStatementDeleted => "billing_statement.deleted" about BillingStatement,
    BillingStatementFinalized => "billing_statement.finalized" about BillingStatement,
    BillingStatementSent => "billing_statement.sent" about BillingStatement,
    BillingStatementVoided => "billing_statement.voided" about BillingStatement,
    BillingStatementMarkedUncollectible => "billing_statement.marked_uncollectible" about BillingStatement,
    BillingStatementPaid => "billing_statement.paid" about BillingStatement,
    BillingStatementWillBeDue => "billing_statement.will_be_due" about BillingStatement,
    BillingStatementOverdue => "billing_statement.overdue" about BillingStatement,
    BillingStatementLineItemCreated => "billing_statement_line_item.created" about BillingStatementLineItem,
    BillingStatementLineItemUpdated => "billing_statement_line_item.updated" about BillingStatementLineItem,
    BillingStatementLineItemDeleted => "billing_statement_line_item.deleted" about BillingStatementLineItem,
    PayoutCreated => "payout.created" about Payout,
    PayoutUpdated => "payout.updated" about Payout,
    PayoutDeposited => "payout.deposited" about Payout,
    PayoutFailed => "payout.failed" about Payout,
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
    /// The id of the object the event is about (its `data.id`).
    pub object_id: String,
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
        assert_eq!(EventType::ALL.len(), 28);
        for event_type in EventType::ALL {
            assert_eq!(EventType::parse(event_type.as_str()), Ok(*event_type));
        }
        assert!(EventType::parse("payment.exploded").unwrap_err().detail.contains("payment.exploded"));
    }

    #[test]
    fn every_type_is_named_after_its_subject_and_every_subject_has_events() {
        for event_type in EventType::ALL {
            let (resource, happened) = event_type.as_str().split_once('.').unwrap();
            assert_eq!(resource, event_type.subject().resource(), "{event_type}");
            assert!(!happened.is_empty() && !happened.contains('.'), "{event_type}");
        }
        for subject in EventSubject::ALL {
            assert!(EventType::ALL.iter().any(|t| t.subject() == subject), "{subject:?} has no event type");
            assert!(subject.id_prefix().ends_with('_'), "{subject:?}");
        }
    }

    #[test]
    fn a_list_keeps_its_order_without_duplicates() {
        let names = ["payment.paid", "refund.created", "payment.paid"].map(String::from);
        assert_eq!(EventType::parse_list(&names), Ok(vec![EventType::PaymentPaid, EventType::RefundCreated]));
        assert_eq!(EventType::parse_list(&[]).unwrap_err().detail, "List at least one event type.");
    }
}
