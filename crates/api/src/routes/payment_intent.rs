//! `/payment_intents`: create, retrieve (secret key, or public key with the client secret), update,
//! attach, capture and cancel; and the test helpers that finish a pending redirect or processing.

use super::endpoint::{Auth, Endpoint};
use super::payment_method::{card_options, payment_method, payment_methods};
use super::pending_authorization::{complete_redirect, finish_processing};
use super::support::{access, client_secret, ok, verdict};
use crate::auth::{AnyKey, SecretKey};
use crate::decode::{names, BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::payment_intent::{PaymentIntentResource, PublicPaymentIntentResource};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::services::{
    AttachOutcome, AttachRequest, PaymentIntentService, PaymentIntentView, PaymentMethodChoice,
};
use payments_domain::account::KeyKind;
use payments_domain::description::Description;
use payments_domain::ids::CustomerId;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::metadata::Metadata;
use payments_domain::money::{Amount, Currency};
use payments_domain::payment_intent::{NewPaymentIntent, PaymentError, PaymentIntentChanges};
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::validation::{FieldError, Invalid};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/payment_intents", create)
            .named("create_payment_intent", "Create a payment intent")
            .body(new_payment_intent)
            .answers::<PaymentIntentResource>(),
        Endpoint::get("/payment_intents/{id}", retrieve)
            .named("retrieve_payment_intent", "Retrieve a payment intent")
            .auth(Auth::AnyKey)
            .query(client_secret)
            .answers::<PaymentIntentResource>()
            .answers::<PublicPaymentIntentResource>(),
        Endpoint::put("/payment_intents/{id}", update)
            .named("update_payment_intent", "Update a payment intent before it is paid")
            .body(payment_intent_changes)
            .answers::<PaymentIntentResource>(),
        Endpoint::post("/payment_intents/{id}/attach", attach)
            .named("attach_payment_intent", "Attach a payment method and pay")
            .auth(Auth::AnyKey)
            .body(attach_params)
            .answers::<PaymentIntentResource>()
            .answers::<PublicPaymentIntentResource>(),
        Endpoint::post("/payment_intents/{id}/capture", capture)
            .named("capture_payment_intent", "Capture a held payment, all or part")
            .body(capture_amount)
            .answers::<PaymentIntentResource>(),
        Endpoint::post("/payment_intents/{id}/cancel", cancel)
            .named("cancel_payment_intent", "Cancel a payment intent")
            .answers::<PaymentIntentResource>(),
        Endpoint::post(
            "/test_helpers/payment_intents/{id}/complete_redirect",
            complete_redirect::<PaymentIntentService>,
        )
        .named(
            "complete_payment_intent_redirect",
            "Test mode: finish the pending 3-D Secure or e-wallet redirect as the test page would",
        )
        .body(verdict)
        .answers::<PaymentIntentResource>(),
        Endpoint::post(
            "/test_helpers/payment_intents/{id}/finish_processing",
            finish_processing::<PaymentIntentService>,
        )
        .named("finish_payment_intent_processing", "Test mode: the processor answers a processing payment now")
        .body(verdict)
        .answers::<PaymentIntentResource>(),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_payment_intent(&mut params);
    let new = params.finish(new)?;
    let view = blocking(move || services.payment_intents.create(&scope, new)).await?;
    Ok(ok(&PaymentIntentResource::new(&view)))
}

async fn retrieve(
    AnyKey(caller): AnyKey,
    id: web::Path<String>,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let client_secret = client_secret(&mut params);
    params.finish(Some(()))?;
    let kind = caller.key_kind;
    let view = blocking(move || {
        let access = access(kind, client_secret.as_deref());
        services.payment_intents.retrieve(&caller.scope, &id, access)
    })
    .await?;
    Ok(render(&view, kind))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = payment_intent_changes(&mut params);
    let changes = params.finish(changes)?;
    let view = blocking(move || services.payment_intents.update(&scope, &id, changes)).await?;
    Ok(ok(&PaymentIntentResource::new(&view)))
}

async fn attach(
    AnyKey(caller): AnyKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = attach_params(&mut params);
    let (client_secret, request) = params.finish(request)?;
    let kind = caller.key_kind;
    let outcome = blocking(move || {
        let access = access(kind, client_secret.as_deref());
        services.payment_intents.attach(&caller.scope, &id, access, request)
    })
    .await?;
    match outcome {
        AttachOutcome::Attached(view) => Ok(render(&view, kind)),
        AttachOutcome::Declined(_, PaymentError { code, detail }) => Err(ApiError::declined(&code, &detail)),
    }
}

async fn capture(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let amount = capture_amount(&mut params);
    let amount = params.finish(amount)?;
    let view = blocking(move || services.payment_intents.capture(&scope, &id, amount)).await?;
    Ok(ok(&PaymentIntentResource::new(&view)))
}

async fn cancel(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.payment_intents.cancel(&scope, &id)).await?;
    Ok(ok(&PaymentIntentResource::new(&view)))
}

