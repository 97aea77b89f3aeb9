//! A connector to a processor with Stripe's API (payment methods, payment intents, refunds), proven
//! against localstripe. A card is tokenized in the browser with the publishable key; the service
//! sends only the processor's id for it: a payment method (`pm_…`), or a card token (`tok_…`), which
//! a customer of its own at the processor keeps so that a payment intent can charge its card. A payment is a payment intent made with its method and then
//! confirmed (localstripe answers 500 to a confirm that names the method), with the service's
//! `pay_…` in its metadata, which is how `find` recognizes it. Its requests carry the operation's
//! idempotency key; localstripe ignores them, which the service's operations written ahead of the
//! call do not rely on. Its HTTP runs on a runtime of its own, so a call can be waited for from
//! any thread.

use hmac::{Hmac, Mac};
use payments_application::ports::connector::{
    AuthorizeRequest, Capabilities, CaptureMethod, ConnectorError, ConnectorFuture, ConnectorMethod, CustomerAction,
    InboundEvent, InboundObject, PaymentConnector, ProcessorPayment, ProcessorPaymentState, ProcessorRefund,
    ProcessorRefundState, RefundRequest, SaveMethodRequest, SavedMethod, WebhookRefused,
};
use payments_domain::balance::Centavos;
use payments_domain::ids::{PaymentId, RefundId};
use payments_domain::payment_intent::PaymentError;
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::time::Timestamp;
use reqwest::{Method, StatusCode};
use serde_json::Value;
use sha2::Sha256;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The metadata key of a processor payment that names the service's payment.
const PAYMENT_METADATA: &str = "payrex_payment";
const PAYMENT_METADATA_FIELD: &str = "metadata[payrex_payment]";
/// The metadata key of a processor refund that names the service's refund, and its form field.
const REFUND_METADATA: &str = "payrex_refund";
const REFUND_METADATA_FIELD: &str = "metadata[payrex_refund]";
/// How long a request may take before its outcome is unknown (Stripe's own libraries wait 80 s).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(80);
/// How long a connection may take before the request is known not to have been sent.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How old a webhook's signature may be.
const SIGNATURE_TOLERANCE_SECONDS: i64 = 300;
/// How much earlier than the operation's sending a payment intent may look made, by the two
/// clocks' drift: `find` pages back to there.
const CLOCK_DRIFT_SECONDS: i64 = 300;

/// Where the processor is and the account's keys there.
#[derive(Clone)]
pub struct StripeSettings {
    /// `https://api.stripe.com`, or an emulator's address.
    pub api_base_url: String,
    pub secret_key: String,
    /// The secret webhooks are signed with (`whsec_…`).
    pub webhook_secret: String,
}

impl std::fmt::Debug for StripeSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripeSettings").field("api_base_url", &self.api_base_url).finish_non_exhaustive()
    }
}

/// The Stripe-API connector of one account.
pub struct StripeConnector {
    api: Arc<Api>,
    capabilities: Capabilities,
}

/// What a request needs, shared with the calls running on the connectors' runtime.
struct Api {
    client: reqwest::Client,
    settings: StripeSettings,
}

impl StripeConnector {
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new(settings: StripeSettings) -> Result<Self, reqwest::Error> {
        let client = reqwest::Client::builder().timeout(REQUEST_TIMEOUT).connect_timeout(CONNECT_TIMEOUT).build()?;
        let capabilities = Capabilities {
            methods: vec![PaymentMethodType::Card],
            manual_capture: true,
            partial_capture: true,
            several_refunds: true,
            void: true,
            save_methods: false,
        };
        Ok(Self { api: Arc::new(Api { client, settings }), capabilities })
    }

    /// Runs `call` on the connectors' runtime and waits for it from wherever this future is polled.
    fn run<T: Send + 'static>(
        &self,
        call: impl FnOnce(Arc<Api>) -> std::pin::Pin<Box<dyn Future<Output = Result<T, ConnectorError>> + Send>>,
    ) -> ConnectorFuture<'_, T> {
        let running = runtime().spawn(call(self.api.clone()));
        Box::pin(async move {
            running.await.map_err(|error| ConnectorError::OutcomeUnknown(format!("the call stopped: {error}")))?
        })
    }
}

