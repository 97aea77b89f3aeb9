//! The simulator as a connector: a processor kept in memory that behaves like a real one. It takes
//! tokens for the simulator's test cards, each with its behaviour. It holds, captures, voids and
//! refunds; it keeps each idempotency key's answer and answers a repeat with it; it counts the
//! charges it made. It can be told to fail the next call, by not being reachable or by acting and
//! then dropping its answer. The connector-agnostic scenarios run against it as they run against a
//! processor's emulator.

use super::simulator::{Behaviour, Simulator};
use parking_lot::Mutex;
use payments_application::ports::connector::{
    AuthorizeRequest, Capabilities, CaptureMethod, ConnectorError, ConnectorFuture, ConnectorMethod, CustomerAction,
    InboundEvent, PaymentConnector, ProcessorPayment, ProcessorPaymentState, ProcessorRefund, ProcessorRefundState,
    RefundRequest, SaveMethodRequest, SavedMethod, WebhookRefused,
};
use payments_domain::balance::Centavos;
use payments_domain::ids::{PaymentId, RefundId};
use payments_domain::payment::FeeRate;
use payments_domain::payment_intent::PaymentError;
use payments_domain::payment_method::{CardInput, CardSummary, PaymentMethodType};
use payments_domain::time::Timestamp;
use std::collections::HashMap;

/// How the next call fails, when told to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The processor cannot be reached: nothing happens.
    Unreachable,
    /// The processor acts, then its answer is lost.
    DropAnswer,
    /// The request is lost on its way after it left: the processor never sees it, and the
    /// service hears nothing.
    LoseRequest,
}

/// A payment the simulated processor keeps.
#[derive(Debug, Clone)]
struct Kept {
    payment: ProcessorPayment,
    made_for: PaymentId,
    amount: Centavos,
    refunded: Centavos,
    /// Where the customer is sent back after the processor's page: the service's return page.
    return_url: String,
}

#[derive(Debug, Default)]
struct State {
    /// Tokens made by [`SimulatedConnector::tokenize`]: the card's summary and behaviour.
    tokens: HashMap<String, (CardSummary, Behaviour)>,
    payments: HashMap<String, Kept>,
    refunds: HashMap<String, ProcessorRefund>,
    /// The processor's refund made for each of the service's refunds.
    refund_of: HashMap<String, String>,
    /// What each idempotency key was answered.
    answered: HashMap<String, Answered>,
    next_id: u64,
    charges: u64,
    fault: Option<Fault>,
}

#[derive(Debug, Clone)]
enum Answered {
    Payment(String),
    Refund(String),
}

/// The simulator as a processor behind the connector port.
#[derive(Debug)]
pub struct SimulatedConnector {
    capabilities: Capabilities,
    fee: FeeRate,
    /// The page a payment that needs the customer's action points at.
    action_base_url: String,
    state: Mutex<State>,
}

impl SimulatedConnector {
    /// A simulated processor that takes `fee` of a capture and sends customers to pages under
    /// `action_base_url`.
    #[must_use]
    pub fn new(fee: FeeRate, action_base_url: &str) -> Self {
        let capabilities = Capabilities {
            methods: PaymentMethodType::ALL.to_vec(),
            manual_capture: true,
            partial_capture: true,
            several_refunds: true,
            void: true,
            save_methods: true,
        };
        Self { capabilities, fee, action_base_url: action_base_url.to_owned(), state: Mutex::default() }
    }

    /// A token for a card, as the browser would get from the processor: the card itself stays here.
    pub fn tokenize(&self, card: &CardInput) -> String {
        let (funding, behaviour) = Simulator::test_card(card);
        let mut state = self.state.lock();
        let token = format!("tok_sim_{}", state.next_id());
        state.tokens.insert(token.clone(), (card.summary(funding), behaviour));
        token
    }

