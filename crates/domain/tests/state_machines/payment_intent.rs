//! The payment intent state machine: every operation from every status (allowed or refused), and
//! random sequences of operations that must never break the money invariants.

use payments_domain::error::DomainError;
use payments_domain::ids::{AccountId, ClientSecret, PaymentId, PaymentIntentId, RefundId};
use payments_domain::money::{Amount, Currency};
use payments_domain::payment::{FeeRate, Payment, PaymentStatus};
use payments_domain::payment_intent::{
    Attempt, AttemptResult, AuthorizationOutcome, CaptureType, CardOptions, NewPaymentIntent, PaymentError,
    PaymentIntent, PaymentIntentChanges, PaymentIntentStatus, HOLD_SECONDS, REDIRECT_SECONDS,
};
use payments_domain::payment_method::{CardSummary, Funding, PaymentMethodRecord, PaymentMethodType};
use payments_domain::pending_authorization::{Authorizing, Verdict};
use payments_domain::refund::{NewRefund, RefundReason};
use payments_domain::time::Timestamp;
use proptest::prelude::*;
use PaymentIntentStatus::{
    AwaitingCapture, AwaitingNextAction, AwaitingPaymentMethod, Canceled, Processing, Succeeded,
};

const START: i64 = 1_700_000_000;
const AMOUNT: i64 = 10_000;

fn at(offset: i64) -> Timestamp {
    Timestamp::from_unix_seconds(START + offset)
}

fn intent(capture_type: CaptureType) -> PaymentIntent {
    intent_of_mode(capture_type, false)
}

