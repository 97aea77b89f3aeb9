//! The lifecycle payment intents and setup intents share while an authorization is not finished at
//! once: the customer authenticates on a redirect page (`awaiting_next_action`) or the processor
//! answers later (`processing`), and at a set time the service acts on its own (the redirect expires,
//! the processing finishes). Each intent keeps its statuses and what an approval means for it (a
//! payment, a hold, a saved card); what the processor's answer asks for, how a redirect ends without
//! approval, and which statuses have a background action are decided here, once.

use crate::error::DomainError;
use crate::payment_method::PaymentMethodType;
use crate::time::Timestamp;
use crate::validation::FieldError;
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

/// Where an intent stands, as the lifecycle it shares with the other kind of intent sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Awaiting a payment method (`awaiting_payment_method`): an attach may start an authorization.
    AwaitingMethod,
    /// Awaiting the customer on the redirect page (`awaiting_next_action`).
    AwaitingRedirect,
    /// Awaiting the processor's answer (`processing`).
    Processing,
    /// Any other status: what follows an approval, or the end.
    Beyond,
}

/// What a pending authorization waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Waiting {
    /// The customer, on the page `url` with the secret `token`.
    Redirect { token: String, url: String },
    /// The processor.
    Processor,
}

/// The seal on the lifecycle's steps: only this module makes one, so an intent's [`Authorizing`]
/// steps are taken through the lifecycle's transitions alone, never called on their own.
pub struct Seal(());

/// An intent whose authorization may wait for the customer's redirect or for the processor: a
/// payment intent (it authorizes a payment attempt) or a setup intent (a card to save). The
/// transitions they share are written once, as this trait's provided methods; each intent says, in
/// the sealed steps, what its statuses are and what an approval and a failure mean for it.
pub trait Authorizing {
    /// What waits for an answer: a payment attempt, a card being saved.
    type Pending;
    /// What a step came to, for the service to record (a payment, a saved card, events).
    type Result;
    /// What the customer authenticates ("payment", "card"), in the errors of a failed redirect.
    const SUBJECT: &'static str;
    /// The intent's resource name (`payment_intent`), in the error of a canceled one.
    const RESOURCE: &'static str;
    /// What the intent is for ("payment", "setup"), in the error of a canceled one.
    const PURPOSE: &'static str;

    /// Where the intent stands.
    fn stage(&self) -> Stage;

    /// When the intent's background action falls due.
    fn action_due_at(&self) -> Option<Timestamp>;