/// The runtime every connector's HTTP runs on: one thread of its own, started once and never
/// stopped, so a call works from the blocking pool, a background job or a test's thread alike.
fn runtime() -> &'static tokio::runtime::Handle {
    static RUNTIME: OnceLock<tokio::runtime::Handle> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("connector-http")
            .enable_all()
            .build()
            .unwrap_or_else(|error| panic!("the connectors' runtime cannot start: {error}"));
        let handle = runtime.handle().clone();
        // Kept for the life of the process: a runtime dropped inside another one panics.
        std::mem::forget(runtime);
        handle
    })
}

/// What a read after a write that the processor took ends in: when it fails, whatever the write
/// did stands at the processor, so the outcome is unknown and asked for later, never "not sent".
fn read_after_write<T>(read: Result<T, ConnectorError>) -> Result<T, ConnectorError> {
    read.map_err(|error| match error {
        ConnectorError::OutcomeUnknown(_) => error,
        other => ConnectorError::OutcomeUnknown(format!("the processor acted, and then {other}")),
    })
}

impl Api {
    /// One request: a form body, and an idempotency key for those that change something.
    async fn send(
        &self,
        method: Method,
        path: &str,
        form: &[(&str, String)],
        idempotency_key: Option<&str>,
    ) -> Result<Value, ConnectorError> {
        let url = format!("{}{path}", self.settings.api_base_url.trim_end_matches('/'));
        let mut request = self.client.request(method, url).basic_auth(&self.settings.secret_key, Some(""));
        if let Some(key) = idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        if !form.is_empty() {
            request = request.form(form);
        }
        let response = request.send().await.map_err(|error| {
            // The processor's address is the operator's setting, not the merchant's to read.
            let error = error.without_url();
            if error.is_connect() {
                ConnectorError::NotSent(format!("no connection to the processor: {error}"))
            } else {
                ConnectorError::OutcomeUnknown(format!("no answer from the processor: {error}"))
            }
        })?;
        let status = response.status();
        let body: Value = response
            .json()
            .await
            .map_err(|error| ConnectorError::OutcomeUnknown(format!("an unreadable answer ({status}): {error}")))?;
        if status.is_success() {
            return Ok(body);
        }
        let error = &body["error"];
        let message = error["message"].as_str().unwrap_or("The processor refused the request.").to_owned();
        Err(match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                ConnectorError::Misconfigured(format!("the processor refused the secret key: {message}"))
            }
            status if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS => {
                ConnectorError::OutcomeUnknown(format!("the processor answered {status}: {message}"))
            }
            _ => ConnectorError::Refused { code: contract_code(error), detail: message },
        })
    }

    async fn payment_intent(&self, id: &str) -> Result<ProcessorPayment, ConnectorError> {
        let intent = self.send(Method::GET, &format!("/v1/payment_intents/{id}"), &[], None).await?;
        self.processor_payment(&intent).await
    }

    /// A payment intent as the port tells it, with the fee of its charge's balance transaction.
    async fn processor_payment(&self, intent: &Value) -> Result<ProcessorPayment, ConnectorError> {
        let reference = intent["id"].as_str().unwrap_or_default().to_owned();
        let state = match intent["status"].as_str().unwrap_or_default() {
            "succeeded" => self.captured(intent).await?,
            "requires_capture" => {
                let capturable = intent["amount_capturable"].as_i64().or_else(|| intent["amount"].as_i64());
                ProcessorPaymentState::Authorized { capturable: Centavos::new(capturable.unwrap_or(0)) }
            }
            "requires_action" => {
                // A redirect's address when Stripe gives one; otherwise (`use_stripe_sdk`) Stripe.js
                // finishes the authentication with the intent's client secret.
                let action = match intent["next_action"]["redirect_to_url"]["url"].as_str() {
                    Some(url) => CustomerAction::Redirect { url: url.to_owned() },
                    None => CustomerAction::Script {
                        client_secret: intent["client_secret"].as_str().unwrap_or_default().to_owned(),
                    },
                };
                ProcessorPaymentState::RequiresAction { action }
            }
            "canceled" => ProcessorPaymentState::Voided,
            "requires_payment_method" if intent["last_payment_error"].is_object() => {
                let error = &intent["last_payment_error"];
                let detail = error["message"].as_str().unwrap_or("The card was declined.");
                ProcessorPaymentState::Failed(PaymentError::new(&contract_code(error), detail))
            }
            _ => ProcessorPaymentState::Pending,
        };
        let made_for = intent["metadata"][PAYMENT_METADATA].as_str().and_then(PaymentId::parse);
        Ok(ProcessorPayment { processor_reference: reference, state, card: None, saved_method: None, made_for })
    }

    /// A captured payment: what was captured (Stripe's `amount_received`; localstripe, which lacks
    /// it, captures less than the hold as the whole and a refund of the rest), and the fee.
    async fn captured(&self, intent: &Value) -> Result<ProcessorPaymentState, ConnectorError> {
        let charge = &intent["charges"]["data"][0];
        let amount = intent["amount_received"].as_i64().unwrap_or_else(|| {
            charge["amount"].as_i64().unwrap_or(0) - charge["amount_refunded"].as_i64().unwrap_or(0)
        });
        let fee = match charge["balance_transaction"].as_str() {
            Some(transaction) => {
                let path = format!("/v1/balance_transactions/{transaction}");
                self.send(Method::GET, &path, &[], None).await?["fee"].as_i64().unwrap_or(0)
            }
            None => 0,
        };
        Ok(ProcessorPaymentState::Captured {
            amount: Centavos::new(amount),
            fee: Centavos::new(fee),
            net: Centavos::new(amount - fee),
        })
    }
}

