//! Operations sent to a live processor, written ahead of the call. An operation (authorize,
//! capture, void, refund) is recorded in the transaction that claims what it acts on, with the
//! idempotency key the processor will get, before the processor is asked. Its outcome is recorded
//! after. When the outcome is unknown (the request left and no answer came), the processor is asked
//! what it did on a backing-off schedule that ends inside the window in which processors keep an
//! idempotency key (24 hours at PayMongo and Stripe). Until then a retry of the operation is the same
//! request, and the processor does it at most once.

use crate::balance::Centavos;
use crate::ids::{AccountId, PaymentId, PaymentIntentId, RefundId};
use crate::time::Timestamp;
use std::fmt;

/// What an operation asks of the processor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperationKind {
    /// Authorize the payment: capture it too, with automatic capture.
    Authorize,
    /// Capture some or all of the payment's hold.
    Capture,
    /// Release the payment's hold.
    Void,
    /// Refund some or all of the payment, as the refund the service made.
    Refund(RefundId),
}

impl OperationKind {
    /// The kind named `name`, with the refund it is for when a refund.
    #[must_use]
    pub fn parse(name: &str, refund: Option<RefundId>) -> Option<Self> {
        match (name, refund) {
            ("authorize", None) => Some(Self::Authorize),
            ("capture", None) => Some(Self::Capture),
            ("void", None) => Some(Self::Void),
            ("refund", Some(refund)) => Some(Self::Refund(refund)),
            _ => None,
        }
    }

    /// The refund a refund operation is for.
    #[must_use]
    pub fn refund(&self) -> Option<&RefundId> {
        match self {
            Self::Refund(refund) => Some(refund),
            Self::Authorize | Self::Capture | Self::Void => None,
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Authorize => "authorize",
            Self::Capture => "capture",
            Self::Void => "void",
            Self::Refund(_) => "refund",
        }
    }
}

/// The idempotency key an operation's first attempt is sent with, made from what it acts on. A
/// retry after a restart, or the janitor's, is then the same request to the processor:
/// `pay_…:authorize`, `pay_…:capture`, `pay_…:void`, `re_…:refund`. A payment is authorized,
/// captured and voided at most once (a partial capture releases the rest), so its id and the
/// operation name the request. A payment's refunds are many, so each refund names its own. An
/// attempt after the processor refused one is a new request, with a key of its own
/// ([`ProcessorOperation::after_refusal`]).
#[must_use]
pub fn idempotency_key(payment: &PaymentId, kind: &OperationKind) -> String {
    attempt_key(payment, kind, 1)
}

/// The idempotency key of an operation's `attempt`: the first attempt's key, then `…:2`, `…:3`.
fn attempt_key(payment: &PaymentId, kind: &OperationKind, attempt: u32) -> String {
    let first = match kind {
        OperationKind::Refund(refund) => refund_idempotency_key(refund),
        other => format!("{payment}:{}", other.as_str()),
    };
    if attempt > 1 {
        format!("{first}:{attempt}")
    } else {
        first
    }
}

/// The idempotency key of a refund's operation: `re_…:refund`.
#[must_use]
pub fn refund_idempotency_key(refund: &RefundId) -> String {
    format!("{refund}:refund")
}

/// How long processors keep an idempotency key. A request repeated after this could be done twice.
pub const KEY_WINDOW_SECONDS: i64 = 24 * 3_600;
/// The janitor stops asking this long before the key window closes, and leaves the operation to
/// the operator.
const KEY_WINDOW_MARGIN_SECONDS: i64 = 3_600;
/// The delays before each check of an operation whose outcome is unknown, counted from the answer
/// that settled nothing (the first check comes 30 seconds after the call). The last is repeated
/// until the key window's margin.
const CHECK_DELAYS_SECONDS: [i64; 6] = [30, 120, 600, 1_800, 3_600, 4 * 3_600];
/// How long an operation may stay `Sending` before it is taken for one whose outcome is unknown:
/// longer than any connector waits for an answer, so a process that stopped mid-call is noticed.
pub const SENDING_TIMEOUT_SECONDS: i64 = 300;
/// How long after an operation was sent the processor's having no record of it proves it never
/// arrived: longer than any request a connector sends can be in flight (a processor may take more
/// than two minutes to authorize a card), so no request of it can still land.
pub const ABSENCE_PROOF_SECONDS: i64 = 15 * 60;