    /// The refusal of `action` in the intent's status.
    fn refuse(&self, action: &'static str) -> DomainError;

    /// Makes the intent wait for `waiting` with `pending`, until `due_at`.
    fn wait(&mut self, pending: Self::Pending, waiting: Waiting, due_at: Timestamp, seal: Seal) -> Self::Result;

    /// Takes the pending authorization out, and the background action off.
    fn take_pending(&mut self, seal: Seal) -> Option<Self::Pending>;

    /// The authorization was approved.
    fn approve(&mut self, pending: Self::Pending, now: Timestamp, seal: Seal) -> Self::Result;

    /// The authorization failed with `error`: the intent awaits another payment method.
    fn fail(&mut self, pending: Self::Pending, error: PaymentError, seal: Seal) -> Self::Result;

    /// Marks the intent changed at `now`.
    fn touch(&mut self, now: Timestamp, seal: Seal);

    /// Why the latest authorization failed, if it did.
    fn last_error(&self) -> Option<&PaymentError>;

    /// Whether the intent was canceled.
    fn is_canceled(&self) -> bool;

    /// How the authorization stands for the customer back from the redirect page: `None` when it
    /// went through (or goes on with the processor), else the error it ended with.
    fn redirect_outcome(&self) -> Option<PaymentError> {
        match self.stage() {
            Stage::Processing => None,
            Stage::AwaitingMethod | Stage::AwaitingRedirect => {
                Some(self.last_error().cloned().unwrap_or_else(|| authentication_failed(Self::SUBJECT)))
            }
            Stage::Beyond if self.is_canceled() => Some(PaymentError::new(
                &format!("{}_canceled", Self::RESOURCE),
                &format!("The {} was canceled.", Self::PURPOSE),
            )),
            Stage::Beyond => None,
        }
    }

    /// Records the processor's answer to `pending` (the intent has checked that it may be
    /// attached): approved, failed, or waiting for the customer on `redirect` (the page prepared,
    /// token and URL) or for the processor.
    fn record_answer(
        &mut self,
        pending: Self::Pending,
        outcome: AuthorizationOutcome,
        redirect: Option<(String, String)>,
        now: Timestamp,
    ) -> Self::Result {
        let result = match Step::of(outcome, redirect, now) {
            Step::Approve => self.approve(pending, now, Seal(())),
            Step::Fail(error) => self.fail(pending, error, Seal(())),
            Step::AwaitRedirect { token, url, due_at } => {
                self.wait(pending, Waiting::Redirect { token, url }, due_at, Seal(()))
            }
            Step::AwaitProcessor { due_at } => self.wait(pending, Waiting::Processor, due_at, Seal(())),
        };
        self.touch(now, Seal(()));
        result
    }

    /// The redirect ends: on the test authorization page, or through a test helper. Approved, or
    /// declined with the chosen error (else `authentication_failed`); a redirect past its time
    /// expires instead (`authentication_expired`), whatever the verdict.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting the redirect.
    fn complete_redirect(&mut self, verdict: &Verdict, now: Timestamp) -> Result<Self::Result, DomainError> {
        let expired = is_due(self.action_due_at(), now);
        let pending = take_pending_in(self, Stage::AwaitingRedirect, "authenticate")?;
        let result = match verdict {
            _ if expired => self.fail(pending, authentication_expired(Self::SUBJECT), Seal(())),
            Verdict::Approve => self.approve(pending, now, Seal(())),
            Verdict::Decline(error) => {
                let error = error.clone().unwrap_or_else(|| authentication_failed(Self::SUBJECT));
                self.fail(pending, error, Seal(()))
            }
        };
        self.touch(now, Seal(()));
        Ok(result)
    }

    /// An abandoned redirect expires: the authorization fails with `authentication_expired`.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting a redirect that is due.
    fn expire_redirect(&mut self, now: Timestamp) -> Result<Self::Result, DomainError> {
        if !is_due(self.action_due_at(), now) {
            return Err(self.refuse("expire the redirect of"));
        }
        let pending = take_pending_in(self, Stage::AwaitingRedirect, "expire the redirect of")?;
        let result = self.fail(pending, authentication_expired(Self::SUBJECT), Seal(()));
        self.touch(now, Seal(()));
        Ok(result)
    }

    /// The processor finished a `processing` authorization with an approval.
    ///
    /// # Errors
    /// `resource_invalid_state` unless processing and due.
    fn finish_processing(&mut self, now: Timestamp) -> Result<Self::Result, DomainError> {
        if !is_due(self.action_due_at(), now) {
            return Err(self.refuse("finish processing"));
        }
        self.settle_processing(None, now)
    }

    /// The processor answers a `processing` authorization now, before its time: an approval, or
    /// the decline `decline` (a test helper settling it).
    ///
    /// # Errors
    /// `resource_invalid_state` unless processing.
    fn settle_processing(
        &mut self,
        decline: Option<PaymentError>,
        now: Timestamp,
    ) -> Result<Self::Result, DomainError> {
        settle_in(self, Stage::Processing, decline, now)
    }

    /// A live processor decided an authorization that awaited the customer on its page (3-D
    /// Secure, an e-wallet): an approval, or the decline `decline`. The processor's word stands
    /// whenever it comes, past the page's time too.
    ///
    /// # Errors
    /// `resource_invalid_state` unless awaiting the customer.
    fn settle_processor_action(
        &mut self,
        decline: Option<PaymentError>,
        now: Timestamp,
    ) -> Result<Self::Result, DomainError> {
        settle_in(self, Stage::AwaitingRedirect, decline, now)
    }
}

/// Settles the pending authorization of an intent in `stage`: approved, or declined with `decline`.
fn settle_in<I: Authorizing + ?Sized>(
    intent: &mut I,
    stage: Stage,
    decline: Option<PaymentError>,
    now: Timestamp,
) -> Result<I::Result, DomainError> {
    let pending = take_pending_in(intent, stage, "settle")?;
    let result = match decline {
        None => intent.approve(pending, now, Seal(())),
        Some(error) => intent.fail(pending, error, Seal(())),
    };
    intent.touch(now, Seal(()));
    Ok(result)
}

/// The pending authorization of an intent in `stage`, taken out.
fn take_pending_in<I: Authorizing + ?Sized>(
    intent: &mut I,
    stage: Stage,
    action: &'static str,
) -> Result<I::Pending, DomainError> {
    if intent.stage() != stage {
        return Err(intent.refuse(action));
    }
    intent.take_pending(Seal(())).ok_or_else(|| intent.refuse(action))
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

/// Refuses to attach `method` to `intent` unless it awaits a payment method and `allowed` holds
/// the method.
///
/// # Errors
/// `resource_invalid_state` unless awaiting a payment method; `parameter_invalid` for a method the
/// intent does not allow.
pub fn ensure_attachable<I: Authorizing>(
    intent: &I,
    allowed: &[PaymentMethodType],
    method: PaymentMethodType,
) -> Result<(), DomainError> {
    if intent.stage() != Stage::AwaitingMethod {
        return Err(intent.refuse("attach a payment method to"));
    }
    if !allowed.contains(&method) {
        let intent = I::RESOURCE.replace('_', " ");
        return Err(DomainError::Invalid(FieldError::invalid(
            "payment_method[type]",
            format!("This {intent} does not allow {}.", method.as_str()),
        )));
    }
    Ok(())
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