/// The contract's `last_payment_error` code for a processor's error, by table.
fn contract_code(error: &Value) -> String {
    let code = error["code"].as_str().unwrap_or_default();
    let decline = error["decline_code"].as_str().unwrap_or_default();
    let mapped = match (code, decline) {
        (_, "insufficient_funds") => "funds_insufficient",
        (_, "lost_card" | "stolen_card" | "pickup_card" | "restricted_card") => "blocked",
        ("expired_card", _) | (_, "expired_card") => "card_expired",
        ("incorrect_cvc", _) | (_, "incorrect_cvc") => "cvc_incorrect",
        ("payment_intent_authentication_failure" | "authentication_required", _) => "authentication_failed",
        ("card_declined", _) => "generic_decline",
        ("processing_error", _) => "processing_error",
        ("amount_too_large" | "amount_too_small", _) => "parameter_invalid",
        ("resource_missing", _) => "resource_not_found",
        _ => "processing_error",
    };
    mapped.to_owned()
}

fn refund_state(refund: &Value) -> ProcessorRefund {
    let state = match refund["status"].as_str().unwrap_or_default() {
        "succeeded" => ProcessorRefundState::Succeeded,
        "failed" | "canceled" => ProcessorRefundState::Failed(PaymentError::new(
            "processing_error",
            refund["failure_reason"].as_str().unwrap_or("The processor did not refund."),
        )),
        _ => ProcessorRefundState::Pending,
    };
    ProcessorRefund {
        processor_reference: refund["id"].as_str().unwrap_or_default().to_owned(),
        state,
        made_for: refund["metadata"][REFUND_METADATA].as_str().and_then(RefundId::parse),
    }
}

impl PaymentConnector for StripeConnector {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    /// A live secret key (`sk_live_…`) is the processor's live mode.
    fn livemode(&self) -> bool {
        self.api.settings.secret_key.starts_with("sk_live_")
    }

    fn authorize<'a>(&'a self, request: &'a AuthorizeRequest) -> ConnectorFuture<'a, ProcessorPayment> {
        let request = request.clone();
        self.run(move |api| {
            Box::pin(async move {
                let key = &request.idempotency_key;
                let mut form = match &request.method {
                    // A card token from the browser is kept by a customer of its own at the
                    // processor, whose card the payment intent charges.
                    ConnectorMethod::Token(token) if token.starts_with("tok_") => {
                        let customer_key = format!("{key}:customer");
                        let customer = api
                            .send(Method::POST, "/v1/customers", &[("source", token.clone())], Some(&customer_key))
                            .await?;
                        let field = |name: &str| customer[name].as_str().map(str::to_owned);
                        let (Some(customer), Some(card)) = (field("id"), field("default_source")) else {
                            return Err(ConnectorError::Refused {
                                code: "parameter_invalid".into(),
                                detail: "The processor kept no card for the token.".into(),
                            });
                        };
                        vec![("customer", customer), ("payment_method", card)]
                    }
                    ConnectorMethod::Token(method) | ConnectorMethod::Saved(method) => {
                        vec![("payment_method", method.clone())]
                    }
                    ConnectorMethod::Redirect(method) => {
                        return Err(ConnectorError::Refused {
                            code: "parameter_invalid".into(),
                            detail: format!("This processor does not take {}.", method.as_str()),
                        })
                    }
                };
                let capture = match request.capture {
                    CaptureMethod::Automatic => "automatic",
                    CaptureMethod::Manual => "manual",
                };
                form.extend([
                    ("amount", request.amount.centavos().to_string()),
                    ("currency", "php".to_owned()),
                    ("capture_method", capture.to_owned()),
                    (PAYMENT_METADATA_FIELD, request.payment.to_string()),
                ]);
                let made = api.send(Method::POST, "/v1/payment_intents", &form, Some(key)).await?;
                let id = made["id"].as_str().unwrap_or_default().to_owned();
                let confirm_key = format!("{key}:confirm");
                let path = format!("/v1/payment_intents/{id}/confirm");
                match api.send(Method::POST, &path, &[], Some(&confirm_key)).await {
                    Ok(confirmed) => read_after_write(api.processor_payment(&confirmed).await),
                    // A decline refuses the confirm: the payment intent tells how it failed.
                    Err(ConnectorError::Refused { .. }) => read_after_write(api.payment_intent(&id).await),
                    Err(other) => Err(other),
                }
            })
        })
    }

