//! Live payments through the account's processor connector. An attach, a capture and a cancel of a
//! hold are each written ahead of the processor call: one transaction claims what the operation
//! acts on and writes the operation with its idempotency key; the connector is called outside any
//! transaction with that key; a second transaction records the answer. An operation whose answer
//! never came is asked for by the janitor ([`PaymentIntentService::check_operation`]), as due work.

use super::*;
use crate::ports::connector::{
    wait, AuthorizeRequest, CaptureMethod, ConnectorError, ConnectorMethod, CustomerAction, PaymentConnector,
    ProcessorPayment, ProcessorPaymentState,
};
use crate::services::due::Due;
use crate::services::pending_authorization::completion;
use crate::services::processor_operation::{
    absent, authorized_reference, check_failed, find_operation, record_call, succeeded_reference, unasked,
};
use crate::services::redirect::{unknown_token, well_formed_token, RedirectCompletion, REDIRECT_TOKEN_LENGTH};
use payments_domain::balance::Centavos;
use payments_domain::connector_account::{AuthenticationScript, ConnectorAccount};
use payments_domain::hosted_page::HostedPage;
use payments_domain::payment_intent::CaptureType;
use payments_domain::pending_authorization::{authentication_expired, Authorizing, DueAction};
use payments_domain::processor_operation::idempotency_key;
use payments_domain::processor_operation::{Answer, OperationKind, OperationState, ProcessorOperation};

/// Why a live hold is released.
#[derive(Debug, Clone, Copy)]
enum Release {
    /// The merchant canceled the intent.
    Cancel,
    /// The hold passed `capture_before_at`.
    Expire,
}

/// What the processor said of an authorization, as the record step takes it.
type AuthorizationAnswer = Result<ProcessorPayment, ConnectorError>;

impl PaymentIntentService {
    /// The live connector of the scope's account.
    fn live_connector(&self, scope: &Scope) -> Result<Arc<dyn PaymentConnector>, ApplicationError> {
        self.processors.live.connector(scope)?.ok_or_else(no_connector)
    }