/// Where an operation stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperationState {
    /// Written. The processor is being asked, or was by a process that stopped before it recorded
    /// the answer.
    Sending,
    /// The processor did it. The reference is its id for the payment or the refund.
    Succeeded { processor_reference: String },
    /// The processor refused, and nothing moved.
    Refused { code: String, detail: String },
    /// The request never reached the processor, and nothing moved. What it claimed is given back.
    NotSent,
    /// The request may have reached the processor. It is asked again at `next_check_at`.
    Unknown { checks: u32, next_check_at: Timestamp },
    /// No answer before the key window's margin: the operator settles it with the processor.
    Unresolved,
}

impl OperationState {
    /// Its name, as stored.
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Sending => "sending",
            Self::Succeeded { .. } => "succeeded",
            Self::Refused { .. } => "refused",
            Self::NotSent => "not_sent",
            Self::Unknown { .. } => "unknown",
            Self::Unresolved => "unresolved",
        }
    }

    /// The states of an operation the processor has not answered (`sending`, `unknown`, and
    /// `unresolved`, left to the operator), by their stored names.
    pub const UNANSWERED: [&'static str; 3] = ["sending", "unknown", "unresolved"];

    /// Whether the processor has not answered it: being sent, asked about, or left to the operator.
    #[must_use]
    pub fn is_unanswered(&self) -> bool {
        Self::UNANSWERED.contains(&self.as_str())
    }

    /// Whether nothing more will happen to the operation.
    #[must_use]
    pub fn is_final(&self) -> bool {
        match self {
            Self::Succeeded { .. } | Self::Refused { .. } | Self::NotSent | Self::Unresolved => true,
            Self::Sending | Self::Unknown { .. } => false,
        }
    }
}

/// What came of asking the processor: to do the operation, or what it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Done {
        processor_reference: String,
    },
    Refused {
        code: String,
        detail: String,
    },
    /// The request never left, or the processor has no record of it.
    NotSent,
    /// The request left and no answer came (a timeout, a 5xx, a dropped connection).
    NoAnswer,
}

/// An answer recorded against an operation that can take none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlreadySettled {
    pub state: OperationState,
}

impl fmt::Display for AlreadySettled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the operation was already settled: {:?}", self.state)
    }
}

/// One operation, as written ahead of its call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessorOperation {
    /// Its idempotency key, which names it.
    key: String,
    account_id: AccountId,
    livemode: bool,
    /// The intent whose payment it acts on.
    payment_intent: PaymentIntentId,
    payment: PaymentId,
    kind: OperationKind,
    /// Which attempt of its kind it is: 1, then one more after each refusal.
    attempt: u32,
    /// What it moves: the authorized, captured or refunded amount (a void's, the hold).
    amount: Centavos,
    state: OperationState,
    created_at: Timestamp,
    /// When its request was last sent: written, or sent again after it was not sent.
    sent_at: Timestamp,
    updated_at: Timestamp,
    version: i64,
}

/// An operation as a repository stores it, to restore it with [`ProcessorOperation::restore`].
#[derive(Debug, Clone)]
pub struct StoredProcessorOperation {
    pub account_id: AccountId,
    pub livemode: bool,
    pub payment_intent: PaymentIntentId,
    pub payment: PaymentId,
    pub kind: OperationKind,
    pub attempt: u32,
    pub amount: Centavos,
    pub state: OperationState,
    pub created_at: Timestamp,
    pub sent_at: Timestamp,
    pub updated_at: Timestamp,
    pub version: i64,
}

impl ProcessorOperation {
    /// An operation of the account's mode written at `now`, before the processor is asked.
    #[must_use]
    pub fn written(
        (account_id, livemode): (AccountId, bool),
        (payment_intent, payment): (PaymentIntentId, PaymentId),
        kind: OperationKind,
        amount: Centavos,
        now: Timestamp,
    ) -> Self {
        Self::restore(StoredProcessorOperation {
            account_id,
            livemode,
            payment_intent,
            payment,
            kind,
            attempt: 1,
            amount,
            state: OperationState::Sending,
            created_at: now,
            sent_at: now,
            updated_at: now,
            version: 1,
        })
    }

