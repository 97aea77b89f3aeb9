//! The test-mode processor: fixed test cards with fixed outcomes, 3-D Secure, and e-wallet redirects.
//!
//! Any future expiry and any CVC of the right length work unless a card's row says otherwise; a past
//! expiry declines `card_expired`; a card outside the intent's allowed BINs or fundings declines
//! `card_not_allowed`. Card numbers not in the table behave like the Visa credit success card.
//!
//! A verified card is saved with its test behaviour as the processor reference (`approve`,
//! `challenge`, `processing`, `decline:<code>`), never its number, so charging it later has the
//! outcome its number had.

use payments_application::ports::{
    Authorization, AuthorizationRequest, PaymentMethodInput, PaymentProcessor, ProcessorError, Verification,
    VerificationRequest,
};
use payments_domain::payment_intent::CardOptions;
use payments_domain::payment_intent::{AuthorizationOutcome, PaymentError};
use payments_domain::payment_method::{CardInput, CardSummary, Funding, QrphSummary};
use payments_domain::time::Timestamp;

/// How long the `processing` test card takes to succeed.
const PROCESSING_SECONDS: i64 = 3;

/// What a test card does.
#[derive(Debug, Clone, Copy)]
pub(super) enum Behaviour {
    Approve,
    Decline(&'static str, &'static str),
    Challenge,
    Processing,
}

impl Behaviour {
    /// The processor reference a saved card of this behaviour carries.
    fn reference(self) -> String {
        match self {
            Self::Approve => "approve".to_owned(),
            Self::Decline(code, _) => format!("decline:{code}"),
            Self::Challenge => "challenge".to_owned(),
            Self::Processing => "processing".to_owned(),
        }
    }

    /// The behaviour of a saved card's reference; an unknown reference declines.
    fn of_reference(reference: &str) -> Self {
        match reference {
            "approve" => Self::Approve,
            "challenge" => Self::Challenge,
            "processing" => Self::Processing,
            other => TEST_CARDS
                .iter()
                .map(|(_, _, behaviour)| *behaviour)
                .find(|behaviour| behaviour.reference() == other)
                .unwrap_or(Self::Decline("generic_decline", "The saved card is unknown to the processor.")),
        }
    }
}

/// The test cards: number, funding, behaviour.
const TEST_CARDS: [(&str, Funding, Behaviour); 15] = [
    ("4242424242424242", Funding::Credit, Behaviour::Approve),
    ("4701322211111234", Funding::Debit, Behaviour::Approve),
    ("5425233430109903", Funding::Credit, Behaviour::Approve),
    ("5200828282828210", Funding::Debit, Behaviour::Approve),
    ("4000000760000002", Funding::Credit, Behaviour::Approve),
    ("4000000000001000", Funding::Credit, Behaviour::Decline("blocked", "The card is blocked.")),
    ("4005550000000019", Funding::Credit, Behaviour::Decline("generic_decline", "The card was declined.")),
    ("4503300000000008", Funding::Credit, Behaviour::Decline("funds_insufficient", "The card has insufficient funds.")),
    (
        "4205260000000005",
        Funding::Credit,
        Behaviour::Decline("cvc_incorrect", "The card's security code is incorrect."),
    ),
    (
        "4001270000000000",
        Funding::Credit,
        Behaviour::Decline("processing_error", "An error occurred while processing the card."),
    ),
    ("4012000033330026", Funding::Credit, Behaviour::Decline("system_error", "The card network had a system error.")),
    ("4311780000241409", Funding::Credit, Behaviour::Approve),
    (
        "4000000000000077",
        Funding::Credit,
        Behaviour::Decline("generic_decline", "The card was declined after authentication."),
    ),
    ("4000000000003220", Funding::Credit, Behaviour::Challenge),
    ("4000000000003337", Funding::Credit, Behaviour::Processing),
];

/// The test-mode simulator.
#[derive(Debug, Default, Clone, Copy)]
pub struct Simulator;

impl Simulator {
    /// The funding and behaviour of a card number.
    pub(super) fn test_card(card: &CardInput) -> (Funding, Behaviour) {
        TEST_CARDS
            .iter()
            .find(|(number, _, _)| *number == card.number.digits())
            .map_or((Funding::Credit, Behaviour::Approve), |(_, funding, behaviour)| (*funding, *behaviour))
    }

    /// What a card of `summary` with `behaviour` does under the intent's `options` at `now`.
    fn outcome(
        summary: &CardSummary,
        behaviour: Behaviour,
        options: &CardOptions,
        now: Timestamp,
    ) -> AuthorizationOutcome {
        if !options.allows(&summary.first6, summary.funding) {
            declined("card_not_allowed", "This card is not allowed for this payment.")
        } else if summary.expired(now) {
            declined("card_expired", "The card has expired.")
        } else {
            match behaviour {
                Behaviour::Approve => AuthorizationOutcome::Approved,
                Behaviour::Decline(code, detail) => declined(code, detail),
                Behaviour::Challenge => AuthorizationOutcome::RedirectRequired,
                Behaviour::Processing => {
                    AuthorizationOutcome::Processing { finishes_at: now.plus_seconds(PROCESSING_SECONDS) }
                }
            }
        }
    }
}

fn declined(code: &str, detail: &str) -> AuthorizationOutcome {
    AuthorizationOutcome::Declined(PaymentError::new(code, detail))
}