    /// A live attach: the intent is claimed (`processing`) and the authorization written ahead in
    /// one transaction, the processor is asked with the operation's key, and its answer recorded.
    /// A concurrent attach loses the claim (`resource_conflict`) and asks the processor nothing.
    pub(super) fn attach_live(
        &self,
        scope: &Scope,
        id: &str,
        access: Access<'_>,
        request: AttachRequest,
    ) -> Result<AttachOutcome, ApplicationError> {
        let connector = self.live_connector(scope)?;
        let now = self.clock.now_in(scope)?;
        let payment_id = PaymentId::from_random(&self.ids.id_part());
        let new_method_id = PaymentMethodId::from_random(&self.ids.id_part());
        let redirect_token = self.ids.alphanumeric(REDIRECT_TOKEN_LENGTH);
        let authorize = in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let before = load_view(repositories, scope, id)?;
            let AttachInput { input, saved_id, billing, save_for } =
                attach_input(repositories, scope, &before.intent, access, &request, now)?;
            let intent = &before.intent;
            let method = connector_method(&input)?;
            let capture = match intent.card_options().capture_type {
                CaptureType::Manual if input.method() == PaymentMethodType::Card => CaptureMethod::Manual,
                CaptureType::Manual | CaptureType::Automatic => CaptureMethod::Automatic,
            };
            ensure_capable(connector.capabilities(), input.method(), capture, save_for.is_some())?;
            let card = match &input {
                PaymentMethodInput::Saved(saved) => Some(saved.card.clone()),
                _ => None,
            };
            let attempt = Attempt {
                payment_method_id: saved_id.unwrap_or_else(|| new_method_id.clone()).to_string(),
                payment_method: PaymentMethodRecord { method: input.method(), card, qrph: None },
                billing,
                save_for: save_for.map(|customer_id| CardToSave {
                    customer_id: customer_id.to_string(),
                    processor_reference: String::new(),
                }),
                payment_id: Some(payment_id.to_string()),
            };
            let save_method = attempt.save_for.is_some();
            let mut claimed = intent.clone();
            claimed.claim_for_processor(attempt, request.return_url.clone(), now)?;
            repositories.payment_intents().update(&claimed, intent.version())?;
            let operation = ProcessorOperation::written(
                (scope.account_id.clone(), true),
                (intent.id().clone(), payment_id.clone()),
                OperationKind::Authorize,
                Centavos::new(intent.amount().centavos()),
                now,
            );
            repositories.processor_operations().insert(&operation)?;
            Ok(AuthorizeRequest {
                payment: payment_id.clone(),
                idempotency_key: operation.idempotency_key().to_owned(),
                amount: intent.amount(),
                method,
                capture,
                return_url: HostedPage::ProcessorReturn.url(&self.settings.public_base_url, &redirect_token),
                save_method,
            })
        })?;
        let answer = wait(connector.authorize(&authorize));
        self.record_authorization(scope, &payment_id, answer, &redirect_token)
    }

    /// Records the processor's answer to an authorization: the operation, and the intent it
    /// claimed (paid, held, awaiting the customer on the processor's page, failed, or given back
    /// when the request never reached the processor). An answer that did not come leaves the
    /// intent `processing` for the janitor.
    fn record_authorization(
        &self,
        scope: &Scope,
        payment_id: &PaymentId,
        answer: AuthorizationAnswer,
        redirect_token: &str,
    ) -> Result<AttachOutcome, ApplicationError> {
        let key = idempotency_key(payment_id, &OperationKind::Authorize);
        let unavailable = match &answer {
            Err(ConnectorError::NotSent(reason) | ConnectorError::Misconfigured(reason)) => Some(reason.clone()),
            _ => None,
        };
        let outcome = retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut operation = find_operation(repositories, scope, &key)?;
                let before = load_view(repositories, scope, operation.payment_intent().as_str())?;
                let expected = operation.version();
                let recorded = match &answer {
                    Ok(payment) => Answer::Done { processor_reference: payment.processor_reference.clone() },
                    Err(error) => error.answer(),
                };
                let recorded = match (&answer, recorded) {
                    // A payment the processor has not decided is checked again, like a lost answer.
                    (Ok(ProcessorPayment { state: ProcessorPaymentState::Pending, .. }), _) => Answer::NoAnswer,
                    (_, recorded) => recorded,
                };
                if operation.record(recorded, now).is_err() {
                    // Settled already (by the janitor, or the other half of a race): as it stands.
                    return Ok(AttachOutcome::Attached(before));
                }
                repositories.processor_operations().update(&operation, expected)?;
                record_call(repositories, scope, &answer, now)?;
                let mut intent = before.intent.clone();
                if let Ok(payment) = &answer {
                    intent.learn_from_processor(payment.card.clone(), payment.saved_method.clone());
                }
                let result = match &answer {
                    Ok(payment) => match &payment.state {
                        ProcessorPaymentState::Captured { .. } | ProcessorPaymentState::Authorized { .. } => {
                            Some(intent.settle_processing(None, now)?)
                        }
                        ProcessorPaymentState::Failed(error) => {
                            Some(intent.settle_processing(Some(error.clone()), now)?)
                        }
                        ProcessorPaymentState::Voided => Some(intent.settle_processing(
                            Some(PaymentError::new("processing_error", "The processor released the payment.")),
                            now,
                        )?),
                        ProcessorPaymentState::RequiresAction { action } => {
                            let url = match action {
                                CustomerAction::Redirect { url } => url.clone(),
                                CustomerAction::Script { .. } => HostedPage::ProcessorAuthentication
                                    .url(&self.settings.public_base_url, redirect_token),
                            };
                            intent.await_processor_action(redirect_token.to_owned(), url, now)?;
                            Some(AttemptResult::Redirected)
                        }
                        ProcessorPaymentState::Pending => None,
                    },
                    Err(ConnectorError::Refused { code, detail }) => {
                        Some(intent.settle_processing(Some(PaymentError::new(code, detail)), now)?)
                    }
                    Err(ConnectorError::NotSent(_) | ConnectorError::Misconfigured(_)) => {
                        intent.give_back_claim(now)?;
                        repositories.payment_intents().update(&intent, before.intent.version())?;
                        return Ok(AttachOutcome::Attached(PaymentIntentView { intent, ..before }));
                    }
                    Err(ConnectorError::OutcomeUnknown(_)) => None,
                };
                let Some(result) = result else { return Ok(AttachOutcome::Attached(before)) };
                let fee = answer.as_ref().ok().and_then(processor_fee);
                let (view, failure) = self.record_live(repositories, scope, before, intent, result, fee, now)?;
                Ok(match failure {
                    Some(error) => AttachOutcome::Declined(view, error),
                    None => AttachOutcome::Attached(view),
                })
            })
        })?;
        match unavailable {
            Some(reason) => Err(ApplicationError::ProcessorUnavailable(format!(
                "The payment processor could not be reached ({reason}); nothing was charged. Retry shortly."
            ))),
            None => Ok(outcome),
        }
    }

    /// As [`Self::record`], for a live attempt: its payment takes the id reserved for it, and a
    /// captured one the processor's fee.
    #[allow(clippy::too_many_arguments)]
    fn record_live(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        before: PaymentIntentView,
        intent: PaymentIntent,
        result: AttemptResult,
        fee: Option<i64>,
        now: Timestamp,
    ) -> Result<(PaymentIntentView, Option<PaymentError>), ApplicationError> {
        let (effects, failure) = match result {
            AttemptResult::Succeeded(attempt) => {
                save_card(repositories, scope, &attempt, now)?;
                let amount = intent.amount().centavos();
                let payment = Payment::paid_at_processor(
                    reserved(Some(&attempt))?,
                    &intent,
                    amount,
                    fee.unwrap_or(0),
                    attempt,
                    now,
                );
                let effects = Effects {
                    payment: Some((payment, EventType::PaymentPaid)),
                    intent_event: Some(EventType::PaymentIntentSucceeded),
                };
                (effects, None)
            }
            AttemptResult::Failed(attempt, error) => {
                let payment = Payment::failed(reserved(Some(&attempt))?, &intent, attempt, now);
                (Effects { payment: Some((payment, EventType::PaymentFailed)), intent_event: None }, Some(error))
            }
            other => return self.record(repositories, scope, before, intent, other, now),
        };
        let view = self.commit(repositories, scope, before, intent, effects, now)?;
        Ok((view, failure))
    }

    /// A live capture of `amount` of the hold: written ahead, asked of the processor, recorded.
    pub(super) fn capture_live(
        &self,
        scope: &Scope,
        id: &str,
        amount: Option<Amount>,
    ) -> Result<PaymentIntentView, ApplicationError> {
        let connector = self.live_connector(scope)?;
        let now = self.clock.now_in(scope)?;
        let (operation, processor_payment) = in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let before = load_view(repositories, scope, id)?;
            let intent = &before.intent;
            let amount = capture_amount(intent, amount)?;
            // The domain decides first, on a copy: nothing is asked of the processor that it refuses.
            intent.clone().capture(amount, now)?;
            if amount.centavos() < intent.amount_capturable() && !connector.capabilities().partial_capture {
                return Err(not_capable("amount", "This account's processor cannot capture part of a hold."));
            }
            claim_operation(repositories, scope, intent, OperationKind::Capture, amount.centavos(), now)
        })?;
        let answer = wait(connector.capture(&processor_payment, operation.amount(), operation.idempotency_key()));
        let answer = after_refusal(connector.as_ref(), &processor_payment, answer);
        self.record_hold_operation(scope, &operation, answer)
    }

    /// A live cancel: a hold is released at the processor first; an intent with nothing held is
    /// canceled as in test mode, in the same transaction that saw nothing held.
    pub(super) fn cancel_live(&self, scope: &Scope, id: &str) -> Result<PaymentIntentView, ApplicationError> {
        self.release_hold(scope, id, Release::Cancel)
    }

    /// Performs what is due of a live intent: a hold past its time is released at the processor
    /// first, then the intent canceled; an authentication the customer left on the processor's page
    /// is asked of the processor, and released there when still unfinished; anything else as in
    /// test mode. Returns whether it moved.
    ///
    /// # Errors
    /// What the processor or the intent refuses; storage failures.
    pub fn perform_live_due(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let intent = match reading(self.unit_of_work.as_ref(), |repositories| load(repositories, &due.scope, &due.id)) {
            Ok(intent) => intent,
            Err(ApplicationError::NotFound { .. }) => return Ok(false),
            Err(error) => return Err(error),
        };
        let due_now = intent.action_due_at().is_some_and(|due_at| at >= due_at);
        match intent.status().due_action() {
            Some(DueAction::ReleaseHold) if intent.clone().expire_hold(at).is_ok() => {
                self.release_hold(&due.scope, &due.id, Release::Expire).map(|_| true)
            }
            Some(DueAction::ExpireRedirect) if intent.is_at_processor() && due_now => {
                self.expire_processor_action(&due.scope, &intent)
            }
            _ => self.perform_due(due, at),
        }
    }

    /// Releases a live hold at the processor, then cancels the intent: the merchant's cancel (which
    /// an intent's owner may refuse), or the hold's expiry. A cancel of an intent with nothing held
    /// cancels it here, in the transaction that saw nothing held.
    fn release_hold(&self, scope: &Scope, id: &str, why: Release) -> Result<PaymentIntentView, ApplicationError> {
        let connector = self.processors.live.connector(scope)?;
        let claimed = retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let before = load_view(repositories, scope, id)?;
                if let Release::Cancel = why {
                    ensure_not_owned(repositories, scope, &before.intent, PaymentIntentOperation::Cancel)?;
                }
                let mut canceled = before.intent.clone();
                match why {
                    Release::Cancel => canceled.cancel(now)?,
                    Release::Expire => canceled.expire_hold(now)?,
                }
                if before.intent.status() != PaymentIntentStatus::AwaitingCapture {
                    let events = Effects { payment: None, intent_event: Some(EventType::PaymentIntentCanceled) };
                    return self.commit(repositories, scope, before, canceled, events, now).map(Err);
                }
                let connector = connector.as_ref().ok_or_else(no_connector)?;
                if !connector.capabilities().void {
                    return Err(not_capable("id", "This account's processor cannot release a hold."));
                }
                let capturable = before.intent.amount_capturable();
                claim_operation(repositories, scope, &before.intent, OperationKind::Void, capturable, now).map(Ok)
            })
        })?;
        let (operation, processor_payment) = match claimed {
            Ok(claimed) => claimed,
            Err(canceled_here) => return Ok(canceled_here),
        };
        let connector = connector.as_ref().ok_or_else(no_connector)?;
        let answer = wait(connector.void(&processor_payment, operation.idempotency_key()));
        let answer = after_refusal(connector.as_ref(), &processor_payment, answer);
        self.record_hold_operation(scope, &operation, answer)
    }

    /// The customer left the processor's page (3-D Secure) unfinished past its time: the processor
    /// is asked how the payment stands. One it decided is recorded as it decided; one still
    /// awaiting the customer is released there, and then the authentication expires.
    fn expire_processor_action(&self, scope: &Scope, intent: &PaymentIntent) -> Result<bool, ApplicationError> {
        let connector = self.live_connector(scope)?;
        let payment_id = reserved_payment(intent)?;
        let reference =
            reading(self.unit_of_work.as_ref(), |repositories| authorized_reference(repositories, scope, &payment_id))?;
        let payment = wait(connector.retrieve(&reference)).map_err(unavailable)?;
        if !matches!(payment.state, ProcessorPaymentState::RequiresAction { .. } | ProcessorPaymentState::Pending) {
            return self.settle_after_action(scope, &payment_id, &payment);
        }
        let operation = in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let now = self.clock.now_in(scope)?;
            let current = load(repositories, scope, intent.id().as_str())?;
            claim_operation(repositories, scope, &current, OperationKind::Void, current.amount().centavos(), now)
        })?
        .0;
        let answer = wait(connector.void(&reference, operation.idempotency_key()));
        self.record_hold_operation(scope, &operation, answer).map(|_| true)
    }

    /// Records the processor's answer to a capture or a void: the operation, and then the intent
    /// (captured, with the processor's fee, or canceled).
    fn record_hold_operation(
        &self,
        scope: &Scope,
        sent: &ProcessorOperation,
        answer: AuthorizationAnswer,
    ) -> Result<PaymentIntentView, ApplicationError> {
        let view = retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut operation = find_operation(repositories, scope, sent.idempotency_key())?;
                let before = load_view(repositories, scope, operation.payment_intent().as_str())?;
                let expected = operation.version();
                let done = match (&answer, sent.kind()) {
                    (
                        Ok(payment @ ProcessorPayment { state: ProcessorPaymentState::Captured { .. }, .. }),
                        OperationKind::Capture,
                    )
                    | (
                        Ok(payment @ ProcessorPayment { state: ProcessorPaymentState::Voided, .. }),
                        OperationKind::Void,
                    ) => Some(payment),
                    _ => None,
                };
                // The processor released the hold itself (it expired there): the capture is refused,
                // and the intent is canceled as the processor left it.
                let released = matches!(&answer, Ok(ProcessorPayment { state: ProcessorPaymentState::Voided, .. }));
                let recorded = match (&answer, done) {
                    (_, Some(payment)) => Answer::Done { processor_reference: payment.processor_reference.clone() },
                    // The processor answered, and the payment is not as the operation would leave it.
                    (Ok(_), None) => Answer::Refused {
                        code: "processing_error".into(),
                        detail: format!("The processor did not {} the payment.", sent.kind().as_str()),
                    },
                    (Err(error), None) => error.answer(),
                };
                if operation.record(recorded, now).is_err() {
                    return Ok(before);
                }
                repositories.processor_operations().update(&operation, expected)?;
                record_call(repositories, scope, &answer, now)?;
                let payment = match (done, &answer) {
                    (Some(payment), _) => payment,
                    (None, Ok(payment)) if released => payment,
                    _ => return Ok(before),
                };
                let mut intent = before.intent.clone();
                match &payment.state {
                    ProcessorPaymentState::Captured { amount, fee, .. } => {
                        let amount = Amount::new(amount.get()).map_err(|_| {
                            ApplicationError::internal("the processor captured an amount out of bounds")
                        })?;
                        let attempt = intent.record_capture(amount, now)?;
                        let payment_id = PaymentId::parse(operation.payment().as_str())
                            .ok_or_else(|| ApplicationError::internal("an operation's payment id is invalid"))?;
                        let payment =
                            Payment::paid_at_processor(payment_id, &intent, amount.centavos(), fee.get(), attempt, now);
                        let events = Effects {
                            payment: Some((payment, EventType::PaymentPaid)),
                            intent_event: Some(EventType::PaymentIntentSucceeded),
                        };
                        self.commit(repositories, scope, before, intent, events, now)
                    }
                    _ if intent.status() == PaymentIntentStatus::AwaitingNextAction => {
                        let result = intent.settle_processor_action(Some(authentication_expired("payment")), now)?;
                        Ok(self.record_live(repositories, scope, before, intent, result, None, now)?.0)
                    }
                    _ => {
                        intent.cancel(now)?;
                        let events = Effects { payment: None, intent_event: Some(EventType::PaymentIntentCanceled) };
                        self.commit(repositories, scope, before, intent, events, now)
                    }
                }
            })
        })?;
        let expected = match sent.kind() {
            OperationKind::Capture => {
                matches!(&answer, Ok(ProcessorPayment { state: ProcessorPaymentState::Captured { .. }, .. }))
            }
            _ => matches!(&answer, Ok(ProcessorPayment { state: ProcessorPaymentState::Voided, .. })),
        };
        match answer {
            Ok(_) if expected => Ok(view),
            Ok(ProcessorPayment { state: ProcessorPaymentState::Voided, .. }) => {
                Err(ApplicationError::ProcessorRefused {
                    code: "processing_error".into(),
                    detail: "The processor had already released the hold; the payment intent is canceled.".into(),
                })
            }
            Ok(_) => Err(ApplicationError::ProcessorRefused {
                code: "processing_error".into(),
                detail: format!("The processor did not {} the payment.", sent.kind().as_str()),
            }),
            Err(ConnectorError::Refused { code, detail }) => Err(ApplicationError::ProcessorRefused { code, detail }),
            Err(ConnectorError::NotSent(reason) | ConnectorError::Misconfigured(reason)) => {
                Err(ApplicationError::ProcessorUnavailable(format!(
                    "The payment processor could not be reached ({reason}); nothing changed. Retry shortly."
                )))
            }
            Err(ConnectorError::OutcomeUnknown(reason)) => Err(ApplicationError::ProcessorUnavailable(format!(
                "The payment processor did not answer ({reason}); it is asked what it did, and the payment intent \
                 shows the outcome."
            ))),
        }
    }

    /// What the processor says of a payment, fetched again after its event: recorded when it
    /// settles the payment's authorization, still unanswered, or an authentication the intent
    /// awaits the customer for; nothing otherwise (only forward). Returns whether anything moved.
    ///
    /// # Errors
    /// Storage failures.
    pub(crate) fn settle_from_processor(
        &self,
        scope: &Scope,
        payment: ProcessorPayment,
    ) -> Result<bool, ApplicationError> {
        let Some(payment_id) = payment.made_for.clone() else { return Ok(false) };
        let key = idempotency_key(&payment_id, &OperationKind::Authorize);
        let operation = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.processor_operations().find(scope, &key)?)
        })?;
        match operation {
            None => Ok(false),
            Some(operation) if operation.leaves_unclaimed(&payment.processor_reference) => {
                self.release_unclaimed(scope, &operation, &payment)
            }
            Some(operation) if operation.state().is_final() => {
                if self.settle_after_action(scope, &payment_id, &payment)? {
                    return Ok(true);
                }
                let claimed =
                    reading(self.unit_of_work.as_ref(), |repositories| is_claimed(repositories, scope, &operation))?;
                if claimed {
                    Ok(false)
                } else {
                    self.release_unclaimed(scope, &operation, &payment)
                }
            }
            Some(_) => {
                let token = self.ids.alphanumeric(REDIRECT_TOKEN_LENGTH);
                self.record_authorization(scope, &payment_id, Ok(payment), &token).map(|_| true)
            }
        }
    }

    /// A payment the processor made for an authorization the service recorded without it (refused,
    /// never sent, or another payment): no attempt claims it, so a hold or an authentication is
    /// voided at the processor, under a key of its own, and a captured one is reported for the
    /// operator to refund there. Returns whether the processor released anything.
    ///
    /// # Errors
    /// `service_unavailable` when the void's answer does not come (the event is handled again).
    fn release_unclaimed(
        &self,
        scope: &Scope,
        authorization: &ProcessorOperation,
        payment: &ProcessorPayment,
    ) -> Result<bool, ApplicationError> {
        let reference = payment.processor_reference.as_str();
        let made_for = authorization.payment();
        match &payment.state {
            ProcessorPaymentState::Authorized { .. }
            | ProcessorPaymentState::RequiresAction { .. }
            | ProcessorPaymentState::Pending => {
                let key = format!("{}:unclaimed", idempotency_key(made_for, &OperationKind::Void));
                match wait(self.live_connector(scope)?.void(reference, &key)) {
                    Ok(_) => {
                        tracing::warn!(processor_payment = reference, payment = %made_for, "voided a payment at the processor that no attempt claims");
                        Ok(true)
                    }
                    Err(ConnectorError::Refused { detail, .. }) => {
                        tracing::warn!(processor_payment = reference, payment = %made_for, %detail, "the processor refused to void a payment that no attempt claims; release it there");
                        Ok(false)
                    }
                    Err(error) => Err(unavailable(error)),
                }
            }
            ProcessorPaymentState::Captured { amount, .. } => {
                tracing::warn!(processor_payment = reference, payment = %made_for, amount = amount.get(), "the processor captured a payment that no attempt claims; refund it there");
                Ok(false)
            }
            ProcessorPaymentState::Failed(_) | ProcessorPaymentState::Voided => Ok(false),
        }
    }

    /// Records how the processor decided a payment whose intent awaited the customer on the
    /// processor's page: paid or held, or failed. Nothing moves for a payment still undecided, or
    /// an intent no longer waiting for it. Returns whether the intent moved.
    fn settle_after_action(
        &self,
        scope: &Scope,
        payment_id: &PaymentId,
        payment: &ProcessorPayment,
    ) -> Result<bool, ApplicationError> {
        let decline = match &payment.state {
            ProcessorPaymentState::Captured { .. } | ProcessorPaymentState::Authorized { .. } => None,
            ProcessorPaymentState::Failed(error) => Some(error.clone()),
            ProcessorPaymentState::Voided => Some(authentication_expired("payment")),
            ProcessorPaymentState::RequiresAction { .. } | ProcessorPaymentState::Pending => return Ok(false),
        };
        let key = idempotency_key(payment_id, &OperationKind::Authorize);
        let moved = retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let operation = find_operation(repositories, scope, &key)?;
                let before = load_view(repositories, scope, operation.payment_intent().as_str())?;
                let waiting = before.intent.status() == PaymentIntentStatus::AwaitingNextAction
                    && reserved_payment(&before.intent).is_ok_and(|reserved| &reserved == payment_id);
                if !waiting {
                    return Ok(false);
                }
                let mut intent = before.intent.clone();
                intent.learn_from_processor(payment.card.clone(), payment.saved_method.clone());
                let result = intent.settle_processor_action(decline.clone(), now)?;
                self.record_live(repositories, scope, before, intent, result, processor_fee(payment), now)?;
                Ok(true)
            })
        })?;
        if moved && matches!(payment.state, ProcessorPaymentState::Failed(_)) {
            self.retire_failed(scope, payment_id, &payment.processor_reference);
        }
        Ok(moved)
    }

    /// Cancels at the processor a payment that failed after the customer's action (3-D Secure), so
    /// that its client secret, which the authentication page gave the browser, can confirm nothing
    /// more. The attempt is recorded failed whatever the processor answers; a refusal is logged.
    fn retire_failed(&self, scope: &Scope, payment_id: &PaymentId, reference: &str) {
        let key = idempotency_key(payment_id, &OperationKind::Void);
        let failure = match self.live_connector(scope) {
            Ok(connector) => wait(connector.void(reference, &key)).err().map(|error| error.to_string()),
            Err(error) => Some(error.to_string()),
        };
        if let Some(error) = failure {
            tracing::warn!(processor_payment = reference, payment = %payment_id, %error, "a failed payment could not be canceled at the processor");
        }
    }

    /// The customer is back from the processor's page (3-D Secure) at the service's return page
    /// of `token`: the processor is asked how the payment stands, that is recorded, and the
    /// customer goes on to the merchant's `return_url`, as after test mode's page. A processor that
    /// does not answer leaves the intent as it is, for its event or the page's expiry.
    ///
    /// # Errors
    /// `resource_not_found` for a token no live intent has; storage failures.
    pub fn return_from_processor(&self, token: &str) -> Result<RedirectCompletion, ApplicationError> {
        if let Some((scope, payment_id, reference)) = self.awaiting_the_customer(token)? {
            let connector = self.live_connector(&scope)?;
            if let Ok(payment) = wait(connector.retrieve(&reference)) {
                self.settle_after_action(&scope, &payment_id, &payment)?;
            }
        }
        let intent = reading(self.unit_of_work.as_ref(), |repositories| live_intent_of_token(repositories, token))?;
        Ok(completion::<Self>(&intent, false))
    }

    /// What the service's authentication page of `token` runs: the processor's script with its
    /// client secret, while the processor awaits the customer's authentication in the browser.
    /// `None` when there is nothing to authenticate there (decided, or a processor's own page):
    /// the customer goes on to the return page.
    ///
    /// # Errors
    /// `resource_not_found` for a token no live intent has; `service_unavailable` when the
    /// processor does not answer; storage failures.
    pub fn processor_authentication(&self, token: &str) -> Result<Option<ScriptAuthentication>, ApplicationError> {
        let Some((scope, _, reference)) = self.awaiting_the_customer(token)? else { return Ok(None) };
        let payment = wait(self.live_connector(&scope)?.retrieve(&reference)).map_err(unavailable)?;
        let ProcessorPaymentState::RequiresAction { action: CustomerAction::Script { client_secret } } = payment.state
        else {
            return Ok(None);
        };
        let connector = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.connector_accounts().of_account(&scope.account_id)?)
        })?;
        let script = connector.as_ref().and_then(ConnectorAccount::authentication_script).ok_or_else(no_connector)?;
        let return_url = HostedPage::ProcessorReturn.url(&self.settings.public_base_url, token);
        Ok(Some(ScriptAuthentication { script, client_secret, return_url }))
    }

    /// The live intent of redirect token `token`, when the processor holds its payment awaiting the
    /// customer: its scope, its payment's id, and the processor's reference for it.
    fn awaiting_the_customer(&self, token: &str) -> Result<Option<(Scope, PaymentId, String)>, ApplicationError> {
        well_formed_token(token)?;
        let intent = reading(self.unit_of_work.as_ref(), |repositories| live_intent_of_token(repositories, token))?;
        if !intent.is_at_processor() || intent.status() != PaymentIntentStatus::AwaitingNextAction {
            return Ok(None);
        }
        let scope = Scope::of(intent.account_id(), true);
        let payment_id = reserved_payment(&intent)?;
        let reference = reading(self.unit_of_work.as_ref(), |repositories| {
            authorized_reference(repositories, &scope, &payment_id)
        })?;
        Ok(Some((scope, payment_id, reference)))
    }

    /// The janitor: asks the processor what became of the operation `due` names (sent, and its
    /// answer never recorded), and records it. Returns whether anything moved.
    ///
    /// # Errors
    /// `resource_not_found` for an operation that is gone; storage failures.
    pub fn check_operation(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let scope = &due.scope;
        let operation =
            reading(self.unit_of_work.as_ref(), |repositories| find_operation(repositories, scope, &due.id))?;
        if !operation.is_due_for_a_check(at) {
            return Ok(false);
        }
        let connector = self.processors.live.connector(scope)?;
        match operation.kind() {
            OperationKind::Authorize => {
                let answer = match connector
                    .as_ref()
                    .map(|connector| wait(connector.find(operation.payment(), operation.sent_at())))
                {
                    None => Err(unasked()),
                    Some(Ok(Some(payment))) => Ok(payment),
                    Some(Ok(None)) => Err(absent(&operation, at, "the processor has no payment for it")),
                    Some(Err(error)) => Err(check_failed(error)),
                };
                let token = self.ids.alphanumeric(REDIRECT_TOKEN_LENGTH);
                match self.record_authorization(scope, operation.payment(), answer, &token) {
                    Ok(_) | Err(ApplicationError::ProcessorUnavailable(_)) => Ok(true),
                    Err(error) => Err(error),
                }
            }
            OperationKind::Capture | OperationKind::Void => {
                let processor_payment = reading(self.unit_of_work.as_ref(), |repositories| {
                    authorized_reference(repositories, scope, operation.payment())
                })?;
                let answer = match connector.as_ref().map(|connector| wait(connector.retrieve(&processor_payment))) {
                    None => Err(unasked()),
                    Some(Ok(payment)) if untouched(operation.kind(), &payment.state) => {
                        Err(absent(&operation, at, "the processor has not done it"))
                    }
                    Some(Ok(payment)) => Ok(payment),
                    Some(Err(error)) => Err(check_failed(error)),
                };
                match self.record_hold_operation(scope, &operation, answer) {
                    Ok(_)
                    | Err(ApplicationError::ProcessorUnavailable(_) | ApplicationError::ProcessorRefused { .. }) => {
                        Ok(true)
                    }
                    Err(error) => Err(error),
                }
            }
            OperationKind::Refund(_) => Ok(false),
        }
    }
}

