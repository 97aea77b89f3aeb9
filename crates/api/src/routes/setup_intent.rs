//! `/setup_intents`: create, retrieve (secret key, or public key with the client secret), attach a
//! card to save, and cancel; and the test helpers that finish a pending redirect or processing.

use super::endpoint::{Auth, Endpoint};
use super::payment_method::{card_rules, card_to_save, payment_methods_of};
use super::pending_authorization::{complete_redirect, finish_processing};
use super::support::{access, client_secret, ok, verdict};
use crate::auth::{AnyKey, SecretKey};
use crate::decode::{names, BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::setup_intent::{PublicSetupIntentResource, SetupIntentResource};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::ports::PaymentMethodInput;
use payments_application::services::{SetupAttachOutcome, SetupAttachRequest, SetupIntentService, SetupIntentView};
use payments_domain::account::KeyKind;
use payments_domain::ids::CustomerId;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::payment_intent::PaymentError;
use payments_domain::payment_method::{PaymentMethodType, Usage};
use payments_domain::setup_intent::NewSetupIntent;
use payments_domain::validation::{FieldError, Invalid};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/setup_intents", create)
            .named("create_setup_intent", "Create a setup intent to save a customer's card")
            .body(new_setup_intent)
            .answers::<SetupIntentResource>(),
        Endpoint::get("/setup_intents/{id}", retrieve)
            .named("retrieve_setup_intent", "Retrieve a setup intent")
            .auth(Auth::AnyKey)
            .query(client_secret)
            .answers::<SetupIntentResource>()
            .answers::<PublicSetupIntentResource>(),
        Endpoint::post("/setup_intents/{id}/attach", attach)
            .named("attach_setup_intent", "Attach a card to verify and save")
            .auth(Auth::AnyKey)
            .body(attach_params)
            .answers::<SetupIntentResource>()
            .answers::<PublicSetupIntentResource>(),
        Endpoint::post("/setup_intents/{id}/cancel", cancel)
            .named("cancel_setup_intent", "Cancel a setup intent")
            .answers::<SetupIntentResource>(),
        Endpoint::post("/test_helpers/setup_intents/{id}/complete_redirect", complete_redirect::<SetupIntentService>)
            .named(
                "complete_setup_intent_redirect",
                "Test mode: finish the pending 3-D Secure redirect as the test page would",
            )
            .body(verdict)
            .answers::<SetupIntentResource>(),
        Endpoint::post("/test_helpers/setup_intents/{id}/finish_processing", finish_processing::<SetupIntentService>)
            .named("finish_setup_intent_processing", "Test mode: the processor answers a processing verification now")
            .body(verdict)
            .answers::<SetupIntentResource>(),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_setup_intent(&mut params);
    let new = params.finish(new)?;
    let view = blocking(move || services.setup_intents.create(&scope, new)).await?;
    Ok(ok(&SetupIntentResource::new(&view)))
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
        services.setup_intents.retrieve(&caller.scope, &id, access)
    })
    .await?;
    Ok(render(&view, kind))
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
        services.setup_intents.attach(&caller.scope, &id, access, request)
    })
    .await?;
    match outcome {
        SetupAttachOutcome::Attached(view) => Ok(render(&view, kind)),
        SetupAttachOutcome::Declined(_, PaymentError { code, detail }) => Err(ApiError::declined(&code, &detail)),
    }
}

async fn cancel(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.setup_intents.cancel(&scope, &id)).await?;
    Ok(ok(&SetupIntentResource::new(&view)))
}

/// The whole setup intent for a secret key; what a browser needs for a public key.
fn render(view: &SetupIntentView, kind: KeyKind) -> HttpResponse {
    match kind {
        KeyKind::Secret => ok(&SetupIntentResource::new(view)),
        KeyKind::Public => ok(&PublicSetupIntentResource::new(&view.intent)),
    }
}

fn new_setup_intent(params: &mut Params) -> Option<NewSetupIntent> {
    let customer_id = params.required_string("customer_id", IDENTIFIER_LENGTH).and_then(|id| {
        let parsed =
            CustomerId::parse(&id).ok_or_else(|| Invalid::missing(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    // Only cards can be saved; the service says so of another method.
    let payment_methods = payment_methods_of(params, &[PaymentMethodType::Card]);
    let usage = params
        .choice("usage", || names(&Usage::ALL, Usage::as_str))
        .and_then(|u| params.check("usage", Usage::parse(&u)));
    let description = params.description("description");
    let metadata = params.metadata("metadata");
    let return_url = params.redirect_url("return_url");
    let card_options = params.object("payment_method_options", |options| {
        options.object("card", |card| {
            if card.values().contains_key("capture_type") {
                let detail = "Nothing is captured when a card is saved: give capture_type on the payment intent.";
                card.push(FieldError::invalid(card.name("capture_type"), detail));
                return None;
            }
            card_rules(card)
        })
    });
    let customer_id = params.require("customer_id", customer_id);
    let payment_methods = params.require("payment_methods", payment_methods);
    Some(NewSetupIntent {
        customer_id: customer_id?,
        payment_methods: payment_methods?,
        usage: usage.unwrap_or(Usage::OnSession),
        description,
        metadata,
        return_url,
        card_options: card_options.unwrap_or_default(),
    })
}

/// An attach: the client secret for a public key, and the card.
fn attach_params(params: &mut Params) -> Option<(Option<String>, SetupAttachRequest)> {
    let client_secret = client_secret(params);
    attach_request(params).map(|request| (client_secret, request))
}

fn attach_request(params: &mut Params) -> Option<SetupAttachRequest> {
    let return_url = params.redirect_url("return_url");
    let inline = params.object("payment_method", card_to_save);
    let (method, billing) = params.require("payment_method", inline)?;
    match method {
        PaymentMethodInput::Card(card) => Some(SetupAttachRequest { card, billing, return_url }),
        PaymentMethodInput::Saved(_) | PaymentMethodInput::Redirect(_) | PaymentMethodInput::ProcessorToken(_) => {
            let kind = method.method();
            let detail = if kind == PaymentMethodType::Card {
                "Give the card's details to save it.".to_owned()
            } else {
                format!("{} cannot be saved for later; only card can.", kind.as_str())
            };
            params.push(FieldError::invalid("payment_method[type]", detail));
            None
        }
    }
}
