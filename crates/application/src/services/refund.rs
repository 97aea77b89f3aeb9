//! Refunds: create (never more than the payment, under concurrency) and update metadata. A live
//! refund goes to the account's processor, written ahead of the call: one transaction holds its
//! amount against the payment (the refundable amount is the service's to enforce, whatever the
//! processor would take), keeps the refund `pending` and writes the operation; the processor is
//! asked; a second transaction records the refund `succeeded`, or `failed` with the amount given
//! back. An answer that never came is asked for by the janitor.

use super::due::Due;
use super::event::EventLog;
use super::payment_intent::load_customer;
use super::processor_operation::{
    absent, authorized_reference, check_failed, find_operation, record_call, succeeded_reference, unasked,
};
use crate::error::{ApplicationError, StateRefusal};
use crate::pagination::{Page, PageRequest};
use crate::ports::connector::{
    wait, ConnectorDirectory, ConnectorError, ProcessorRefund, ProcessorRefundState, RefundRequest,
};
use crate::ports::{
    in_transaction, reading, retry_on_conflict, Clock, IdGenerator, Presenter, Repositories, UnitOfWork,
};
use crate::scope::Scope;
use payments_domain::balance::Centavos;
use payments_domain::event::EventType;
use payments_domain::ids::RefundId;
use payments_domain::metadata::Metadata;
use payments_domain::payment::Payment;
use payments_domain::processor_operation::{refund_idempotency_key, Answer, OperationKind, ProcessorOperation};
use payments_domain::refund::{NewRefund, Refund};
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use std::sync::Arc;

const RESOURCE: &str = "refund";

/// Refund use cases.
pub struct RefundService {
    unit_of_work: Arc<dyn UnitOfWork>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    presenter: Arc<dyn Presenter>,
    /// Each account's live processor.
    connectors: Arc<dyn ConnectorDirectory>,
}

impl RefundService {
    #[must_use]
    pub fn new(
        unit_of_work: Arc<dyn UnitOfWork>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        presenter: Arc<dyn Presenter>,
        connectors: Arc<dyn ConnectorDirectory>,
    ) -> Self {
        Self { unit_of_work, clock, ids, presenter, connectors }
    }