/// The whole intent for a secret key; what a browser needs for a public key.
fn render(view: &PaymentIntentView, kind: KeyKind) -> HttpResponse {
    match kind {
        KeyKind::Secret => ok(&PaymentIntentResource::new(view)),
        KeyKind::Public => ok(&PublicPaymentIntentResource::new(&view.intent)),
    }
}

fn new_payment_intent(params: &mut Params) -> Option<NewPaymentIntent> {
    let amount = params.amount("amount");
    let currency = params
        .required_choice("currency", || names(&Currency::ALL, Currency::code))
        .and_then(|c| params.check("currency", Currency::parse(&c)));
    let payment_methods = payment_methods(params);
    let fields = shared_fields(params);
    let card_options = params.object("payment_method_options", |options| options.object("card", card_options));
    // Every missing parameter is reported before any `?` returns.
    let amount = params.require("amount", amount);
    let currency = params.require("currency", currency);
    let payment_methods = params.require("payment_methods", payment_methods);
    Some(NewPaymentIntent {
        amount: amount?,
        currency: currency?,
        payment_methods: payment_methods?,
        statement_descriptor: fields.statement_descriptor,
        description: fields.description,
        metadata: fields.metadata,
        customer_id: fields.customer_id,
        return_url: fields.return_url,
        card_options: card_options.unwrap_or_default(),
    })
}

fn payment_intent_changes(params: &mut Params) -> Option<PaymentIntentChanges> {
    let amount = params.amount("amount");
    let fields = shared_fields(params);
    Some(PaymentIntentChanges {
        amount,
        description: fields.description,
        statement_descriptor: fields.statement_descriptor,
        metadata: fields.metadata,
        customer_id: fields.customer_id,
        return_url: fields.return_url,
    })
}

/// The optional fields that create and update read alike.
struct SharedFields {
    description: Option<Description>,
    statement_descriptor: Option<StatementDescriptor>,
    metadata: Option<Metadata>,
    customer_id: Option<CustomerId>,
    return_url: Option<RedirectUrl>,
}

fn shared_fields(params: &mut Params) -> SharedFields {
    let description = params.description("description");
    let statement_descriptor = params.statement_descriptor("statement_descriptor");
    let metadata = params.metadata("metadata");
    let customer_id = params.string("customer_id", IDENTIFIER_LENGTH).and_then(|id| {
        let parsed =
            CustomerId::parse(&id).ok_or_else(|| Invalid::missing(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    let return_url = params.redirect_url("return_url");
    SharedFields { description, statement_descriptor, metadata, customer_id, return_url }
}

/// A capture's `amount`; the whole capturable amount when absent.
pub(crate) fn capture_amount(params: &mut Params) -> Option<Option<Amount>> {
    Some(params.amount("amount"))
}

/// An attach: the client secret for a public key, and what pays.
fn attach_params(params: &mut Params) -> Option<(Option<String>, AttachRequest)> {
    let client_secret = client_secret(params);
    attach_request(params).map(|request| (client_secret, request))
}

fn attach_request(params: &mut Params) -> Option<AttachRequest> {
    let return_url = params.redirect_url("return_url");
    let save_with_session = save_with_session(params);
    let saved = params.string("payment_method_id", IDENTIFIER_LENGTH);
    let inline = params.object("payment_method", payment_method);
    params.exactly_one_of(&["payment_method_id", "payment_method"]);
    match (saved, inline) {
        (Some(_), Some(_)) => {
            let detail = "Give either payment_method_id or payment_method, not both.";
            params.push(FieldError::invalid("payment_method_id", detail));
            None
        }
        (Some(id), None) => {
            let method = PaymentMethodChoice::Saved(id);
            Some(AttachRequest { method, billing: None, return_url, save_with_session: save_with_session? })
        }
        (None, inline) => {
            let (method, billing) = params.require_unless_replaced("payment_method", inline)?;
            Some(AttachRequest { method: method.into(), billing, return_url, save_with_session: save_with_session? })
        }
    }
}

/// `save_payment_method=true` with the customer session's `customer_session_client_secret`: the
/// customer asked to save the card they entered. Each without the other is refused.
fn save_with_session(params: &mut Params) -> Option<Option<String>> {
    let save = params.boolean("save_payment_method");
    let secret = params.string("customer_session_client_secret", IDENTIFIER_LENGTH);
    params.secret("customer_session_client_secret");
    params.exactly_where("customer_session_client_secret", "save_payment_method", "true");
    match (save.unwrap_or(false), secret) {
        (true, Some(secret)) => Some(Some(secret)),
        (false, None) => Some(None),
        (true, None) => {
            params.require::<()>("customer_session_client_secret", None);
            None
        }
        (false, Some(_)) => {
            let detail = "Send it only with save_payment_method=true.";
            params.push(FieldError::invalid("customer_session_client_secret", detail));
            None
        }
    }
}
