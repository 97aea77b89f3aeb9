//! What a payment intent was created for (a checkout session) hears about it here: when the intent
//! is paid, the owner completes in the same transaction, and the merchant may not change or cancel
//! an owned intent behind its owner's back.

use super::event::EventLog;
use crate::error::ApplicationError;
use crate::ports::Repositories;
use crate::scope::Scope;
use payments_domain::event::EventType;
use payments_domain::payment_intent::{PaymentIntent, PaymentIntentStatus};
use serde_json::Value;

/// Whether a move from `before` to `after` paid the intent: it succeeded, or a manual capture's
/// hold was authorized (the customer's part is done).
#[must_use]
pub(crate) fn became_paid(before: PaymentIntentStatus, after: PaymentIntentStatus) -> bool {
    let paid = |status| matches!(status, PaymentIntentStatus::Succeeded | PaymentIntentStatus::AwaitingCapture);
    paid(after) && !paid(before)
}

/// Completes what `intent` pays for. `presented` is the intent before and after, as the API shows
/// it, for the owner's event.
///
/// # Errors
/// `resource_invalid_state` when the owner can no longer be paid (the transaction then rolls back);
/// storage failures.
pub(crate) fn intent_paid(
    repositories: &mut dyn Repositories,
    log: &EventLog<'_>,
    scope: &Scope,
    intent: &PaymentIntent,
    presented: (&Value, &Value),
) -> Result<(), ApplicationError> {
    let Some(before) = repositories.checkout_sessions().find_by_payment_intent(scope, intent.id())? else {
        return Ok(());
    };
    let mut session = before.clone();
    session.complete(log.now)?;
    repositories.checkout_sessions().update(&session, before.version())?;
    let (intent_before, intent_after) = presented;
    let after = log.presenter.checkout_session(&session, intent_after);
    let before = log.presenter.checkout_session(&before, intent_before);
    log.append(repositories, EventType::CheckoutSessionCompleted, &after, Some(&before))
}

/// Refuses a merchant's change (`done`: "updated", "canceled") on an intent that a checkout session owns.
///
/// # Errors
/// `resource_invalid_state` naming the owner; storage failures.
pub(crate) fn ensure_not_owned(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: &PaymentIntent,
    done: &str,
) -> Result<(), ApplicationError> {
    match repositories.checkout_sessions().find_by_payment_intent(scope, intent.id())? {
        Some(session) => Err(ApplicationError::InvalidState(format!(
            "This payment intent belongs to checkout session {}, so it cannot be {done} directly; expire the \
             session instead.",
            session.id()
        ))),
        None => Ok(()),
    }
}
