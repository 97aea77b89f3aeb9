//! The lifecycle payment intents and setup intents share while an authorization is not finished at
//! once: the customer authenticates on a redirect page (`awaiting_next_action`) or the processor
//! answers later (`processing`), and at a set time the service acts on its own (the redirect expires,
//! the processing finishes). Each intent keeps its statuses and what an approval means for it (a
//! payment, a hold, a saved card); what the processor's answer asks for, how a redirect ends without
//! approval, and which statuses have a background action are decided here, once.

use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// How long a customer has to finish a redirect before the attempt fails.
pub const REDIRECT_SECONDS: i64 = 30 * 60;

/// What the processor answered for an authorization (a payment attempt, a card to save).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorizationOutcome {
    Approved,
    Declined(PaymentError),
    /// The customer must authenticate on a page; the redirect is pending.
    RedirectRequired,
    /// The processor answers later.
    Processing {
        finishes_at: Timestamp,
    },
}

/// Why the latest authorization failed (`last_payment_error`, `last_setup_error`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PaymentError {
    pub code: String,
    pub detail: String,
}

impl PaymentError {
    #[must_use]
    pub fn new(code: &str, detail: &str) -> Self {
        Self { code: code.to_owned(), detail: detail.to_owned() }
    }
}

/// How a test helper ends a pending authorization before the customer or the processor does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Approve,
    /// Declined with this error, or without one as the test page's "Fail" button declines
    /// (`authentication_failed`; a processing attempt fails `generic_decline`).
    Decline(Option<PaymentError>),
}

impl Verdict {
    /// What the test authorization page's buttons say: "Authorize" approves, "Fail" declines.
    #[must_use]
    pub fn of_page(authorized: bool) -> Self {
        if authorized {
            Self::Approve
        } else {
            Self::Decline(None)
        }
    }

    /// The decline a processing attempt settles with, if any.
    #[must_use]
    pub fn processing_decline(&self) -> Option<PaymentError> {
        match self {
            Self::Approve => None,
            Self::Decline(chosen) => {
                Some(chosen.clone().unwrap_or_else(|| PaymentError::new("generic_decline", "The processor declined.")))
            }
        }
    }
}

/// The error of a decline a test helper chose by its code.
#[must_use]
pub fn chosen_decline(code: &str) -> PaymentError {
    PaymentError::new(code, &format!("Declined with {code} by a test helper."))
}

/// Whether `code` can be a decline code: 1 to 64 lowercase letters, digits and underscores,
/// starting with a letter.
#[must_use]
pub fn is_decline_code(code: &str) -> bool {
    (1..=64).contains(&code.len())
        && code.starts_with(|first: char| first.is_ascii_lowercase())
        && code.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// What a processor's answer asks the intent to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Approved: the intent finishes (pays, holds or saves).
    Approve,
    /// Declined, or a redirect that could not be prepared: the intent awaits another payment method.
    Fail(PaymentError),
    /// The customer authenticates on the page `url` (its secret `token`) until `due_at`.
    AwaitRedirect { token: String, url: String, due_at: Timestamp },
    /// The processor answers by `due_at`.
    AwaitProcessor { due_at: Timestamp },
}

impl Step {
    /// What `outcome` asks for at `now`; `redirect` is the page prepared for a redirect, if any.
    #[must_use]
    pub fn of(outcome: AuthorizationOutcome, redirect: Option<(String, String)>, now: Timestamp) -> Self {
        match (outcome, redirect) {
            (AuthorizationOutcome::Approved, _) => Self::Approve,
            (AuthorizationOutcome::Declined(error), _) => Self::Fail(error),
            (AuthorizationOutcome::RedirectRequired, Some((token, url))) => {
                Self::AwaitRedirect { token, url, due_at: now.plus_seconds(REDIRECT_SECONDS) }
            }
            (AuthorizationOutcome::RedirectRequired, None) => {
                Self::Fail(PaymentError::new("processing_error", "The redirect could not be prepared."))
            }
            (AuthorizationOutcome::Processing { finishes_at }, _) => Self::AwaitProcessor { due_at: finishes_at },
        }
    }
}

/// The customer failed to authenticate `what` ("payment", "card") on the redirect page.
#[must_use]
pub fn authentication_failed(what: &str) -> PaymentError {
    PaymentError::new("authentication_failed", &format!("The customer failed to authenticate the {what}."))
}

/// The customer left the redirect page for `what` ("payment", "card") unfinished until it expired.
#[must_use]
pub fn authentication_expired(what: &str) -> PaymentError {
    PaymentError::new("authentication_expired", &format!("The customer did not authenticate the {what} in time."))
}

/// What the service does on its own when a waiting intent's time comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DueAction {
    /// A redirect the customer abandoned fails with `authentication_expired`.
    ExpireRedirect,
    /// A processing authorization finishes with the processor's approval.
    FinishProcessing,
    /// An authorization hold past `capture_before_at` is released (payment intents).
    ReleaseHold,
}

/// Whether an action set for `due_at` has fallen due at `now`.
#[must_use]
pub fn is_due(due_at: Option<Timestamp>, now: Timestamp) -> bool {
    due_at.is_some_and(|due| now >= due)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Timestamp = Timestamp::from_unix_seconds(1_700_000_000);

    #[test]
    fn each_answer_asks_for_its_step() {
        let page = || Some(("token".to_owned(), "https://pay.example/r/token".to_owned()));
        assert_eq!(Step::of(AuthorizationOutcome::Approved, None, NOW), Step::Approve);
        let declined = PaymentError::new("card_declined", "The card was declined.");
        assert_eq!(Step::of(AuthorizationOutcome::Declined(declined.clone()), page(), NOW), Step::Fail(declined));
        assert_eq!(
            Step::of(AuthorizationOutcome::RedirectRequired, page(), NOW),
            Step::AwaitRedirect {
                token: "token".into(),
                url: "https://pay.example/r/token".into(),
                due_at: NOW.plus_seconds(REDIRECT_SECONDS),
            }
        );
        let Step::Fail(unprepared) = Step::of(AuthorizationOutcome::RedirectRequired, None, NOW) else {
            panic!("a redirect without a page cannot wait")
        };
        assert_eq!(unprepared.code, "processing_error");
        let later = NOW.plus_seconds(5);
        assert_eq!(
            Step::of(AuthorizationOutcome::Processing { finishes_at: later }, None, NOW),
            Step::AwaitProcessor { due_at: later }
        );
    }

    #[test]
    fn a_decline_code_is_a_lowercase_word() {
        assert!(is_decline_code("card_declined") && is_decline_code("funds_insufficient") && is_decline_code("e2"));
        for bad in ["", "Card", "9lives", "card-declined", "café", &"a".repeat(65)] {
            assert!(!is_decline_code(bad), "{bad}");
        }
        assert_eq!(chosen_decline("blocked").code, "blocked");
    }

    #[test]
    fn an_action_is_due_from_its_time_on() {
        assert!(!is_due(None, NOW));
        assert!(!is_due(Some(NOW.plus_seconds(1)), NOW));
        assert!(is_due(Some(NOW), NOW));
        assert!(is_due(Some(NOW.plus_seconds(-1)), NOW));
    }
}
