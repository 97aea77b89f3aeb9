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

/// The idempotency key an operation is sent with, made from what it acts on. A retry after a
/// restart, or the janitor's, is then the same request to the processor: `pay_…:authorize`,
/// `pay_…:capture`, `pay_…:void`, `re_…:refund`. A payment is authorized, captured and voided at
/// most once (a partial capture releases the rest), so its id and the operation name the request.
/// A payment's refunds are many, so each refund names its own.
#[must_use]
pub fn idempotency_key(payment: &PaymentId, kind: &OperationKind) -> String {
    match kind {
        OperationKind::Refund(refund) => refund_idempotency_key(refund),
        other => format!("{payment}:{}", other.as_str()),
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
/// The delays between the checks of an operation whose outcome is unknown, after the first (which
/// falls due at once). The last is repeated until the key window's margin.
const CHECK_DELAYS_SECONDS: [i64; 6] = [30, 120, 600, 1_800, 3_600, 4 * 3_600];
/// How long an operation may stay `Sending` before it is taken for one whose outcome is unknown:
/// longer than any connector waits for an answer, so a process that stopped mid-call is noticed.
pub const SENDING_TIMEOUT_SECONDS: i64 = 120;

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
    /// What it moves: the authorized, captured or refunded amount (a void's, the hold).
    amount: Centavos,
    state: OperationState,
    created_at: Timestamp,
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
    pub amount: Centavos,
    pub state: OperationState,
    pub created_at: Timestamp,
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
            amount,
            state: OperationState::Sending,
            created_at: now,
            updated_at: now,
            version: 1,
        })
    }

    #[must_use]
    pub fn restore(stored: StoredProcessorOperation) -> Self {
        let StoredProcessorOperation {
            account_id,
            livemode,
            payment_intent,
            payment,
            kind,
            amount,
            state,
            created_at,
            updated_at,
            version,
        } = stored;
        let key = idempotency_key(&payment, &kind);
        Self {
            key,
            account_id,
            livemode,
            payment_intent,
            payment,
            kind,
            amount,
            state,
            created_at,
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

    /// Sends again, with the same key, an operation that was not sent or that the processor
    /// refused: the caller asked for it again, and nothing moved the first time.
    ///
    /// # Errors
    /// [`AlreadySettled`] for one being sent, done, unknown or unresolved: it must not be sent twice.
    pub fn send_again(&mut self, amount: Centavos, now: Timestamp) -> Result<(), AlreadySettled> {
        match self.state {
            OperationState::NotSent | OperationState::Refused { .. } => {
                self.state = OperationState::Sending;
                self.amount = amount;
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
            OperationState::Sending => Some(self.updated_at.plus_millis(SENDING_TIMEOUT_SECONDS * 1_000)),
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
        let operation = ProcessorOperation::written(
            scope(),
            (intent(), payment()),
            OperationKind::Refund(refund),
            Centavos::new(3_000),
            START,
        );
        assert_eq!(operation.idempotency_key(), "re_0VcKRLxSkpvoJfzraP9cXaFluMJ2CPW2:refund");
    }

    #[test]
    fn the_answer_to_the_call_settles_it_or_leaves_it_to_be_checked() {
        let reference = || Answer::Done { processor_reference: "pi_1".to_owned() };
        let mut done = ProcessorOperation::written(
            scope(),
            (intent(), payment()),
            OperationKind::Authorize,
            Centavos::new(10_000),
            START,
        );
        assert!(!done.state().is_final());
        done.record(reference(), at(1)).unwrap();
        assert_eq!(done.state(), &OperationState::Succeeded { processor_reference: "pi_1".to_owned() });
        assert_eq!(done.updated_at(), at(1));

        let mut not_sent = ProcessorOperation::written(
            scope(),
            (intent(), payment()),
            OperationKind::Capture,
            Centavos::new(6_000),
            START,
        );
        not_sent.record(Answer::NotSent, at(1)).unwrap();
        assert_eq!(not_sent.state(), &OperationState::NotSent);

        let mut unknown = ProcessorOperation::written(
            scope(),
            (intent(), payment()),
            OperationKind::Void,
            Centavos::new(10_000),
            START,
        );
        unknown.record(Answer::NoAnswer, at(30)).unwrap();
        assert_eq!(unknown.state(), &OperationState::Unknown { checks: 1, next_check_at: at(60) });
        assert!(!unknown.is_due_for_a_check(at(59)) && unknown.is_due_for_a_check(at(60)));
        unknown.record(Answer::Refused { code: "charge_expired".to_owned(), detail: "x".to_owned() }, at(60)).unwrap();
        assert!(unknown.state().is_final());
    }

    #[test]
    fn a_settled_operation_takes_no_other_answer() {
        let mut done = ProcessorOperation::written(
            scope(),
            (intent(), payment()),
            OperationKind::Authorize,
            Centavos::new(10_000),
            START,
        );
        done.record(Answer::Done { processor_reference: "pi_1".to_owned() }, at(1)).unwrap();
        for answer in [Answer::NotSent, Answer::NoAnswer, Answer::Done { processor_reference: "pi_2".to_owned() }] {
            let refused = done.clone().record(answer, at(2)).unwrap_err();
            assert_eq!(refused.state, OperationState::Succeeded { processor_reference: "pi_1".to_owned() });
        }
    }

    #[test]
    fn checks_back_off_and_stop_inside_the_processors_key_window() {
        let mut operation = ProcessorOperation::written(
            scope(),
            (intent(), payment()),
            OperationKind::Authorize,
            Centavos::new(10_000),
            START,
        );
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
    fn an_operation_left_sending_by_a_stopped_process_is_checked() {
        let operation = ProcessorOperation::written(
            scope(),
            (intent(), payment()),
            OperationKind::Authorize,
            Centavos::new(10_000),
            START,
        );
        assert!(!operation.is_due_for_a_check(at(SENDING_TIMEOUT_SECONDS - 1)));
        assert!(operation.is_due_for_a_check(at(SENDING_TIMEOUT_SECONDS)));
    }
}
