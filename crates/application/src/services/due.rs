//! One object's background action that falls due, as the services that have such actions name it
//! and `DueWork` runs it.

use crate::scope::Scope;
use payments_domain::time::Timestamp;

/// One object whose background action falls due at `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Due {
    pub kind: DueKind,
    pub scope: Scope,
    pub id: String,
    pub at: Timestamp,
}

/// The kinds of object that have background actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DueKind {
    PaymentIntent,
    SetupIntent,
    CheckoutSession,
    BillingStatement,
    /// An account's scheduled payout (the id is empty: the scope names the schedule).
    PayoutRun,
    /// A payout's next move.
    Payout,
    /// An operation on a live payment (authorize, capture, void) whose answer was not recorded:
    /// the janitor asks the processor what it did (the id is the operation's idempotency key).
    ProcessorOperation,
    /// A live refund's operation whose answer was not recorded, likewise.
    RefundOperation,
    /// An event a live processor sent, not acted on yet (the id is the event's).
    ProcessorEvent,
}