/// The processor's answer to a capture or a void, and, when it refused, how the payment stands
/// there if the processor released the hold itself: the intent then follows it.
fn after_refusal(
    connector: &dyn PaymentConnector,
    processor_payment: &str,
    answer: AuthorizationAnswer,
) -> AuthorizationAnswer {
    match answer {
        Err(ConnectorError::Refused { .. }) => match wait(connector.retrieve(processor_payment)) {
            Ok(payment @ ProcessorPayment { state: ProcessorPaymentState::Voided, .. }) => Ok(payment),
            _ => answer,
        },
        other => other,
    }
}

/// Whether the processor's payment is as it was before the capture or void `kind` was sent: held,
/// or (for a void of an authentication the customer never finished) still awaiting the customer.
fn untouched(kind: &OperationKind, state: &ProcessorPaymentState) -> bool {
    match state {
        ProcessorPaymentState::Authorized { .. } => true,
        ProcessorPaymentState::RequiresAction { .. } | ProcessorPaymentState::Pending => kind == &OperationKind::Void,
        ProcessorPaymentState::Captured { .. } | ProcessorPaymentState::Failed(_) | ProcessorPaymentState::Voided => {
            false
        }
    }
}

fn no_connector() -> ApplicationError {
    ApplicationError::NotConfigured("No live payment processor is set up for this account.".into())
}