    /// Makes the next call fail so.
    pub fn fail_next(&self, fault: Fault) {
        self.state.lock().fault = Some(fault);
    }

    /// The charges (authorizations that held or took money) made so far.
    pub fn charges(&self) -> u64 {
        self.state.lock().charges
    }

    /// The customer's action on the processor's page: a payment that required it is authorized (or
    /// captured), or fails. Returns where the processor sends the customer back: the service's
    /// return page it was given.
    pub fn complete_action(
        &self,
        processor_payment: &str,
        authenticated: bool,
        capture: CaptureMethod,
    ) -> Option<String> {
        let mut state = self.state.lock();
        let back = state.payments.get(processor_payment).map(|kept| kept.return_url.clone());
        let fee = self.fee;
        let charged = match state.payments.get_mut(processor_payment) {
            Some(kept) if matches!(kept.payment.state, ProcessorPaymentState::RequiresAction { .. }) => {
                kept.payment.state = if authenticated {
                    held_or_captured(kept.amount, capture, fee)
                } else {
                    ProcessorPaymentState::Failed(PaymentError::new(
                        "authentication_failed",
                        "The customer did not authenticate.",
                    ))
                };
                authenticated
            }
            _ => false,
        };
        if charged {
            state.charges += 1;
        }
        back
    }

    /// The processor's payment made for the service's payment `payment`, by its reference.
    pub fn reference_of(&self, payment: &PaymentId) -> Option<String> {
        let state = self.state.lock();
        state.payments.iter().find(|(_, kept)| &kept.made_for == payment).map(|(reference, _)| reference.clone())
    }

    /// Runs `act` on the state unless a fault says otherwise: an unreachable processor does
    /// nothing, and one that drops its answer acts and answers nothing.
    fn call<T>(&self, act: impl FnOnce(&mut State) -> Result<T, ConnectorError>) -> Result<T, ConnectorError> {
        let mut state = self.state.lock();
        match state.fault.take() {
            Some(Fault::Unreachable) => {
                Err(ConnectorError::NotSent("the simulated processor refused the connection".into()))
            }
            Some(Fault::LoseRequest) => {
                Err(ConnectorError::OutcomeUnknown("the request to the simulated processor was lost".into()))
            }
            Some(Fault::DropAnswer) => {
                let _ = act(&mut state);
                Err(ConnectorError::OutcomeUnknown("the simulated processor's answer was lost".into()))
            }
            None => act(&mut state),
        }
    }

    fn authorize_now(&self, state: &mut State, request: &AuthorizeRequest) -> Result<ProcessorPayment, ConnectorError> {
        if let Some(Answered::Payment(id)) = state.answered.get(&request.idempotency_key) {
            return state.payment(id);
        }
        let (card, behaviour) = match &request.method {
            ConnectorMethod::Token(token) | ConnectorMethod::Saved(token) => {
                let (card, behaviour) = state.token(token)?;
                (Some(card), behaviour)
            }
            ConnectorMethod::Redirect(_) => (None, Behaviour::Challenge),
        };
        let amount = Centavos::new(request.amount.centavos());
        let id = format!("sim_pay_{}", state.next_id());
        let (payment_state, charged) = match behaviour {
            Behaviour::Approve => (held_or_captured(amount, request.capture, self.fee), true),
            Behaviour::Decline(code, detail) => (ProcessorPaymentState::Failed(PaymentError::new(code, detail)), false),
            Behaviour::Challenge => {
                let url = format!("{}/{id}", self.action_base_url.trim_end_matches('/'));
                (ProcessorPaymentState::RequiresAction { action: CustomerAction::Redirect { url } }, false)
            }
            Behaviour::Processing => (ProcessorPaymentState::Pending, false),
        };
        if charged {
            state.charges += 1;
        }
        let saved_method = request.save_method.then(|| match &request.method {
            ConnectorMethod::Token(token) | ConnectorMethod::Saved(token) => token.clone(),
            ConnectorMethod::Redirect(_) => String::new(),
        });
        let made_for = Some(request.payment.clone());
        let payment =
            ProcessorPayment { processor_reference: id.clone(), state: payment_state, card, saved_method, made_for };
        let kept = Kept {
            payment: payment.clone(),
            made_for: request.payment.clone(),
            amount,
            refunded: Centavos::ZERO,
            return_url: request.return_url.clone(),
        };
        state.payments.insert(id.clone(), kept);
        state.answered.insert(request.idempotency_key.clone(), Answered::Payment(id));
        Ok(payment)
    }

