//! The setup intent state machine: every operation from every status, allowed or refused, and what
//! each outcome of a card's verification leaves behind.

use payments_domain::error::DomainError;
use payments_domain::ids::{AccountId, ClientSecret, CustomerId, PaymentMethodId, SetupIntentId};
use payments_domain::payment_intent::{AuthorizationOutcome, CardOptions, PaymentError, REDIRECT_SECONDS};
use payments_domain::payment_method::{CardSummary, Funding, PaymentMethodType, Usage, VerifiedCard};
use payments_domain::pending_authorization::{Authorizing, Verdict};
use payments_domain::setup_intent::{NewSetupIntent, PendingSetup, SetupIntent, SetupIntentStatus, SetupResult};
use payments_domain::time::Timestamp;
use SetupIntentStatus::{AwaitingNextAction, AwaitingPaymentMethod, Canceled, Processing, Succeeded};

const START: i64 = 1_700_000_000;

fn at(offset: i64) -> Timestamp {
    Timestamp::from_unix_seconds(START + offset)
}

fn setup_intent() -> SetupIntent {
    let id = SetupIntentId::from_random("setup");
    let new = NewSetupIntent {
        customer_id: CustomerId::from_random("customer"),
        payment_methods: vec![PaymentMethodType::Card],
        usage: Usage::OffSession,
        description: None,
        metadata: None,
        return_url: None,
        card_options: CardOptions::default(),
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    SetupIntent::create(id, AccountId::from_random("acct"), false, secret, new, at(0))
}

fn pending() -> PendingSetup {
    PendingSetup {
        payment_method_id: PaymentMethodId::from_random("saved"),
        verified: VerifiedCard {
            card: CardSummary {
                brand: "visa".into(),
                first6: "424242".into(),
                last4: "4242".into(),
                exp_month: 12,
                exp_year: 2040,
                funding: Funding::Credit,
            },
            billing: None,
            processor_reference: "approve".into(),
        },
    }
}

fn redirect() -> Option<(String, String)> {
    Some(("token".into(), "http://127.0.0.1/test/authorize/token".into()))
}

fn verify(intent: &mut SetupIntent, outcome: AuthorizationOutcome) -> Result<SetupResult, DomainError> {
    intent.record_verification(pending(), outcome, redirect(), None, at(1))
}

/// A setup intent brought to `status` through its transitions.
fn setup_intent_in(status: SetupIntentStatus) -> SetupIntent {
    let mut intent = setup_intent();
    match status {
        AwaitingPaymentMethod => {}
        AwaitingNextAction => {
            verify(&mut intent, AuthorizationOutcome::RedirectRequired).unwrap();
        }
        Processing => {
            verify(&mut intent, AuthorizationOutcome::Processing { finishes_at: at(4) }).unwrap();
        }
        Succeeded => {
            verify(&mut intent, AuthorizationOutcome::Approved).unwrap();
        }
        Canceled => intent.cancel(at(1)).unwrap(),
    }
    assert_eq!(intent.status(), status);
    intent
}

#[derive(Debug, Clone, Copy)]
enum Operation {
    Attach,
    Authenticate,
    ExpireRedirect,
    FinishProcessing,
    Cancel,
    Abandon,
}

fn apply(intent: &mut SetupIntent, operation: Operation) -> Result<(), DomainError> {
    let late = at(1 + REDIRECT_SECONDS);
    match operation {
        Operation::Attach => verify(intent, AuthorizationOutcome::Approved).map(drop),
        Operation::Authenticate => intent.complete_redirect(&Verdict::Approve, at(2)).map(drop),
        Operation::ExpireRedirect => intent.expire_redirect(late).map(drop),
        Operation::FinishProcessing => intent.finish_processing(late).map(drop),
        Operation::Cancel => intent.cancel(at(2)),
        Operation::Abandon => intent.abandon(at(2)),
    }
}

#[test]
fn every_operation_from_every_status_moves_as_the_table_says() {
    use Operation::{Abandon, Attach, Authenticate, Cancel, ExpireRedirect, FinishProcessing};
    // (from, operation, the status after it, or None when it is refused)
    let table = [
        (AwaitingPaymentMethod, Attach, Some(Succeeded)),
        (AwaitingPaymentMethod, Authenticate, None),
        (AwaitingPaymentMethod, ExpireRedirect, None),
        (AwaitingPaymentMethod, FinishProcessing, None),
        (AwaitingPaymentMethod, Cancel, Some(Canceled)),
        (AwaitingPaymentMethod, Abandon, Some(Canceled)),
        (AwaitingNextAction, Attach, None),
        (AwaitingNextAction, Authenticate, Some(Succeeded)),
        (AwaitingNextAction, ExpireRedirect, Some(AwaitingPaymentMethod)),
        (AwaitingNextAction, FinishProcessing, None),
        (AwaitingNextAction, Cancel, Some(Canceled)),
        (AwaitingNextAction, Abandon, Some(Canceled)),
        (Processing, Attach, None),
        (Processing, Authenticate, None),
        (Processing, ExpireRedirect, None),
        (Processing, FinishProcessing, Some(Succeeded)),
        (Processing, Cancel, None),
        (Processing, Abandon, Some(Canceled)),
        (Succeeded, Attach, None),
        (Succeeded, Authenticate, None),
        (Succeeded, ExpireRedirect, None),
        (Succeeded, FinishProcessing, None),
        (Succeeded, Cancel, None),
        (Succeeded, Abandon, None),
        (Canceled, Attach, None),
        (Canceled, Authenticate, None),
        (Canceled, ExpireRedirect, None),
        (Canceled, FinishProcessing, None),
        (Canceled, Cancel, None),
        (Canceled, Abandon, None),
    ];
    assert_eq!(table.len(), SetupIntentStatus::ALL.len() * 6, "every status meets every operation");
    for (from, operation, expected) in table {
        let mut intent = setup_intent_in(from);
        let before = intent.clone();
        let outcome = apply(&mut intent, operation);
        match expected {
            Some(status) => {
                assert!(outcome.is_ok(), "{operation:?} from {from:?}: {outcome:?}");
                assert_eq!(intent.status(), status, "{operation:?} from {from:?}");
                assert!(intent.version() > before.version());
            }
            None => {
                assert!(
                    matches!(outcome, Err(DomainError::InvalidState { resource: "setup_intent", status, .. }) if status == from.as_str()),
                    "{operation:?} from {from:?} must be refused naming the status: {outcome:?}"
                );
                assert_eq!(intent, before, "a refused operation changes nothing");
            }
        }
    }
}

#[test]
fn a_verified_card_is_saved_to_the_customer_with_the_intents_usage() {
    let mut intent = setup_intent();
    let SetupResult::Saved(method) = verify(&mut intent, AuthorizationOutcome::Approved).unwrap() else {
        panic!("an approved card is saved");
    };
    assert_eq!(intent.payment_method_id(), Some(&method.id));
    assert_eq!((&method.customer_id, method.usage), (intent.customer_id(), Usage::OffSession));
    assert_eq!(method.verified, pending().verified);
    assert!(method.chargeable(false), "off_session methods may be charged without the customer");
}

#[test]
fn a_decline_keeps_the_intent_awaiting_a_payment_method_with_the_error() {
    let mut intent = setup_intent();
    let error = PaymentError::new("funds_insufficient", "Not enough funds.");
    let result = verify(&mut intent, AuthorizationOutcome::Declined(error.clone())).unwrap();
    assert_eq!(result, SetupResult::Failed(error.clone()));
    assert_eq!((intent.status(), intent.last_setup_error()), (AwaitingPaymentMethod, Some(&error)));
    assert_eq!(intent.payment_method_id(), None, "nothing is saved");
    let SetupResult::Saved(_) = verify(&mut intent, AuthorizationOutcome::Approved).unwrap() else {
        panic!("another card may be tried");
    };
    assert_eq!(intent.last_setup_error(), None, "a success clears the error");
}

#[test]
fn a_redirect_waits_for_the_customer_and_expires_after_30_minutes() {
    let mut intent = setup_intent_in(AwaitingNextAction);
    assert_eq!(intent.next_action_url(), Some("http://127.0.0.1/test/authorize/token"));
    let early = intent.expire_redirect(at(REDIRECT_SECONDS));
    assert!(matches!(early, Err(DomainError::InvalidState { action: "expire the redirect of", .. })), "{early:?}");
    let expired = intent.expire_redirect(at(1 + REDIRECT_SECONDS)).unwrap();
    assert!(matches!(expired, SetupResult::Failed(ref e) if e.code == "authentication_expired"), "{expired:?}");
    assert_eq!((intent.status(), intent.next_action_url()), (AwaitingPaymentMethod, None));
    assert_eq!(intent.redirect_token(), Some("token"), "a used page still finds its setup intent");

    let mut failed = setup_intent_in(AwaitingNextAction);
    let result = failed.complete_redirect(&Verdict::Decline(None), at(2)).unwrap();
    assert!(matches!(result, SetupResult::Failed(ref e) if e.code == "authentication_failed"), "{result:?}");
}

#[test]
fn only_cards_can_be_attached_and_only_allowed_methods() {
    let intent = setup_intent();
    let refused = intent.ensure_attachable(PaymentMethodType::Gcash);
    assert!(
        matches!(refused, Err(DomainError::Invalid(ref e)) if e.parameter == "payment_method[type]"),
        "{refused:?}"
    );
    intent.ensure_attachable(PaymentMethodType::Card).unwrap();
}
