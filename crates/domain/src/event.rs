//! Events: every state change a merchant can be told about, written to the outbox with the change.

use crate::ids::{AccountId, EventId};
use crate::time::Timestamp;

/// Every event type the service emits or a webhook may subscribe to.
pub const EVENT_TYPES: [&str; 24] = [
    "payment_intent.succeeded",
    "payment_intent.awaiting_capture",
    "payment_intent.canceled",
    "payment.paid",
    "payment.failed",
    "payment.refunded",
    "refund.created",
    "refund.updated",
    "setup_intent.succeeded",
    "checkout_session.completed",
    "checkout_session.expired",
    "billing_statement.created",
    "billing_statement.updated",
    "billing_statement.deleted",
    "billing_statement.finalized",
    "billing_statement.sent",
    "billing_statement.voided",
    "billing_statement.marked_uncollectible",
    "billing_statement.paid",
    "billing_statement.will_be_due",
    "billing_statement.overdue",
    "billing_statement_line_item.created",
    "billing_statement_line_item.updated",
    "billing_statement_line_item.deleted",
];

/// The event types this release emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    PaymentIntentSucceeded,
    PaymentIntentAwaitingCapture,
    PaymentIntentCanceled,
    PaymentPaid,
    PaymentFailed,
    PaymentRefunded,
    RefundCreated,
    RefundUpdated,
}

impl EventType {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PaymentIntentSucceeded => "payment_intent.succeeded",
            Self::PaymentIntentAwaitingCapture => "payment_intent.awaiting_capture",
            Self::PaymentIntentCanceled => "payment_intent.canceled",
            Self::PaymentPaid => "payment.paid",
            Self::PaymentFailed => "payment.failed",
            Self::PaymentRefunded => "payment.refunded",
            Self::RefundCreated => "refund.created",
            Self::RefundUpdated => "refund.updated",
        }
    }
}

/// An event: what happened, and the resource as the API showed it right after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub id: EventId,
    pub account_id: AccountId,
    pub livemode: bool,
    pub event_type: String,
    /// The resource as the API returns it, JSON text.
    pub data: String,
    /// The changed fields' values before the change, JSON text (`{}` on creation).
    pub previous_attributes: String,
    pub pending_webhooks: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}