/// Whether the service holds the processor's payment for the authorization `operation`: paid, or
/// reserved by the intent's attempt (held, processing, or awaiting the customer).
fn is_claimed(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    operation: &ProcessorOperation,
) -> Result<bool, ApplicationError> {
    let payment_id = operation.payment();
    let paid = repositories.payments().find(scope, payment_id)?;
    if paid.is_some_and(|payment| payment.status() == payments_domain::payment::PaymentStatus::Paid) {
        return Ok(true);
    }
    let intent = load(repositories, scope, operation.payment_intent().as_str())?;
    Ok(reserved_payment(&intent).is_ok_and(|reserved| &reserved == payment_id))
}

/// The live intent whose redirect token is `token`.
fn live_intent_of_token(repositories: &mut dyn Repositories, token: &str) -> Result<PaymentIntent, ApplicationError> {
    repositories
        .payment_intents()
        .find_by_redirect_token(token)?
        .filter(PaymentIntent::livemode)
        .ok_or_else(unknown_token)
}

/// The service's authentication page's work: the processor's script, the client secret it takes,
/// and the return page the customer goes to after it, however it ended.
#[derive(Debug, Clone)]
pub struct ScriptAuthentication {
    pub script: AuthenticationScript,
    pub client_secret: String,
    pub return_url: String,
}