    /// The next attempt of a refused operation, written at `now` for `amount`: a new request with
    /// a key of its own, since a processor answers a key it refused with the same refusal.
    ///
    /// # Errors
    /// [`AlreadySettled`] unless `refused` was refused.
    pub fn after_refusal(refused: &Self, amount: Centavos, now: Timestamp) -> Result<Self, AlreadySettled> {
        if !matches!(refused.state, OperationState::Refused { .. }) {
            return Err(AlreadySettled { state: refused.state.clone() });
        }
        let mut next = Self::written(
            (refused.account_id.clone(), refused.livemode),
            (refused.payment_intent.clone(), refused.payment.clone()),
            refused.kind.clone(),
            amount,
            now,
        );
        next.attempt = refused.attempt.saturating_add(1);
        next.key = attempt_key(&next.payment, &next.kind, next.attempt);
        Ok(next)
    }

    #[must_use]
    pub fn restore(stored: StoredProcessorOperation) -> Self {
        let StoredProcessorOperation {
            account_id,
            livemode,
            payment_intent,
            payment,
            kind,
            attempt,
            amount,
            state,
            created_at,
            sent_at,
            updated_at,
            version,
        } = stored;
        let key = attempt_key(&payment, &kind, attempt);
        Self {
            key,
            account_id,
            livemode,
            payment_intent,
            payment,
            kind,
            attempt,
            amount,
            state,
            created_at,
            sent_at,
            updated_at,
            version,
        }
    }

    #[must_use]
    pub fn account_id(&self) -> &AccountId {
        &self.account_id
    }
    #[must_use]
    pub fn livemode(&self) -> bool {
        self.livemode
    }
    #[must_use]
    pub fn version(&self) -> i64 {
        self.version
    }

    /// Sends again, with the same key, an operation that was not sent: the caller asked for it
    /// again, and the processor never saw it.
    ///
    /// # Errors
    /// [`AlreadySettled`] for one being sent, done, refused, unknown or unresolved: it must not be
    /// sent twice (a refused one is attempted again with [`Self::after_refusal`]).
    pub fn send_again(&mut self, amount: Centavos, now: Timestamp) -> Result<(), AlreadySettled> {
        match self.state {
            OperationState::NotSent => {
                self.state = OperationState::Sending;
                self.amount = amount;
                self.sent_at = now;
                self.updated_at = now;
                self.version += 1;
                Ok(())
            }
            _ => Err(AlreadySettled { state: self.state.clone() }),
        }
    }

    /// When the janitor asks the processor about it next: an unknown one at its next check, one
    /// still `Sending` after [`SENDING_TIMEOUT_SECONDS`]; never a final one.
    #[must_use]
    pub fn next_check_at(&self) -> Option<Timestamp> {
        match &self.state {
            OperationState::Sending => Some(self.sent_at.plus_millis(SENDING_TIMEOUT_SECONDS * 1_000)),
            OperationState::Unknown { next_check_at, .. } => Some(*next_check_at),
            OperationState::Succeeded { .. }
            | OperationState::Refused { .. }
            | OperationState::NotSent
            | OperationState::Unresolved => None,
        }
    }