    fn capture_now(
        state: &mut State,
        processor_payment: &str,
        amount: Centavos,
        idempotency_key: &str,
        fee: FeeRate,
    ) -> Result<ProcessorPayment, ConnectorError> {
        if state.answered.contains_key(idempotency_key) {
            return state.payment(processor_payment);
        }
        let kept = state.payments.get_mut(processor_payment).ok_or_else(no_such_payment)?;
        let ProcessorPaymentState::Authorized { capturable } = kept.payment.state else {
            return Err(refused("payment_intent_unexpected_state", "The payment is not held."));
        };
        if amount > capturable || amount.get() <= 0 {
            return Err(refused("amount_too_large", "The capture is more than the hold."));
        }
        kept.payment.state = captured(amount, fee);
        let payment = kept.payment.clone();
        state.answered.insert(idempotency_key.to_owned(), Answered::Payment(processor_payment.to_owned()));
        Ok(payment)
    }

    fn void_now(
        state: &mut State,
        processor_payment: &str,
        idempotency_key: &str,
    ) -> Result<ProcessorPayment, ConnectorError> {
        if state.answered.contains_key(idempotency_key) {
            return state.payment(processor_payment);
        }
        let kept = state.payments.get_mut(processor_payment).ok_or_else(no_such_payment)?;
        match kept.payment.state {
            ProcessorPaymentState::Authorized { .. }
            | ProcessorPaymentState::RequiresAction { .. }
            | ProcessorPaymentState::Pending => kept.payment.state = ProcessorPaymentState::Voided,
            ProcessorPaymentState::Voided => {}
            ProcessorPaymentState::Captured { .. } | ProcessorPaymentState::Failed(_) => {
                return Err(refused("payment_intent_unexpected_state", "Only a hold can be voided."));
            }
        }
        let payment = kept.payment.clone();
        state.answered.insert(idempotency_key.to_owned(), Answered::Payment(processor_payment.to_owned()));
        Ok(payment)
    }

    fn refund_now(state: &mut State, request: &RefundRequest) -> Result<ProcessorRefund, ConnectorError> {
        if let Some(Answered::Refund(id)) = state.answered.get(&request.idempotency_key) {
            return state.refund(id);
        }
        let kept = state.payments.get_mut(&request.processor_payment).ok_or_else(no_such_payment)?;
        let ProcessorPaymentState::Captured { amount, .. } = kept.payment.state else {
            return Err(refused("charge_not_captured", "Only a captured payment can be refunded."));
        };
        let refunded = Centavos::new(kept.refunded.get() + request.amount.get());
        if request.amount.get() <= 0 || refunded > amount {
            return Err(refused("amount_too_large", "The refund is more than what is left of the payment."));
        }
        kept.refunded = refunded;
        let id = format!("sim_re_{}", state.next_id());
        let refund = ProcessorRefund {
            processor_reference: id.clone(),
            state: ProcessorRefundState::Succeeded,
            made_for: Some(request.refund.clone()),
        };
        state.refunds.insert(id.clone(), refund.clone());
        state.refund_of.insert(request.refund.to_string(), id.clone());
        state.answered.insert(request.idempotency_key.clone(), Answered::Refund(id));
        Ok(refund)
    }
}