fn unavailable(error: ConnectorError) -> ApplicationError {
    ApplicationError::ProcessorUnavailable(format!("The payment processor did not answer ({error}). Retry shortly."))
}

/// The payment id reserved for the intent's live attempt.
fn reserved_payment(intent: &PaymentIntent) -> Result<PaymentId, ApplicationError> {
    reserved(intent.pending().map(|pending| &pending.attempt))
}

/// The payment id reserved for a live attempt.
fn reserved(attempt: Option<&Attempt>) -> Result<PaymentId, ApplicationError> {
    attempt
        .and_then(|attempt| attempt.payment_id.as_deref())
        .and_then(PaymentId::parse)
        .ok_or_else(|| ApplicationError::internal("a live attempt has no reserved payment id"))
}

/// The connector's form of what pays. A card number is refused: in live mode the payment element
/// sends the card straight to the processor, and only the processor's token comes here.
fn connector_method(input: &PaymentMethodInput) -> Result<ConnectorMethod, ApplicationError> {
    match input {
        PaymentMethodInput::ProcessorToken(token) => Ok(ConnectorMethod::Token(token.clone())),
        PaymentMethodInput::Saved(saved) => Ok(ConnectorMethod::Saved(saved.processor_reference.clone())),
        PaymentMethodInput::Redirect(method) => Ok(ConnectorMethod::Redirect(*method)),
        PaymentMethodInput::Card(_) => Err(ApplicationError::invalid(FieldError::invalid(
            "payment_method[card][number]",
            "Live card numbers never reach this service: the payment element sends the card to the processor and \
             sends its token here, as payment_method[card][token].",
        ))),
    }
}