    /// The scope's refunds, newest first.
    ///
    /// # Errors
    /// `resource_not_found` naming the cursor when it is unknown; storage failures.
    pub fn list(&self, scope: &Scope, page: &PageRequest) -> Result<Page<Refund>, ApplicationError> {
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.refunds().list(scope, page).map_err(|error| page.explain(error))
        })
    }

    /// # Errors
    /// `resource_not_found`; storage failures.
    pub fn retrieve(&self, scope: &Scope, id: &str) -> Result<Refund, ApplicationError> {
        let not_found = || ApplicationError::NotFound { resource: "refund", id: id.to_owned() };
        let refund_id = RefundId::parse(id).ok_or_else(not_found)?;
        reading(self.unit_of_work.as_ref(), |repositories| {
            repositories.refunds().find(scope, &refund_id)?.ok_or_else(not_found)
        })
    }

    /// Refunds part or all of a paid payment.
    ///
    /// The payment's `amount_refunded` is a versioned update in the refund's transaction, so
    /// concurrent refunds are serialized: their sum never exceeds the payment.
    ///
    /// # Errors
    /// `parameter_invalid` on `payment_id` for an unknown or QR Ph payment or on `currency`;
    /// `parameter_above_maximum` past what is left; `resource_invalid_state` for a failed payment.
    pub fn create(&self, scope: &Scope, new: &NewRefund) -> Result<Refund, ApplicationError> {
        self.create_checked(scope, new, |_| Ok(()))
    }

    /// Refunds a payment of the payment intent `intent_id`, as [`RefundService::create`] does: the
    /// payment is checked to be one of the intent's in the same unit of work as it is refunded.
    ///
    /// # Errors
    /// As [`RefundService::create`]; `parameter_invalid` on `payment_id` for a payment of another
    /// intent.
    pub fn create_for_intent(
        &self,
        scope: &Scope,
        intent_id: &str,
        new: &NewRefund,
    ) -> Result<Refund, ApplicationError> {
        self.create_checked(scope, new, |payment| {
            if payment.payment_intent_id().as_str() == intent_id {
                return Ok(());
            }
            Err(ApplicationError::invalid(FieldError::invalid(
                "payment_id",
                format!("The payment {} is not one of payment intent {intent_id}'s.", payment.id()),
            )))
        })
    }

    fn create_checked(
        &self,
        scope: &Scope,
        new: &NewRefund,
        check: impl Fn(&Payment) -> Result<(), ApplicationError>,
    ) -> Result<Refund, ApplicationError> {
        if scope.livemode() {
            return self.create_live(scope, new, check);
        }
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut payment = load_refundable(repositories, scope, new)?;
                check(&payment)?;
                let before = payment.clone();
                let id = RefundId::from_random(&self.ids.id_part());
                let refund = payment.refund(id, new.clone(), now)?;
                repositories.payments().update(&payment, before.version())?;
                repositories.refunds().insert(&refund)?;
                self.record_refunded(repositories, scope, &before, &payment, &refund, now)?;
                Ok(refund)
            })
        })
    }

    /// What a refund that succeeded leaves besides itself: its ledger entry, and the events
    /// `refund.created` and `payment.refunded` (the payment `before` it and `after`).
    fn record_refunded(
        &self,
        repositories: &mut dyn Repositories,
        scope: &Scope,
        before: &Payment,
        after: &Payment,
        refund: &Refund,
        now: Timestamp,
    ) -> Result<(), ApplicationError> {
        super::balance::record_refund(repositories, self.ids.as_ref(), refund, now)?;
        let customer = load_customer(repositories, scope, after.customer_id())?;
        let log = self.event_log(scope, now);
        log.append(repositories, EventType::RefundCreated, &self.presenter.refund(refund), None)?;
        let (before, after) =
            (self.presenter.payment(before, customer.as_ref()), self.presenter.payment(after, customer.as_ref()));
        log.append(repositories, EventType::PaymentRefunded, &after, Some(&before))?;
        Ok(())
    }

    /// A live refund: written ahead (its amount held against the payment, the refund `pending`),
    /// asked of the processor, and recorded.
    fn create_live(
        &self,
        scope: &Scope,
        new: &NewRefund,
        check: impl Fn(&Payment) -> Result<(), ApplicationError>,
    ) -> Result<Refund, ApplicationError> {
        let id = RefundId::from_random(&self.ids.id_part());
        let connector = self.connectors.connector(scope)?;
        let (refund, request, connector) = retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut payment = load_refundable(repositories, scope, new)?;
                check(&payment)?;
                let connector = connector.clone().ok_or_else(|| {
                    ApplicationError::NotConfigured("No live payment processor is set up for this account.".into())
                })?;
                if payment.amount_refunded() > 0 && !connector.capabilities().several_refunds {
                    return Err(ApplicationError::invalid(FieldError::invalid(
                        "payment_id",
                        "This account's processor refunds a payment once only.",
                    )));
                }
                let operations = repositories.processor_operations().of_payment(scope, payment.id())?;
                if let Some(open) = operations.iter().find(|operation| !operation.state().is_final()) {
                    return Err(ApplicationError::InvalidState(StateRefusal::ProcessorOperationPending {
                        operation: open.kind().as_str(),
                    }));
                }
                let processor_payment =
                    succeeded_reference(&operations, &OperationKind::Authorize).ok_or_else(|| {
                        ApplicationError::internal("a live payment has no authorization at the processor")
                    })?;
                let expected = payment.version();
                let refund = payment.refund(id.clone(), new.clone(), now)?.pending();
                repositories.payments().update(&payment, expected)?;
                repositories.refunds().insert(&refund)?;
                let kind = OperationKind::Refund(id.clone());
                let of = (payment.payment_intent_id().clone(), payment.id().clone());
                let operation = ProcessorOperation::written(
                    (scope.account_id.clone(), true),
                    of,
                    kind,
                    Centavos::new(refund.amount()),
                    now,
                );
                repositories.processor_operations().insert(&operation)?;
                let request = RefundRequest {
                    refund: id.clone(),
                    processor_payment,
                    idempotency_key: operation.idempotency_key().to_owned(),
                    amount: Centavos::new(refund.amount()),
                };
                Ok((refund, request, connector))
            })
        })?;
        let answer = wait(connector.refund(&request));
        let settled = self.record_refund_answer(scope, refund.id(), &request.idempotency_key, &answer)?;
        match answer {
            Ok(_) | Err(ConnectorError::OutcomeUnknown(_)) => Ok(settled),
            Err(ConnectorError::Refused { code, detail }) => Err(ApplicationError::ProcessorRefused { code, detail }),
            Err(ConnectorError::NotSent(reason) | ConnectorError::Misconfigured(reason)) => {
                Err(ApplicationError::ProcessorUnavailable(format!(
                    "The payment processor could not be reached ({reason}); nothing was refunded. Retry shortly."
                )))
            }
        }
    }

    /// Records what the processor said of a refund: the operation, and the refund `succeeded`
    /// (its ledger entry and events), `failed` (its amount given back to the payment), or still
    /// `pending` when no answer came or the processor has not decided.
    fn record_refund_answer(
        &self,
        scope: &Scope,
        refund_id: &RefundId,
        key: &str,
        answer: &Result<ProcessorRefund, ConnectorError>,
    ) -> Result<Refund, ApplicationError> {
        retry_on_conflict(|| {
            let now = self.clock.now_in(scope)?;
            in_transaction(self.unit_of_work.as_ref(), |repositories| {
                let mut operation = find_operation(repositories, scope, key)?;
                let mut refund = load(repositories, scope, refund_id.as_str())?;
                let expected = operation.version();
                let (recorded, succeeded) = match answer {
                    Ok(ProcessorRefund { processor_reference, state: ProcessorRefundState::Succeeded, .. }) => {
                        (Answer::Done { processor_reference: processor_reference.clone() }, Some(true))
                    }
                    Ok(ProcessorRefund { state: ProcessorRefundState::Failed(error), .. }) => {
                        (Answer::Refused { code: error.code.clone(), detail: error.detail.clone() }, Some(false))
                    }
                    Ok(ProcessorRefund { state: ProcessorRefundState::Pending, .. }) => (Answer::NoAnswer, None),
                    Err(error) => {
                        let recorded = error.answer();
                        let failed = matches!(recorded, Answer::Refused { .. } | Answer::NotSent);
                        (recorded, failed.then_some(false))
                    }
                };
                if operation.record(recorded, now).is_err() {
                    return Ok(refund);
                }
                repositories.processor_operations().update(&operation, expected)?;
                record_call(repositories, scope, answer, now)?;
                let Some(succeeded) = succeeded else { return Ok(refund) };
                let mut payment = super::payment::load(repositories, scope, refund.payment_id().as_str())?;
                let refund_version = refund.version();
                refund.settle(succeeded, now)?;
                repositories.refunds().update(&refund, refund_version)?;
                if succeeded {
                    // The payment counted the refund when it was held: before it, it had not.
                    let before = payment.before_refund(&refund);
                    self.record_refunded(repositories, scope, &before, &payment, &refund, now)?;
                } else {
                    let expected = payment.version();
                    payment.give_back_refund(&refund, now)?;
                    repositories.payments().update(&payment, expected)?;
                }
                Ok(refund)
            })
        })
    }

    /// What the processor says of a refund, fetched again after its event: recorded when it
    /// settles the refund, still unanswered; nothing otherwise. Returns whether anything moved.
    ///
    /// # Errors
    /// Storage failures.
    pub(crate) fn settle_from_processor(
        &self,
        scope: &Scope,
        refund: ProcessorRefund,
    ) -> Result<bool, ApplicationError> {
        let Some(refund_id) = refund.made_for.clone() else { return Ok(false) };
        let key = refund_idempotency_key(&refund_id);
        let operation = reading(self.unit_of_work.as_ref(), |repositories| {
            Ok(repositories.processor_operations().find(scope, &key)?)
        })?;
        if operation.is_none_or(|operation| operation.state().is_final()) {
            return Ok(false);
        }
        self.record_refund_answer(scope, &refund_id, &key, &Ok(refund))?;
        Ok(true)
    }

    /// The janitor for a live refund whose answer never came: the processor is asked whether it
    /// made the refund, and the answer recorded. Returns whether anything moved.
    ///
    /// # Errors
    /// `resource_not_found` for an operation that is gone; storage failures.
    pub fn check_operation(&self, due: &Due, at: Timestamp) -> Result<bool, ApplicationError> {
        let scope = &due.scope;
        let (operation, processor_payment) = reading(self.unit_of_work.as_ref(), |repositories| {
            let operation = find_operation(repositories, scope, &due.id)?;
            let processor_payment = authorized_reference(repositories, scope, operation.payment())?;
            Ok((operation, processor_payment))
        })?;
        let OperationKind::Refund(refund_id) = operation.kind().clone() else { return Ok(false) };
        if !operation.is_due_for_a_check(at) {
            return Ok(false);
        }
        let connector = self.connectors.connector(scope)?;
        let answer = match connector.map(|connector| wait(connector.find_refund(&processor_payment, &refund_id))) {
            None => Err(unasked()),
            Some(Ok(Some(refund))) => Ok(refund),
            Some(Ok(None)) => Err(absent(&operation, at, "the processor has no refund for it")),
            Some(Err(error)) => Err(check_failed(error)),
        };
        self.record_refund_answer(scope, &refund_id, operation.idempotency_key(), &answer)?;
        Ok(true)
    }

    /// Replaces a refund's metadata.
    ///
    /// # Errors
    /// `resource_not_found`; `resource_conflict`; storage failures.
    pub fn update(&self, scope: &Scope, id: &str, metadata: Option<Metadata>) -> Result<Refund, ApplicationError> {
        let now = self.clock.now_in(scope)?;
        in_transaction(self.unit_of_work.as_ref(), |repositories| {
            let mut refund = load(repositories, scope, id)?;
            let before = self.presenter.refund(&refund);
            let expected_version = refund.version();
            refund.update(metadata.clone(), now);
            repositories.refunds().update(&refund, expected_version)?;
            let after = self.presenter.refund(&refund);
            self.event_log(scope, now).append(repositories, EventType::RefundUpdated, &after, Some(&before))?;
            Ok(refund)
        })
    }

    fn event_log<'a>(&'a self, scope: &'a Scope, now: Timestamp) -> EventLog<'a> {
        EventLog::new(self.ids.as_ref(), self.presenter.as_ref(), scope, now, self.clock.as_ref())
    }
}

/// The payment a new refund names, which must be of the scope.
fn load_refundable(
    repositories: &mut dyn Repositories,
    scope: &Scope,
    new: &NewRefund,
) -> Result<Payment, ApplicationError> {
    super::payment::load(repositories, scope, &new.payment_id).map_err(|_| {
        ApplicationError::invalid(FieldError::missing(
            "payment_id",
            format!("No payment with id {} exists.", new.payment_id),
        ))
    })
}

fn load(repositories: &mut dyn Repositories, scope: &Scope, id: &str) -> Result<Refund, ApplicationError> {
    let not_found = || ApplicationError::NotFound { resource: RESOURCE, id: id.to_owned() };
    let refund_id = RefundId::parse(id).ok_or_else(not_found)?;
    repositories.refunds().find(scope, &refund_id)?.ok_or_else(not_found)
}
