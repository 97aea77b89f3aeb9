//! `/payment_intents`: create, retrieve (secret key, or public key with the client secret), update,
//! attach, capture and cancel.

use super::payment_method::{card_options, payment_method, payment_methods};
use super::support::{access, ok, resource};
use crate::auth::{AnyKey, SecretKey};
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::payment_intent::{PaymentIntentResource, PublicPaymentIntentResource};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::services::{AttachOutcome, AttachRequest, PaymentIntentView, PaymentMethodChoice};
use payments_domain::account::KeyKind;
use payments_domain::description::Description;
use payments_domain::ids::CustomerId;
use payments_domain::limits::{CHOICE_LENGTH, IDENTIFIER_LENGTH};
use payments_domain::metadata::Metadata;
use payments_domain::money::Currency;
use payments_domain::payment_intent::{NewPaymentIntent, PaymentError, PaymentIntentChanges};
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::validation::{FieldError, Invalid};

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/payment_intents").route(web::post().to(create)))
        .service(resource("/payment_intents/{id}").route(web::get().to(retrieve)).route(web::put().to(update)))
        .service(resource("/payment_intents/{id}/attach").route(web::post().to(attach)))
        .service(resource("/payment_intents/{id}/capture").route(web::post().to(capture)))
        .service(resource("/payment_intents/{id}/cancel").route(web::post().to(cancel)));
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
    let client_secret = params.string("client_secret", IDENTIFIER_LENGTH);
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
    let client_secret = params.string("client_secret", IDENTIFIER_LENGTH);
    let request = attach_request(&mut params);
    let request = params.finish(request)?;
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
    let amount = params.amount("amount");
    let amount = params.finish(Some(amount))?;
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
    let currency =
        params.required_string("currency", CHOICE_LENGTH).and_then(|c| params.check("currency", Currency::parse(&c)));
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
    return_url: Option<String>,
}

fn shared_fields(params: &mut Params) -> SharedFields {
    let description = params.description("description");
    let statement_descriptor = params.statement_descriptor("statement_descriptor");
    let metadata = params.metadata("metadata");
    let customer_id = params.string("customer_id", IDENTIFIER_LENGTH).and_then(|id| {
        let parsed = CustomerId::parse(&id).ok_or_else(|| Invalid::value(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    let return_url = params.url("return_url");
    SharedFields { description, statement_descriptor, metadata, customer_id, return_url }
}

fn attach_request(params: &mut Params) -> Option<AttachRequest> {
    let return_url = params.url("return_url");
    let saved = params.string("payment_method_id", IDENTIFIER_LENGTH);
    let inline = params.object("payment_method", payment_method);
    match (saved, inline) {
        (Some(_), Some(_)) => {
            let detail = "Give either payment_method_id or payment_method, not both.";
            params.push(FieldError::invalid("payment_method_id", detail));
            None
        }
        (Some(id), None) => Some(AttachRequest { method: PaymentMethodChoice::Saved(id), billing: None, return_url }),
        (None, inline) => {
            let (method, billing) = params.require("payment_method", inline)?;
            Some(AttachRequest { method: method.into(), billing, return_url })
        }
    }
}