/// Refuses what the account's connector cannot do, before anything is written or sent.
fn ensure_capable(
    capabilities: &crate::ports::connector::Capabilities,
    method: PaymentMethodType,
    capture: CaptureMethod,
    save: bool,
) -> Result<(), ApplicationError> {
    if save && !capabilities.save_methods {
        return Err(not_capable(
            "save_payment_method",
            "This account's processor cannot save a card for later payments: pay without saving it.",
        ));
    }
    if !capabilities.methods.contains(&method) {
        return Err(not_capable(
            "payment_method[type]",
            &format!("This account's processor does not take {}.", method.as_str()),
        ));
    }
    if capture == CaptureMethod::Manual && !capabilities.manual_capture {
        return Err(not_capable(
            "payment_method_options[card][capture_type]",
            "This account's processor cannot hold a payment for a later capture.",
        ));
    }
    Ok(())
}

fn not_capable(parameter: &str, detail: &str) -> ApplicationError {
    ApplicationError::invalid(FieldError::invalid(parameter, detail))
}

/// The amount a capture takes: all of the hold when none is given.
fn capture_amount(intent: &PaymentIntent, amount: Option<Amount>) -> Result<Amount, ApplicationError> {
    match amount {
        Some(amount) => Ok(amount),
        None => Amount::new(intent.amount_capturable()).map_err(|_| {
            ApplicationError::from(DomainError::InvalidState {
                resource: RESOURCE,
                status: intent.status().as_str(),
                action: "capture",
            })
        }),
    }
}