impl State {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn payment(&self, id: &str) -> Result<ProcessorPayment, ConnectorError> {
        self.payments.get(id).map(|kept| kept.payment.clone()).ok_or_else(no_such_payment)
    }

    fn refund(&self, id: &str) -> Result<ProcessorRefund, ConnectorError> {
        self.refunds.get(id).cloned().ok_or_else(|| refused("resource_not_found", "No such refund at the processor."))
    }

    /// The card and behaviour of a token this processor made.
    fn token(&self, token: &str) -> Result<(CardSummary, Behaviour), ConnectorError> {
        self.tokens.get(token).cloned().ok_or_else(|| refused("parameter_invalid", "No such token at the processor."))
    }
}

/// What an approved authorization leaves: a hold, or with automatic capture a captured payment.
fn held_or_captured(amount: Centavos, capture: CaptureMethod, fee: FeeRate) -> ProcessorPaymentState {
    match capture {
        CaptureMethod::Automatic => captured(amount, fee),
        CaptureMethod::Manual => ProcessorPaymentState::Authorized { capturable: amount },
    }
}

fn captured(amount: Centavos, fee: FeeRate) -> ProcessorPaymentState {
    let fee = Centavos::new(fee.fee(amount.get()));
    ProcessorPaymentState::Captured { amount, fee, net: Centavos::new(amount.get() - fee.get()) }
}

fn refused(code: &str, detail: &str) -> ConnectorError {
    ConnectorError::Refused { code: code.to_owned(), detail: detail.to_owned() }
}

fn no_such_payment() -> ConnectorError {
    refused("resource_not_found", "No such payment at the processor.")
}

impl PaymentConnector for SimulatedConnector {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    /// It stands in for a live processor.
    fn livemode(&self) -> bool {
        true
    }

    fn authorize<'a>(&'a self, request: &'a AuthorizeRequest) -> ConnectorFuture<'a, ProcessorPayment> {
        Box::pin(async move { self.call(|state| self.authorize_now(state, request)) })
    }

    fn retrieve<'a>(&'a self, processor_payment: &'a str) -> ConnectorFuture<'a, ProcessorPayment> {
        Box::pin(async move { self.call(|state| state.payment(processor_payment)) })
    }