impl PaymentProcessor for Simulator {
    fn authorize(&self, request: &AuthorizationRequest<'_>) -> Result<Authorization, ProcessorError> {
        Ok(match request.method {
            PaymentMethodInput::Card(card) => {
                let (funding, behaviour) = Self::test_card(card);
                let summary = card.summary(funding);
                let outcome = Self::outcome(&summary, behaviour, request.card_options, request.now);
                let processor_reference = request.keep_card.then(|| behaviour.reference());
                Authorization { outcome, card: Some(summary), processor_reference }
            }
            PaymentMethodInput::Saved(saved) => {
                let behaviour = Behaviour::of_reference(&saved.processor_reference);
                let outcome = Self::outcome(&saved.card, behaviour, request.card_options, request.now);
                Authorization { outcome, card: Some(saved.card.clone()), processor_reference: None }
            }
            PaymentMethodInput::Redirect(_) => {
                Authorization { outcome: AuthorizationOutcome::RedirectRequired, card: None, processor_reference: None }
            }
            // Test mode takes test cards' details; the service refuses a live processor's token first.
            PaymentMethodInput::ProcessorToken(_) => Authorization {
                outcome: AuthorizationOutcome::Declined(PaymentError::new(
                    "processing_error",
                    "The simulator takes test cards, not a processor's token.",
                )),
                card: None,
                processor_reference: None,
            },
        })
    }

    fn verify(&self, request: &VerificationRequest<'_>) -> Result<Verification, ProcessorError> {
        let (funding, behaviour) = Self::test_card(request.card);
        let card = request.card.summary(funding);
        let outcome = Self::outcome(&card, behaviour, request.card_options, request.now);
        Ok(Verification { outcome, card, processor_reference: behaviour.reference() })
    }

    fn qrph_payer(&self) -> Option<QrphSummary> {
        Some(QrphSummary {
            account_name: "Juan dela Cruz (test)".to_owned(),
            last4_account_number: "1234".to_owned(),
            account_institution: "TESTPH".to_owned(),
            account_institution_name: "Test Bank of the Philippines".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use payments_domain::money::Amount;
    use payments_domain::payment_intent::CardOptions;
    use payments_domain::payment_method::{CardNumber, Cvc, PaymentMethodType};
    use payments_domain::time::Timestamp;

    fn card(number: &str, exp_year: u32) -> PaymentMethodInput {
        PaymentMethodInput::Card(CardInput {
            number: CardNumber::new(number).unwrap(),
            exp_month: 6,
            exp_year,
            cvc: Cvc::new("123").unwrap(),
        })
    }

    fn authorize(number: &str, exp_year: u32, options: &CardOptions) -> Authorization {
        let method = card(number, exp_year);
        let request = AuthorizationRequest {
            amount: Amount::new(10_000).unwrap(),
            method: &method,
            card_options: options,
            keep_card: false,
            now: Timestamp::from_unix_seconds(1_795_323_956),
        };
        Simulator.authorize(&request).unwrap()
    }

    fn code(authorization: &Authorization) -> Option<&str> {
        match &authorization.outcome {
            AuthorizationOutcome::Declined(error) => Some(error.code.as_str()),
            _ => None,
        }
    }

    #[test]
    fn every_test_card_has_its_outcome() {
        let options = CardOptions::default();
        for (number, _, behaviour) in TEST_CARDS {
            let authorization = authorize(number, 2040, &options);
            match behaviour {
                Behaviour::Approve => assert_eq!(authorization.outcome, AuthorizationOutcome::Approved, "{number}"),
                Behaviour::Decline(expected, _) => assert_eq!(code(&authorization), Some(expected), "{number}"),
                Behaviour::Challenge => assert_eq!(authorization.outcome, AuthorizationOutcome::RedirectRequired),
                Behaviour::Processing => {
                    assert!(matches!(authorization.outcome, AuthorizationOutcome::Processing { .. }), "{number}");
                }
            }
        }
    }

    #[test]
    fn expired_and_disallowed_cards_are_declined() {
        assert_eq!(code(&authorize("4242424242424242", 2025, &CardOptions::default())), Some("card_expired"));
        let debit_only = CardOptions { allowed_funding: vec![Funding::Debit], ..CardOptions::default() };
        assert_eq!(code(&authorize("4242424242424242", 2040, &debit_only)), Some("card_not_allowed"));
        assert_eq!(authorize("4701322211111234", 2040, &debit_only).outcome, AuthorizationOutcome::Approved);
        let bins = CardOptions { allowed_bins: vec!["542523".into()], ..CardOptions::default() };
        assert_eq!(code(&authorize("4242424242424242", 2040, &bins)), Some("card_not_allowed"));
        assert_eq!(authorize("5425233430109903", 2040, &bins).outcome, AuthorizationOutcome::Approved);
    }

    #[test]
    fn e_wallets_always_redirect() {
        let method = PaymentMethodInput::Redirect(PaymentMethodType::Qrph);
        let options = CardOptions::default();
        let request = AuthorizationRequest {
            amount: Amount::new(10_000).unwrap(),
            method: &method,
            card_options: &options,
            keep_card: true,
            now: Timestamp::from_unix_seconds(0),
        };
        let authorization = Simulator.authorize(&request).unwrap();
        assert_eq!(authorization.outcome, AuthorizationOutcome::RedirectRequired);
        assert_eq!(authorization.processor_reference, None, "only a card entered now can be kept");
    }

    #[test]
    fn a_card_kept_for_later_carries_its_behaviour_as_reference() {
        let options = CardOptions::default();
        let method = card("4000000000003220", 2040);
        let request = AuthorizationRequest {
            amount: Amount::new(10_000).unwrap(),
            method: &method,
            card_options: &options,
            keep_card: true,
            now: Timestamp::from_unix_seconds(1_795_323_956),
        };
        let authorization = Simulator.authorize(&request).unwrap();
        assert_eq!(authorization.processor_reference.as_deref(), Some("challenge"));
        let not_kept = AuthorizationRequest { keep_card: false, ..request };
        assert_eq!(Simulator.authorize(&not_kept).unwrap().processor_reference, None);
    }
}