/// Writes the operation `kind` on the held payment of `intent` ahead of its call, and returns it
/// with the processor's payment: the kind's first attempt, the same one again when it was not sent,
/// or the next attempt, under a key of its own, after the processor refused. The intent is taken
/// for it in the same transaction, so a concurrent operation on the hold conflicts; an operation
/// of the payment still unanswered refuses another.
fn claim_operation(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    intent: &PaymentIntent,
    kind: OperationKind,
    amount: i64,
    now: Timestamp,
) -> Result<(ProcessorOperation, String), ApplicationError> {
    let payment_id = reserved_payment(intent)?;
    let operations = repositories.processor_operations().of_payment(scope, &payment_id)?;
    if let Some(open) = operations.iter().find(|operation| !operation.state().is_final()) {
        return Err(ApplicationError::InvalidState(crate::error::StateRefusal::ProcessorOperationPending {
            operation: open.kind().as_str(),
        }));
    }
    let processor_payment = succeeded_reference(&operations, &OperationKind::Authorize)
        .ok_or_else(|| ApplicationError::internal("a live hold has no authorization at the processor"))?;
    let mut taken = intent.clone();
    taken.take_hold(now)?;
    repositories.payment_intents().update(&taken, intent.version())?;
    let amount = Centavos::new(amount);
    let operation = match operations.into_iter().rev().find(|operation| operation.kind() == &kind) {
        Some(mut unsent) if unsent.state() == &OperationState::NotSent => {
            let expected = unsent.version();
            unsent.send_again(amount, now).map_err(|_| ApplicationError::Conflict)?;
            repositories.processor_operations().update(&unsent, expected)?;
            unsent
        }
        Some(refused) => {
            let next =
                ProcessorOperation::after_refusal(&refused, amount, now).map_err(|_| ApplicationError::Conflict)?;
            repositories.processor_operations().insert(&next)?;
            next
        }
        None => {
            let tenant = (scope.account_id.clone(), scope.livemode());
            let operation = ProcessorOperation::written(tenant, (intent.id().clone(), payment_id), kind, amount, now);
            repositories.processor_operations().insert(&operation)?;
            operation
        }
    };
    Ok((operation, processor_payment))
}

/// The processor's fee of a captured payment.
fn processor_fee(payment: &ProcessorPayment) -> Option<i64> {
    match payment.state {
        ProcessorPaymentState::Captured { fee, .. } => Some(fee.get()),
        _ => None,
    }
}