    #[must_use]
    pub fn payment_intent(&self) -> &PaymentIntentId {
        &self.payment_intent
    }
    #[must_use]
    pub fn payment(&self) -> &PaymentId {
        &self.payment
    }
    #[must_use]
    pub fn kind(&self) -> &OperationKind {
        &self.kind
    }
    #[must_use]
    pub fn attempt(&self) -> u32 {
        self.attempt
    }
    #[must_use]
    pub fn sent_at(&self) -> Timestamp {
        self.sent_at
    }
    #[must_use]
    pub fn amount(&self) -> Centavos {
        self.amount
    }
    #[must_use]
    pub fn state(&self) -> &OperationState {
        &self.state
    }
    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }
    #[must_use]
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at
    }

    /// The idempotency key it is sent with ([`idempotency_key`]), which names it.
    #[must_use]
    pub fn idempotency_key(&self) -> &str {
        &self.key
    }

    /// Records the processor's answer at `now`. The answer to the call moves a `Sending` operation on.
    /// The answer to a check moves an `Unknown` one on. An answer that settles nothing leaves it
    /// unknown until its next check, or unresolved once the key window's margin is reached.
    ///
    /// # Errors
    /// [`AlreadySettled`] for an operation already final: its outcome stands.
    pub fn record(&mut self, answer: Answer, now: Timestamp) -> Result<(), AlreadySettled> {
        let checks = match &self.state {
            OperationState::Sending => 0,
            OperationState::Unknown { checks, .. } => *checks,
            settled => return Err(AlreadySettled { state: settled.clone() }),
        };
        self.state = match answer {
            Answer::Done { processor_reference } => OperationState::Succeeded { processor_reference },
            Answer::Refused { code, detail } => OperationState::Refused { code, detail },
            Answer::NotSent => OperationState::NotSent,
            Answer::NoAnswer => self.next_check(checks, now),
        };
        self.updated_at = now;
        self.version += 1;
        Ok(())
    }

    /// After `checks` checks that settled nothing: the next one, or unresolved past the margin.
    fn next_check(&self, checks: u32, now: Timestamp) -> OperationState {
        let delays = usize::try_from(checks).unwrap_or(usize::MAX);
        let delay = CHECK_DELAYS_SECONDS.get(delays).or(CHECK_DELAYS_SECONDS.last()).copied().unwrap_or(0);
        let next_check_at = now.plus_millis(delay * 1_000);
        let last_check_at = self.created_at.plus_millis((KEY_WINDOW_SECONDS - KEY_WINDOW_MARGIN_SECONDS) * 1_000);
        if next_check_at > last_check_at {
            OperationState::Unresolved
        } else {
            OperationState::Unknown { checks: checks.saturating_add(1), next_check_at }
        }
    }

    /// What the processor's having no record of the operation at `now` tells: that it was never
    /// made once [`ABSENCE_PROOF_SECONDS`] have passed since it was sent; until then nothing, since
    /// its request may still be on its way or in the processor's hands.
    #[must_use]
    pub fn absence_at(&self, now: Timestamp) -> Answer {
        if now >= self.sent_at.plus_millis(ABSENCE_PROOF_SECONDS * 1_000) {
            Answer::NotSent
        } else {
            Answer::NoAnswer
        }
    }

    /// Whether a payment the processor made for this authorization's payment, `processor_reference`,
    /// is one no attempt holds: the service recorded the authorization as refused, never sent, or
    /// taken by another payment of the processor's. Such a payment is the processor's alone, and
    /// is released there. While the authorization is unanswered (or left to the operator), no.
    #[must_use]
    pub fn leaves_unclaimed(&self, processor_reference: &str) -> bool {
        self.kind == OperationKind::Authorize
            && match &self.state {
                OperationState::Refused { .. } | OperationState::NotSent => true,
                OperationState::Succeeded { processor_reference: taken } => taken != processor_reference,
                OperationState::Sending | OperationState::Unknown { .. } | OperationState::Unresolved => false,
            }
    }

    /// Whether the janitor should ask the processor what became of it at `now`: an unknown one at
    /// its next check, and one still `Sending` after [`SENDING_TIMEOUT_SECONDS`] (its process
    /// stopped mid-call).
    #[must_use]
    pub fn is_due_for_a_check(&self, now: Timestamp) -> bool {
        self.next_check_at().is_some_and(|at| now >= at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> (AccountId, bool) {
        (AccountId::from_random("0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8"), true)
    }

    fn intent() -> PaymentIntentId {
        PaymentIntentId::from_random("0VcKRLxIntUzS3dfAVJZjOW6tPNtjH8b")
    }

    fn payment() -> PaymentId {
        PaymentId::from_random("0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b")
    }

    /// An operation of `kind` for `amount`, written at the start.
    fn written(kind: OperationKind, amount: i64) -> ProcessorOperation {
        ProcessorOperation::written(scope(), (intent(), payment()), kind, Centavos::new(amount), START)
    }

    const START: Timestamp = Timestamp::from_unix_seconds(1_795_920_000);

    fn at(seconds: i64) -> Timestamp {
        START.plus_millis(seconds * 1_000)
    }

    #[test]
    fn an_operation_is_keyed_by_what_it_acts_on() {
        let refund = RefundId::from_random("0VcKRLxSkpvoJfzraP9cXaFluMJ2CPW2");
        let keys: Vec<String> = [OperationKind::Authorize, OperationKind::Capture, OperationKind::Void]
            .iter()
            .map(|kind| idempotency_key(&payment(), kind))
            .collect();
        assert_eq!(
            keys,
            [
                "pay_0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b:authorize",
                "pay_0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b:capture",
                "pay_0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b:void",
            ]
        );
        let operation = written(OperationKind::Refund(refund), 3_000);
        assert_eq!(operation.idempotency_key(), "re_0VcKRLxSkpvoJfzraP9cXaFluMJ2CPW2:refund");
    }

    #[test]
    fn a_payment_at_the_processor_is_unclaimed_when_its_authorization_was_recorded_without_it() {
        let recorded = |kind: OperationKind, answer: Option<Answer>| {
            let mut operation = written(kind, 10_000);
            if let Some(answer) = answer {
                operation.record(answer, at(1)).unwrap();
            }
            operation
        };
        let done = || Some(Answer::Done { processor_reference: "pi_1".to_owned() });
        let refused = || Some(Answer::Refused { code: "card_declined".to_owned(), detail: "x".to_owned() });
        let taken = recorded(OperationKind::Authorize, done());
        assert!(!taken.leaves_unclaimed("pi_1") && taken.leaves_unclaimed("pi_2"), "another payment for it");
        assert!(recorded(OperationKind::Authorize, refused()).leaves_unclaimed("pi_1"));
        assert!(recorded(OperationKind::Authorize, Some(Answer::NotSent)).leaves_unclaimed("pi_1"));
        assert!(!recorded(OperationKind::Authorize, None).leaves_unclaimed("pi_1"), "still being sent");
        assert!(!recorded(OperationKind::Authorize, Some(Answer::NoAnswer)).leaves_unclaimed("pi_1"), "asked about");
        assert!(!recorded(OperationKind::Capture, Some(Answer::NotSent)).leaves_unclaimed("pi_1"), "no authorization");
    }

    #[test]
    fn the_answer_to_the_call_settles_it_or_leaves_it_to_be_checked() {
        let reference = || Answer::Done { processor_reference: "pi_1".to_owned() };
        let mut done = written(OperationKind::Authorize, 10_000);
        assert!(!done.state().is_final());
        done.record(reference(), at(1)).unwrap();
        assert_eq!(done.state(), &OperationState::Succeeded { processor_reference: "pi_1".to_owned() });
        assert_eq!(done.updated_at(), at(1));

        let mut not_sent = written(OperationKind::Capture, 6_000);
        not_sent.record(Answer::NotSent, at(1)).unwrap();
        assert_eq!(not_sent.state(), &OperationState::NotSent);

        let mut unknown = written(OperationKind::Void, 10_000);
        unknown.record(Answer::NoAnswer, at(30)).unwrap();
        assert_eq!(unknown.state(), &OperationState::Unknown { checks: 1, next_check_at: at(60) });
        assert!(!unknown.is_due_for_a_check(at(59)) && unknown.is_due_for_a_check(at(60)));
        unknown.record(Answer::Refused { code: "charge_expired".to_owned(), detail: "x".to_owned() }, at(60)).unwrap();
        assert!(unknown.state().is_final());
    }

    #[test]
    fn a_settled_operation_takes_no_other_answer() {
        let mut done = written(OperationKind::Authorize, 10_000);
        done.record(Answer::Done { processor_reference: "pi_1".to_owned() }, at(1)).unwrap();
        for answer in [Answer::NotSent, Answer::NoAnswer, Answer::Done { processor_reference: "pi_2".to_owned() }] {
            let refused = done.clone().record(answer, at(2)).unwrap_err();
            assert_eq!(refused.state, OperationState::Succeeded { processor_reference: "pi_1".to_owned() });
        }
    }

    #[test]
    fn checks_back_off_and_stop_inside_the_processors_key_window() {
        let mut operation = written(OperationKind::Authorize, 10_000);
        let mut now = at(10);
        let mut checks_at = Vec::new();
        loop {
            operation.record(Answer::NoAnswer, now).unwrap();
            match operation.state().clone() {
                OperationState::Unknown { next_check_at, .. } => {
                    assert!(next_check_at > now);
                    checks_at.push(next_check_at.millis_since(START) / 1_000);
                    now = next_check_at;
                }
                OperationState::Unresolved => break,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(&checks_at[..6], &[40, 160, 760, 2_560, 6_160, 20_560]);
        let last = *checks_at.last().unwrap();
        assert!(last <= KEY_WINDOW_SECONDS - KEY_WINDOW_MARGIN_SECONDS, "{checks_at:?}");
        assert!(operation.state().is_final() && !operation.is_due_for_a_check(at(KEY_WINDOW_SECONDS)));
    }

    #[test]
    fn a_refused_operation_is_attempted_again_under_a_key_of_its_own() {
        let mut capture = written(OperationKind::Capture, 6_000);
        assert!(ProcessorOperation::after_refusal(&capture, Centavos::new(6_000), at(1)).is_err());
        assert!(capture.clone().send_again(Centavos::new(6_000), at(1)).is_err(), "still sending");
        capture.record(Answer::Refused { code: "processing_error".to_owned(), detail: "x".to_owned() }, at(1)).unwrap();
        assert!(capture.clone().send_again(Centavos::new(6_000), at(2)).is_err(), "a refused key is never resent");
        let second = ProcessorOperation::after_refusal(&capture, Centavos::new(5_000), at(2)).unwrap();
        assert_eq!(second.idempotency_key(), "pay_0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b:capture:2");
        assert_eq!(
            (second.attempt(), second.amount(), second.state()),
            (2, Centavos::new(5_000), &OperationState::Sending)
        );
        let restored = ProcessorOperation::restore(StoredProcessorOperation {
            account_id: second.account_id().clone(),
            livemode: true,
            payment_intent: intent(),
            payment: payment(),
            kind: OperationKind::Capture,
            attempt: 2,
            amount: second.amount(),
            state: second.state().clone(),
            created_at: second.created_at(),
            sent_at: second.sent_at(),
            updated_at: second.updated_at(),
            version: second.version(),
        });
        assert_eq!(restored, second);
    }

    #[test]
    fn the_processor_not_knowing_an_operation_proves_nothing_until_no_request_can_still_land() {
        let mut operation = written(OperationKind::Authorize, 10_000);
        operation.record(Answer::NoAnswer, at(80)).unwrap();
        assert_eq!(operation.absence_at(at(110)), Answer::NoAnswer);
        assert_eq!(operation.absence_at(at(ABSENCE_PROOF_SECONDS - 1)), Answer::NoAnswer);
        assert_eq!(operation.absence_at(at(ABSENCE_PROOF_SECONDS)), Answer::NotSent);

        let mut resent = operation.clone();
        resent.record(Answer::NotSent, at(ABSENCE_PROOF_SECONDS)).unwrap();
        resent.send_again(Centavos::new(10_000), at(ABSENCE_PROOF_SECONDS + 5)).unwrap();
        assert_eq!(resent.absence_at(at(ABSENCE_PROOF_SECONDS + 10)), Answer::NoAnswer, "counted from the new send");
    }

    #[test]
    fn an_operation_left_sending_by_a_stopped_process_is_checked() {
        let operation = written(OperationKind::Authorize, 10_000);
        assert!(!operation.is_due_for_a_check(at(SENDING_TIMEOUT_SECONDS - 1)));
        assert!(operation.is_due_for_a_check(at(SENDING_TIMEOUT_SECONDS)));
    }
}