fn intent_of_mode(capture_type: CaptureType, livemode: bool) -> PaymentIntent {
    let id = PaymentIntentId::from_random("intent");
    let new = NewPaymentIntent {
        amount: Amount::new(AMOUNT).unwrap(),
        currency: Currency::Php,
        payment_methods: vec![PaymentMethodType::Card, PaymentMethodType::Gcash],
        statement_descriptor: None,
        description: None,
        metadata: None,
        customer_id: None,
        return_url: None,
        card_options: CardOptions { capture_type, ..CardOptions::default() },
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    PaymentIntent::create(id, AccountId::from_random("acct"), livemode, secret, new, at(0))
}

fn card_attempt() -> Attempt {
    Attempt {
        payment_method_id: "pm_1".into(),
        payment_method: PaymentMethodRecord {
            method: PaymentMethodType::Card,
            card: Some(CardSummary {
                brand: "visa".into(),
                first6: "424242".into(),
                last4: "4242".into(),
                exp_month: 12,
                exp_year: 2040,
                funding: Funding::Credit,
            }),
            qrph: None,
        },
        billing: None,
        save_for: None,
        payment_id: None,
    }
}

fn redirect() -> Option<(String, String)> {
    Some(("token".into(), "http://127.0.0.1/test/authorize/token".into()))
}

/// An intent driven to `status` through the state machine itself.
fn intent_in(status: PaymentIntentStatus) -> PaymentIntent {
    let capture_type = if status == AwaitingCapture { CaptureType::Manual } else { CaptureType::Automatic };
    let mut intent = intent(capture_type);
    let outcome = match status {
        AwaitingPaymentMethod => return intent,
        Canceled => {
            intent.cancel(at(1)).unwrap();
            return intent;
        }
        AwaitingNextAction => AuthorizationOutcome::RedirectRequired,
        Processing => AuthorizationOutcome::Processing { finishes_at: at(5) },
        AwaitingCapture | Succeeded => AuthorizationOutcome::Approved,
    };
    intent.record_attempt(card_attempt(), outcome, redirect(), None, at(1)).unwrap();
    assert_eq!(intent.status(), status);
    intent
}

/// Every operation, applied at a time when any deadline has passed.
const OPERATIONS: [&str; 8] = [
    "update",
    "attach",
    "complete_redirect",
    "expire_redirect",
    "finish_processing",
    "capture",
    "cancel",
    "expire_hold",
];

fn apply(intent: &mut PaymentIntent, operation: &str) -> Result<(), DomainError> {
    let late = at(HOLD_SECONDS + REDIRECT_SECONDS + 10);
    match operation {
        "update" => intent.update(PaymentIntentChanges::default(), at(2)),
        "attach" => intent.record_attempt(card_attempt(), AuthorizationOutcome::Approved, None, None, at(2)).map(drop),
        "complete_redirect" => intent.complete_redirect(&Verdict::Approve, at(2)).map(drop),
        "expire_redirect" => intent.expire_redirect(late).map(drop),
        "finish_processing" => intent.finish_processing(late).map(drop),
        "capture" => intent.capture(Amount::new(AMOUNT).unwrap(), at(2)).map(drop),
        "cancel" => intent.cancel(at(2)),
        "expire_hold" => intent.expire_hold(late),
        other => unreachable!("unknown operation {other}"),
    }
}

fn allowed(status: PaymentIntentStatus, operation: &str) -> bool {
    matches!(
        (status, operation),
        (AwaitingPaymentMethod, "update" | "attach" | "cancel")
            | (AwaitingNextAction, "complete_redirect" | "expire_redirect")
            | (Processing, "finish_processing")
            | (AwaitingCapture, "capture" | "cancel" | "expire_hold")
    )
}

#[test]
fn every_operation_from_every_status_is_allowed_or_refused_as_specified() {
    for status in PaymentIntentStatus::ALL {
        for operation in OPERATIONS {
            let mut intent = intent_in(status);
            let before = intent.clone();
            let outcome = apply(&mut intent, operation);
            if allowed(status, operation) {
                assert!(outcome.is_ok(), "{operation} from {status:?} should be allowed: {outcome:?}");
                assert!(intent.version() > before.version(), "{operation} from {status:?} bumps the version");
            } else {
                match outcome {
                    Err(DomainError::InvalidState { status: named, .. }) => {
                        assert_eq!(named, status.as_str(), "{operation} names the current status");
                    }
                    other => panic!("{operation} from {status:?} should be refused, got {other:?}"),
                }
                assert_eq!(intent, before, "a refused {operation} from {status:?} changes nothing");
            }
        }
    }
}

#[test]
fn approval_with_automatic_capture_succeeds_with_the_whole_amount() {
    let intent = intent_in(Succeeded);
    assert_eq!((intent.amount_received(), intent.amount_capturable()), (AMOUNT, 0));
}

#[test]
fn a_manual_approval_holds_the_amount_for_seven_days() {
    let intent = intent_in(AwaitingCapture);
    assert_eq!((intent.amount_received(), intent.amount_capturable()), (0, AMOUNT));
    assert_eq!(intent.capture_before_at(), Some(at(1 + HOLD_SECONDS)));
}

#[test]
fn a_partial_capture_releases_the_rest_and_a_capture_above_the_hold_is_refused() {
    let mut intent = intent_in(AwaitingCapture);
    let above = intent.capture(Amount::new(AMOUNT + 1).unwrap(), at(2));
    assert!(matches!(above, Err(DomainError::Invalid(ref e)) if e.parameter == "amount"), "{above:?}");
    intent.capture(Amount::new(5_000).unwrap(), at(2)).unwrap();
    assert_eq!((intent.status(), intent.amount_received(), intent.amount_capturable()), (Succeeded, 5_000, 0));
}

#[test]
fn a_capture_after_the_hold_expired_is_refused_and_the_hold_expires_into_canceled() {
    let mut intent = intent_in(AwaitingCapture);
    let expired = intent.capture(Amount::new(AMOUNT).unwrap(), at(1 + HOLD_SECONDS));
    assert!(
        matches!(
            expired,
            Err(DomainError::InvalidState { status: "awaiting_capture (hold expired)", action: "capture", .. })
        ),
        "{expired:?}"
    );
    let early = intent.expire_hold(at(HOLD_SECONDS));
    assert!(
        matches!(early, Err(DomainError::InvalidState { action: "expire the hold of", .. })),
        "not yet expired: {early:?}"
    );
    intent.expire_hold(at(1 + HOLD_SECONDS)).unwrap();
    assert_eq!((intent.status(), intent.amount_capturable()), (Canceled, 0));
}

/// A live intent claimed for the processor with a reserved payment, awaiting the customer on the
/// processor's 3-D Secure page.
fn live_at_processor(capture_type: CaptureType) -> PaymentIntent {
    let mut intent = intent_of_mode(capture_type, true);
    let attempt = Attempt { payment_id: Some("pay_reserved".into()), ..card_attempt() };
    intent.claim_for_processor(attempt, None, at(1)).unwrap();
    intent.await_processor_action("token".into(), "https://processor.example/3ds".into(), at(2)).unwrap();
    intent
}

#[test]
fn a_payment_at_a_live_processor_is_not_abandoned_here_and_its_word_stands_late() {
    let mut waiting = live_at_processor(CaptureType::Manual);
    assert!(waiting.is_at_processor());
    let refused = waiting.clone().abandon(at(3));
    assert!(matches!(refused, Err(DomainError::InvalidState { .. })), "{refused:?}");
    // The processor says the customer authenticated, after the page's time: held, not failed.
    waiting.settle_processor_action(None, at(2 + REDIRECT_SECONDS + 600)).unwrap();
    assert_eq!(waiting.status(), AwaitingCapture);
    assert!(waiting.is_at_processor() && waiting.clone().abandon(at(3)).is_err(), "a hold at the processor too");
    // The processor captured, and its answer came after the hold's time: recorded, not refused.
    let late = at(2 + REDIRECT_SECONDS + 600 + HOLD_SECONDS);
    assert!(waiting.clone().capture(Amount::new(AMOUNT).unwrap(), late).is_err());
    waiting.record_capture(Amount::new(6_000).unwrap(), late).unwrap();
    assert_eq!((waiting.status(), waiting.amount_received()), (Succeeded, 6_000));

    let mut test_mode = intent_in(AwaitingCapture);
    assert!(!test_mode.is_at_processor());
    test_mode.abandon(at(3)).unwrap();
}

#[test]
fn a_decline_returns_to_awaiting_payment_method_with_the_error() {
    let mut intent = intent(CaptureType::Automatic);
    let error = PaymentError::new("funds_insufficient", "Not enough funds.");
    let result = intent
        .record_attempt(card_attempt(), AuthorizationOutcome::Declined(error.clone()), None, None, at(1))
        .unwrap();
    assert!(matches!(result, AttemptResult::Failed(_, ref e) if *e == error));
    assert_eq!((intent.status(), intent.last_payment_error()), (AwaitingPaymentMethod, Some(&error)));
}

#[test]
fn redirects_expire_after_30_minutes_with_authentication_expired() {
    let mut intent = intent_in(AwaitingNextAction);
    let early = intent.expire_redirect(at(REDIRECT_SECONDS));
    assert!(
        matches!(early, Err(DomainError::InvalidState { action: "expire the redirect of", .. })),
        "not yet due: {early:?}"
    );
    intent.expire_redirect(at(1 + REDIRECT_SECONDS)).unwrap();
    assert_eq!(intent.status(), AwaitingPaymentMethod);
    assert_eq!(intent.last_payment_error().map(|e| e.code.clone()), Some("authentication_expired".to_owned()));
}

#[test]
fn a_failed_authentication_records_authentication_failed() {
    let mut intent = intent_in(AwaitingNextAction);
    intent.complete_redirect(&Verdict::Decline(None), at(2)).unwrap();
    assert_eq!(intent.last_payment_error().map(|e| e.code.clone()), Some("authentication_failed".to_owned()));
}

#[test]
fn a_method_the_intent_does_not_allow_is_refused() {
    let intent = intent(CaptureType::Automatic);
    assert!(matches!(intent.ensure_attachable(PaymentMethodType::Maya), Err(DomainError::Invalid(_))));
}

/// What a random step does.
#[derive(Debug, Clone)]
enum Step {
    Attach(u8),
    Authenticate(bool),
    ExpireRedirect,
    FinishProcessing,
    Capture(i64),
    Cancel,
    ExpireHold,
    Refund(i64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u8..4).prop_map(Step::Attach),
        any::<bool>().prop_map(Step::Authenticate),
        Just(Step::ExpireRedirect),
        Just(Step::FinishProcessing),
        (0i64..15_000).prop_map(Step::Capture),
        Just(Step::Cancel),
        Just(Step::ExpireHold),
        (0i64..12_000).prop_map(Step::Refund),
    ]
}