    fn find<'a>(
        &'a self,
        payment: &'a PaymentId,
        _sent_at: Timestamp,
    ) -> ConnectorFuture<'a, Option<ProcessorPayment>> {
        Box::pin(async move {
            self.call(|state| {
                Ok(state.payments.values().find(|kept| &kept.made_for == payment).map(|kept| kept.payment.clone()))
            })
        })
    }

    fn capture<'a>(
        &'a self,
        processor_payment: &'a str,
        amount: Centavos,
        idempotency_key: &'a str,
    ) -> ConnectorFuture<'a, ProcessorPayment> {
        Box::pin(async move {
            self.call(|state| Self::capture_now(state, processor_payment, amount, idempotency_key, self.fee))
        })
    }

    fn void<'a>(
        &'a self,
        processor_payment: &'a str,
        idempotency_key: &'a str,
    ) -> ConnectorFuture<'a, ProcessorPayment> {
        Box::pin(async move { self.call(|state| Self::void_now(state, processor_payment, idempotency_key)) })
    }

    fn refund<'a>(&'a self, request: &'a RefundRequest) -> ConnectorFuture<'a, ProcessorRefund> {
        Box::pin(async move { self.call(|state| Self::refund_now(state, request)) })
    }

    fn save_method<'a>(&'a self, request: &'a SaveMethodRequest) -> ConnectorFuture<'a, SavedMethod> {
        Box::pin(async move {
            self.call(|state| {
                let (card, behaviour) = state.token(&request.token)?;
                Ok(match behaviour {
                    Behaviour::Decline(code, detail) => SavedMethod::Failed(PaymentError::new(code, detail)),
                    Behaviour::Approve | Behaviour::Challenge | Behaviour::Processing => {
                        SavedMethod::Saved { processor_reference: request.token.clone(), card }
                    }
                })
            })
        })
    }

    fn retrieve_refund<'a>(&'a self, processor_refund: &'a str) -> ConnectorFuture<'a, ProcessorRefund> {
        Box::pin(async move { self.call(|state| state.refund(processor_refund)) })
    }

    fn find_refund<'a>(
        &'a self,
        _processor_payment: &'a str,
        refund: &'a RefundId,
    ) -> ConnectorFuture<'a, Option<ProcessorRefund>> {
        Box::pin(async move {
            self.call(|state| state.refund_of.get(refund.as_str()).map(|id| state.refund(id)).transpose())
        })
    }

    fn verify_webhook(
        &self,
        _headers: &[(String, String)],
        _body: &[u8],
        _now: Timestamp,
    ) -> Result<(), WebhookRefused> {
        Err(WebhookRefused("the simulated processor sends no webhooks".to_owned()))
    }

    fn parse_webhook(&self, _body: &[u8]) -> Result<InboundEvent, WebhookRefused> {
        Err(WebhookRefused("the simulated processor sends no webhooks".to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;
    use payments_domain::money::Amount;
    use payments_domain::payment_method::{CardNumber, Cvc};

    const CARD_FEE: FeeRate = FeeRate { basis_points: 350, fixed: 1_500 };

    fn connector() -> SimulatedConnector {
        SimulatedConnector::new(CARD_FEE, "http://127.0.0.1:1/sim/authenticate")
    }

    fn token(connector: &SimulatedConnector, number: &str) -> String {
        let card = CardInput {
            number: CardNumber::new(number).unwrap(),
            exp_month: 12,
            exp_year: 2040,
            cvc: Cvc::new("123").unwrap(),
        };
        connector.tokenize(&card)
    }

    fn request(token: String, capture: CaptureMethod, key: &str) -> AuthorizeRequest {
        AuthorizeRequest {
            payment: PaymentId::from_random("0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b"),
            idempotency_key: key.to_owned(),
            amount: Amount::new(10_000).unwrap(),
            method: ConnectorMethod::Token(token),
            capture,
            return_url: "http://127.0.0.1:1/return".to_owned(),
            save_method: false,
        }
    }

    /// The call's answer: the simulated processor answers at once.
    fn now<T>(future: ConnectorFuture<'_, T>) -> Result<T, ConnectorError> {
        future.now_or_never().expect("the simulated processor answers at once")
    }

    #[test]
    fn a_token_never_holds_the_card_and_an_approved_card_is_captured_with_the_fee() {
        let connector = connector();
        let token = token(&connector, "4242424242424242");
        assert!(!token.contains("4242"), "{token}");
        let paid = now(connector.authorize(&request(token, CaptureMethod::Automatic, "pay_1:authorize"))).unwrap();
        let fee = Centavos::new(1_850);
        assert_eq!(
            paid.state,
            ProcessorPaymentState::Captured { amount: Centavos::new(10_000), fee, net: Centavos::new(8_150) }
        );
        assert_eq!(paid.card.as_ref().map(|card| card.last4.as_str()), Some("4242"));
        assert_eq!(connector.charges(), 1);
    }

    #[test]
    fn a_repeated_key_is_answered_as_before_and_charges_once() {
        let connector = connector();
        let request = request(token(&connector, "4242424242424242"), CaptureMethod::Automatic, "pay_1:authorize");
        let first = now(connector.authorize(&request)).unwrap();
        let again = now(connector.authorize(&request)).unwrap();
        assert_eq!(first, again);
        assert_eq!(connector.charges(), 1);
    }

    #[test]
    fn a_hold_is_captured_in_part_once_and_refunded_up_to_what_was_captured() {
        let connector = connector();
        let held =
            now(connector.authorize(&request(token(&connector, "4242424242424242"), CaptureMethod::Manual, "k")))
                .unwrap();
        assert_eq!(held.state, ProcessorPaymentState::Authorized { capturable: Centavos::new(10_000) });
        let id = held.processor_reference.as_str();
        let too_much = now(connector.capture(id, Centavos::new(12_000), "k:capture")).unwrap_err();
        assert!(
            matches!(too_much, ConnectorError::Refused { ref code, .. } if code == "amount_too_large"),
            "{too_much}"
        );
        let captured = now(connector.capture(id, Centavos::new(6_000), "k:capture")).unwrap();
        assert!(
            matches!(captured.state, ProcessorPaymentState::Captured { amount, .. } if amount == Centavos::new(6_000))
        );
        let refund = |amount: i64, key: &str| RefundRequest {
            refund: payments_domain::ids::RefundId::from_random(key),
            processor_payment: id.to_owned(),
            idempotency_key: key.to_owned(),
            amount: Centavos::new(amount),
        };
        assert!(now(connector.refund(&refund(2_000, "r1"))).is_ok());
        assert!(now(connector.refund(&refund(3_000, "r2"))).is_ok());
        let over = now(connector.refund(&refund(1_001, "r3"))).unwrap_err();
        assert!(matches!(over, ConnectorError::Refused { .. }), "{over}");
        assert!(now(connector.void(id, "k:void")).is_err(), "a captured payment is not voided");
    }

    #[test]
    fn declines_challenges_and_voids() {
        let connector = connector();
        let declined =
            now(connector.authorize(&request(token(&connector, "4005550000000019"), CaptureMethod::Automatic, "a")))
                .unwrap();
        assert!(matches!(declined.state, ProcessorPaymentState::Failed(ref error) if error.code == "generic_decline"));
        let challenged =
            now(connector.authorize(&request(token(&connector, "4000000000003220"), CaptureMethod::Manual, "b")))
                .unwrap();
        let ProcessorPaymentState::RequiresAction { action: CustomerAction::Redirect { url } } = &challenged.state
        else {
            panic!("{challenged:?}")
        };
        assert!(url.ends_with(&challenged.processor_reference), "{url}");
        assert_eq!(connector.charges(), 0);
        connector.complete_action(&challenged.processor_reference, true, CaptureMethod::Manual);
        let held = now(connector.retrieve(&challenged.processor_reference)).unwrap();
        assert_eq!(held.state, ProcessorPaymentState::Authorized { capturable: Centavos::new(10_000) });
        let voided = now(connector.void(&held.processor_reference, "b:void")).unwrap();
        assert_eq!(voided.state, ProcessorPaymentState::Voided);
        assert_eq!(connector.charges(), 1);
    }

    #[test]
    fn faults_tell_a_request_not_sent_from_one_whose_answer_was_lost() {
        let connector = connector();
        let request = request(token(&connector, "4242424242424242"), CaptureMethod::Automatic, "pay_1:authorize");
        connector.fail_next(Fault::Unreachable);
        assert!(matches!(now(connector.authorize(&request)), Err(ConnectorError::NotSent(_))));
        assert_eq!(connector.charges(), 0);
        assert_eq!(
            now(connector.find(&request.payment, Timestamp::from_unix_seconds(0))).unwrap(),
            None,
            "nothing was made"
        );
        connector.fail_next(Fault::DropAnswer);
        assert!(matches!(now(connector.authorize(&request)), Err(ConnectorError::OutcomeUnknown(_))));
        assert_eq!(connector.charges(), 1, "it acted");
        let found = now(connector.find(&request.payment, Timestamp::from_unix_seconds(0)))
            .unwrap()
            .expect("the lost answer's payment is found");
        assert!(matches!(found.state, ProcessorPaymentState::Captured { .. }));
        assert_eq!(now(connector.authorize(&request)).unwrap(), found, "a retry with the key is the same payment");
        assert_eq!(connector.charges(), 1);
    }
}
