//! `/setup_intents`: create, retrieve (secret key, or public key with the client secret), attach a
//! card to save, and cancel.

use super::payment_method::{card_options, payment_method, payment_methods};
use super::support::{access, ok, resource};
use crate::auth::{AnyKey, SecretKey};
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::setup_intent::{PublicSetupIntentResource, SetupIntentResource};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::ports::PaymentMethodInput;
use payments_application::services::{SetupAttachOutcome, SetupAttachRequest, SetupIntentView};
use payments_domain::account::KeyKind;
use payments_domain::ids::CustomerId;
use payments_domain::limits::{CHOICE_LENGTH, IDENTIFIER_LENGTH};
use payments_domain::payment_intent::PaymentError;
use payments_domain::payment_method::{PaymentMethodType, Usage};
use payments_domain::setup_intent::NewSetupIntent;
use payments_domain::validation::{FieldError, Invalid};

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/setup_intents").route(web::post().to(create)))
        .service(resource("/setup_intents/{id}").route(web::get().to(retrieve)))
        .service(resource("/setup_intents/{id}/attach").route(web::post().to(attach)))
        .service(resource("/setup_intents/{id}/cancel").route(web::post().to(cancel)));
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
    let client_secret = params.string("client_secret", IDENTIFIER_LENGTH);
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
    let client_secret = params.string("client_secret", IDENTIFIER_LENGTH);
    let request = attach_request(&mut params);
    let request = params.finish(request)?;
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
        let parsed = CustomerId::parse(&id).ok_or_else(|| Invalid::value(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    let payment_methods = payment_methods(params);
    let usage = params.string("usage", CHOICE_LENGTH).and_then(|u| params.check("usage", Usage::parse(&u)));
    let description = params.description("description");
    let metadata = params.metadata("metadata");
    let return_url = params.url("return_url");
    let card_options = params.object("payment_method_options", |options| {
        options.object("card", |card| {
            if card.string("capture_type", CHOICE_LENGTH).is_some() {
                let detail = "Nothing is captured when a card is saved: give capture_type on the payment intent.";
                card.push(FieldError::invalid(card.name("capture_type"), detail));
                return None;
            }
            card_options(card)
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

fn attach_request(params: &mut Params) -> Option<SetupAttachRequest> {
    let return_url = params.url("return_url");
    let inline = params.object("payment_method", payment_method);
    let (method, billing) = params.require("payment_method", inline)?;
    match method {
        PaymentMethodInput::Card(card) => Some(SetupAttachRequest { card, billing, return_url }),
        PaymentMethodInput::Saved(_) | PaymentMethodInput::Redirect(_) => {
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