/// Records the payments an attempt result implies, as the service does.
fn record(intent: &mut PaymentIntent, payments: &mut Vec<Payment>, result: AttemptResult, now: Timestamp) {
    let id = PaymentId::from_random(&format!("p{}", payments.len()));
    let rate = FeeRate { basis_points: 350, fixed: 1_500 };
    let payment = match result {
        AttemptResult::Succeeded(attempt) => Payment::paid(id, intent, intent.amount().centavos(), attempt, rate, now),
        AttemptResult::Failed(attempt, _) => Payment::failed(id, intent, attempt, now),
        AttemptResult::Held(_) | AttemptResult::Redirected | AttemptResult::Processing => return,
    };
    intent.link_payment(payment.id().clone());
    payments.push(payment);
}

proptest! {
    #[test]
    fn random_operations_never_break_the_money_invariants(
        manual in any::<bool>(),
        steps in proptest::collection::vec(step(), 1..40),
    ) {
        // The capture type is the intent's own, set when it is created.
        let mut intent = intent(if manual { CaptureType::Manual } else { CaptureType::Automatic });
        let mut payments: Vec<Payment> = Vec::new();
        let mut refunded = 0i64;
        let mut clock = 0i64;
        for step in steps {
            clock += 60 * 60;
            let now = at(clock);
            match step {
                Step::Attach(outcome) => {
                    let outcome = match outcome {
                        0 => AuthorizationOutcome::Approved,
                        1 => AuthorizationOutcome::Declined(PaymentError::new("generic_decline", "Declined.")),
                        2 => AuthorizationOutcome::RedirectRequired,
                        _ => AuthorizationOutcome::Processing { finishes_at: now.plus_seconds(3) },
                    };
                    if let Ok(result) = intent.record_attempt(card_attempt(), outcome, redirect(), None, now) {
                        record(&mut intent, &mut payments, result, now);
                    }
                }
                Step::Authenticate(ok) => {
                    if let Ok(result) = intent.complete_redirect(&Verdict::of_page(ok), now) {
                        record(&mut intent, &mut payments, result, now);
                    }
                }
                Step::ExpireRedirect => {
                    if let Ok(result) = intent.expire_redirect(now.plus_seconds(REDIRECT_SECONDS)) {
                        record(&mut intent, &mut payments, result, now);
                    }
                }
                Step::FinishProcessing => {
                    if let Ok(result) = intent.finish_processing(now) {
                        record(&mut intent, &mut payments, result, now);
                    }
                }
                Step::Capture(amount) => {
                    if let Ok(amount) = Amount::new(amount) {
                        if let Ok(attempt) = intent.capture(amount, now) {
                            let id = PaymentId::from_random(&format!("p{}", payments.len()));
                            let rate = FeeRate { basis_points: 350, fixed: 1_500 };
                            let payment = Payment::paid(id, &intent, amount.centavos(), attempt, rate, now);
                            intent.link_payment(payment.id().clone());
                            payments.push(payment);
                        }
                    }
                }
                Step::Cancel => { let _ = intent.cancel(now); }
                Step::ExpireHold => { let _ = intent.expire_hold(now.plus_seconds(HOLD_SECONDS)); }
                Step::Refund(amount) => {
                    if let Some(paid) = payments.iter_mut().find(|p| p.status() == PaymentStatus::Paid) {
                        let new = NewRefund {
                            amount,
                            currency: Currency::Php,
                            payment_id: paid.id().to_string(),
                            reason: RefundReason::Others,
                            description: None,
                            remarks: None,
                            metadata: None,
                        };
                        if paid.refund(RefundId::from_random("r"), new, now).is_ok() {
                            refunded += amount;
                        }
                    }
                }
            }
            let paid: Vec<&Payment> = payments.iter().filter(|p| p.status() == PaymentStatus::Paid).collect();
            prop_assert!(intent.amount_received() <= intent.amount().centavos());
            prop_assert!(intent.amount_capturable() <= intent.amount().centavos());
            prop_assert!(paid.len() <= 1, "at most one paid payment per intent");
            prop_assert_eq!(intent.status() == Succeeded, paid.len() == 1);
            if let Some(paid) = paid.first() {
                prop_assert_eq!(paid.amount(), intent.amount_received());
                prop_assert!(refunded <= paid.amount() && paid.amount_refunded() == refunded);
                prop_assert_eq!(paid.net_amount(), paid.amount() - paid.fee());
            } else {
                prop_assert_eq!(refunded, 0);
            }
        }
    }
}