    fn retrieve<'a>(&'a self, processor_payment: &'a str) -> ConnectorFuture<'a, ProcessorPayment> {
        let id = processor_payment.to_owned();
        self.run(move |api| Box::pin(async move { api.payment_intent(&id).await }))
    }

    /// Pages through the payment intents, newest first, back to those made before the
    /// authorization was sent (less the clocks' drift), for the one whose metadata names `payment`.
    fn find<'a>(&'a self, payment: &'a PaymentId, sent_at: Timestamp) -> ConnectorFuture<'a, Option<ProcessorPayment>> {
        let payment = payment.to_string();
        let oldest = sent_at.unix_seconds() - CLOCK_DRIFT_SECONDS;
        self.run(move |api| {
            Box::pin(async move {
                let mut after: Option<String> = None;
                loop {
                    let query = match &after {
                        Some(last) => format!("/v1/payment_intents?limit=100&starting_after={last}"),
                        None => "/v1/payment_intents?limit=100".to_owned(),
                    };
                    let page = api.send(Method::GET, &query, &[], None).await?;
                    let intents = page["data"].as_array().cloned().unwrap_or_default();
                    if let Some(intent) =
                        intents.iter().find(|intent| intent["metadata"][PAYMENT_METADATA].as_str() == Some(&payment))
                    {
                        // Made and never confirmed: nothing was charged.
                        if intent["status"] == "requires_confirmation" {
                            return Ok(None);
                        }
                        return api.processor_payment(intent).await.map(Some);
                    }
                    let older =
                        intents.last().and_then(|intent| intent["created"].as_i64()).is_some_and(|made| made < oldest);
                    if page["has_more"] != true || older {
                        return Ok(None);
                    }
                    after = intents.last().and_then(|intent| intent["id"].as_str()).map(str::to_owned);
                    if after.is_none() {
                        return Err(ConnectorError::OutcomeUnknown("the processor's list has no cursor".into()));
                    }
                }
            })
        })
    }

