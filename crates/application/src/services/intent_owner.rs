//! What a payment intent was created for (a checkout session, a billing statement) hears about it
//! here: when the intent is paid, the owner completes in the same transaction, and the merchant may
//! not change or cancel an owned intent behind its owner's back.

use super::account::merchant_name;
use super::event::EventLog;
use crate::error::{ApplicationError, StateRefusal};
use crate::ports::Repositories;
use crate::scope::Scope;
use payments_domain::event::EventType;
use payments_domain::payment_intent::{IntentOwner, PaymentIntent, PaymentIntentOperation, PaymentIntentStatus};
use serde_json::Value;

/// Whether a move from `before` to `after` paid the intent: it succeeded, or a manual capture's
/// hold was authorized (the customer's part is done).
#[must_use]
pub(crate) fn became_paid(before: PaymentIntentStatus, after: PaymentIntentStatus) -> bool {
    let paid = |status| matches!(status, PaymentIntentStatus::Succeeded | PaymentIntentStatus::AwaitingCapture);
    paid(after) && !paid(before)
}

/// The owner's event of a paid intent: its type, and the owner after and before.
pub(crate) type OwnerEvent = (EventType, Value, Value);

/// Completes what `intent` pays for, and returns the owner's event for the caller to append with
/// the intent's own. `presented` is the intent before and after, as the API shows it.
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
) -> Result<Option<OwnerEvent>, ApplicationError> {
    let (intent_before, intent_after) = presented;
    match intent.owner() {
        // A page is paid by many orders: none completes it.
        None | Some(IntentOwner::Page) => Ok(None),
        Some(IntentOwner::CheckoutSession) => {
            let Some(before) = repositories.checkout_sessions().find_by_payment_intent(scope, intent.id())? else {
                return Err(missing_owner());
            };
            let mut session = before.clone();
            session.complete(log.now)?;
            repositories.checkout_sessions().update(&session, before.version())?;
            let after = log.presenter.checkout_session(&session, intent_after);
            let before = log.presenter.checkout_session(&before, intent_before);
            Ok(Some((EventType::CheckoutSessionCompleted, after, before)))
        }
        Some(IntentOwner::BillingStatement) => {
            let Some(before) = repositories.billing_statements().find_by_payment_intent(scope, intent.id())? else {
                return Err(missing_owner());
            };
            let mut statement = before.clone();
            statement.pay(log.now)?;
            repositories.billing_statements().update(&statement, before.version())?;
            let customer = repositories
                .customers()
                .find(scope, statement.customer_id())?
                .ok_or_else(|| ApplicationError::internal("a billing statement's customer is missing"))?;
            let merchant = merchant_name(repositories, scope)?;
            let after = log.presenter.billing_statement(&statement, &customer, Some(intent_after), &merchant);
            let before = log.presenter.billing_statement(&before, &customer, Some(intent_before), &merchant);
            Ok(Some((EventType::BillingStatementPaid, after, before)))
        }
    }
}

/// Whether the owner of `intent` may end it now (expire the session, void the statement): not
/// while its payment is processing, whose outcome the owner must wait for.
#[must_use]
pub(crate) fn owner_may_end(intent: &PaymentIntent) -> bool {
    intent.status() != PaymentIntentStatus::Processing
}

/// Refuses to end `owner` (`"checkout session"`, `"billing statement"`) while `intent`'s payment
/// is processing ([`owner_may_end`]).
///
/// # Errors
/// `resource_invalid_state`.
pub(crate) fn ensure_owner_may_end(intent: &PaymentIntent, owner: &'static str) -> Result<(), ApplicationError> {
    if owner_may_end(intent) {
        Ok(())
    } else {
        Err(ApplicationError::InvalidState(StateRefusal::PaymentProcessing { resource: owner }))
    }
}

fn missing_owner() -> ApplicationError {
    ApplicationError::internal("an owned payment intent's owner is missing")
}

/// Whether an owner of `intent`, if it has one, lets the merchant do `operation` themselves.
pub(crate) fn owner_allows(intent: &PaymentIntent, operation: PaymentIntentOperation) -> bool {
    intent.owner().is_none_or(|owner| !owner.refuses(operation))
}

/// Refuses a merchant's `operation` on an intent that a checkout session or a billing statement
/// owns, where the owner does not allow it ([`owner_allows`]).
///
/// # Errors
/// `resource_invalid_state` naming the owner; storage failures.
pub(crate) fn ensure_not_owned(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: &PaymentIntent,
    operation: PaymentIntentOperation,
) -> Result<(), ApplicationError> {
    if owner_allows(intent, operation) {
        return Ok(());
    }
    let done = match operation {
        PaymentIntentOperation::Update => "updated",
        PaymentIntentOperation::Attach => "attached to",
        PaymentIntentOperation::Capture => "captured",
        PaymentIntentOperation::Cancel => "canceled",
    };
    let (owner, instead) = match intent.owner() {
        None => return Ok(()),
        Some(IntentOwner::CheckoutSession) => (
            repositories
                .checkout_sessions()
                .find_by_payment_intent(scope, intent.id())?
                .map(|session| format!("checkout session {}", session.id())),
            "expire the session instead",
        ),
        Some(IntentOwner::BillingStatement) => (
            repositories
                .billing_statements()
                .find_by_payment_intent(scope, intent.id())?
                .map(|statement| format!("billing statement {}", statement.id())),
            "void the statement instead",
        ),
        Some(IntentOwner::Page) => (
            intent.page_session().map(|session| format!("the order placed on page {}", session.page_id)),
            "the customer places a new order on the page instead",
        ),
    };
    let owner = owner.ok_or_else(missing_owner)?;
    Err(ApplicationError::InvalidState(StateRefusal::OwnedIntent { owner, done, instead }))
}