    fn capture<'a>(
        &'a self,
        processor_payment: &'a str,
        amount: Centavos,
        idempotency_key: &'a str,
    ) -> ConnectorFuture<'a, ProcessorPayment> {
        let (id, key) = (processor_payment.to_owned(), idempotency_key.to_owned());
        self.run(move |api| {
            Box::pin(async move {
                let form = [("amount_to_capture", amount.get().to_string())];
                let path = format!("/v1/payment_intents/{id}/capture");
                let captured = api.send(Method::POST, &path, &form, Some(&key)).await?;
                read_after_write(api.processor_payment(&captured).await)
            })
        })
    }

    fn void<'a>(
        &'a self,
        processor_payment: &'a str,
        idempotency_key: &'a str,
    ) -> ConnectorFuture<'a, ProcessorPayment> {
        let (id, key) = (processor_payment.to_owned(), idempotency_key.to_owned());
        self.run(move |api| {
            Box::pin(async move {
                let path = format!("/v1/payment_intents/{id}/cancel");
                let canceled = api.send(Method::POST, &path, &[], Some(&key)).await?;
                read_after_write(api.processor_payment(&canceled).await)
            })
        })
    }

    fn refund<'a>(&'a self, request: &'a RefundRequest) -> ConnectorFuture<'a, ProcessorRefund> {
        let request = request.clone();
        self.run(move |api| {
            Box::pin(async move {
                let form = [
                    ("payment_intent", request.processor_payment.clone()),
                    ("amount", request.amount.get().to_string()),
                    (REFUND_METADATA_FIELD, request.refund.to_string()),
                ];
                let refund = api.send(Method::POST, "/v1/refunds", &form, Some(&request.idempotency_key)).await?;
                Ok(refund_state(&refund))
            })
        })
    }

    fn save_method<'a>(&'a self, _request: &'a SaveMethodRequest) -> ConnectorFuture<'a, SavedMethod> {
        Box::pin(async {
            Err(ConnectorError::Refused {
                code: "parameter_invalid".into(),
                detail: "This connector does not save payment methods yet.".into(),
            })
        })
    }

    fn retrieve_refund<'a>(&'a self, processor_refund: &'a str) -> ConnectorFuture<'a, ProcessorRefund> {
        let id = processor_refund.to_owned();
        self.run(move |api| {
            Box::pin(
                async move { Ok(refund_state(&api.send(Method::GET, &format!("/v1/refunds/{id}"), &[], None).await?)) },
            )
        })
    }

    fn find_refund<'a>(
        &'a self,
        processor_payment: &'a str,
        refund: &'a RefundId,
    ) -> ConnectorFuture<'a, Option<ProcessorRefund>> {
        let (payment, refund) = (processor_payment.to_owned(), refund.to_string());
        self.run(move |api| {
            Box::pin(async move {
                let mut after: Option<String> = None;
                loop {
                    let mut path = format!("/v1/refunds?payment_intent={payment}&limit=100");
                    if let Some(last) = &after {
                        path.push_str(&format!("&starting_after={last}"));
                    }
                    let page = api.send(Method::GET, &path, &[], None).await?;
                    let refunds = page["data"].as_array().cloned().unwrap_or_default();
                    let found =
                        refunds.iter().find(|made| made["metadata"][REFUND_METADATA].as_str() == Some(refund.as_str()));
                    if let Some(found) = found {
                        return Ok(Some(refund_state(found)));
                    }
                    after = refunds.last().and_then(|made| made["id"].as_str()).map(str::to_owned);
                    if page["has_more"] != true || after.is_none() {
                        return Ok(None);
                    }
                }
            })
        })
    }

    /// `Stripe-Signature: t=…,v1=…`: HMAC-SHA256 of `t.body` under the webhook secret, made at most
    /// five minutes before `now`.
    fn verify_webhook(&self, headers: &[(String, String)], body: &[u8], now: Timestamp) -> Result<(), WebhookRefused> {
        let refused = |why: &str| WebhookRefused(why.to_owned());
        let header = headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("stripe-signature"))
            .map(|(_, value)| value.as_str())
            .ok_or_else(|| refused("no Stripe-Signature header"))?;
        let parts: Vec<(&str, &str)> = header.split(',').filter_map(|part| part.trim().split_once('=')).collect();
        let signed_at = parts
            .iter()
            .find(|(name, _)| *name == "t")
            .and_then(|(_, value)| value.parse::<i64>().ok())
            .ok_or_else(|| refused("no time in the signature"))?;
        if now.unix_seconds().saturating_sub(signed_at).saturating_abs() > SIGNATURE_TOLERANCE_SECONDS {
            return Err(refused("the signature's time is not within five minutes of now"));
        }
        let signed = parts.iter().filter(|(name, _)| *name == "v1").any(|(_, signature)| {
            let Ok(expected) = hex::decode(signature) else { return false };
            let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(self.api.settings.webhook_secret.as_bytes()) else {
                return false;
            };
            mac.update(format!("{signed_at}.").as_bytes());
            mac.update(body);
            mac.verify_slice(&expected).is_ok()
        });
        if signed {
            Ok(())
        } else {
            Err(refused("the signature does not match"))
        }
    }

    fn parse_webhook(&self, body: &[u8]) -> Result<InboundEvent, WebhookRefused> {
        let event: Value =
            serde_json::from_slice(body).map_err(|_| WebhookRefused("the body is not a JSON event".into()))?;
        let event_id = event["id"].as_str().ok_or_else(|| WebhookRefused("the event has no id".into()))?.to_owned();
        let object = &event["data"]["object"];
        let id = object["id"].as_str().unwrap_or_default().to_owned();
        let object = match object["object"].as_str() {
            Some("payment_intent") => InboundObject::Payment(id),
            Some("refund") => InboundObject::Refund(id),
            _ => InboundObject::Ignored,
        };
        Ok(InboundEvent { event_id, livemode: event["livemode"] == true, object })
    }
}
