//! `/payment_intents`: create, retrieve (secret key, or public key with the client secret), update,
//! attach, capture and cancel.

use super::billing::payment_billing;
use super::support::{ok, resource};
use crate::auth::{AnyKey, SecretKey};
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::payment_intent::{PaymentIntentResource, PublicPaymentIntentResource};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::ports::PaymentMethodInput;
use payments_application::services::{Access, AttachOutcome, AttachRequest, PaymentIntentView};
use payments_domain::account::KeyKind;
use payments_domain::description::Description;
use payments_domain::ids::CustomerId;
use payments_domain::limits::{
    ALLOWED_BINS, CARD_NUMBER_LENGTH, CHOICES, CHOICE_LENGTH, CVC_LENGTH, IDENTIFIER_LENGTH,
};
use payments_domain::metadata::Metadata;
use payments_domain::money::Currency;
use payments_domain::payment_intent::{
    CaptureType, CardOptions, NewPaymentIntent, PaymentError, PaymentIntentChanges,
};
use payments_domain::payment_method::{PaymentBilling, CardInput, CardNumber, Cvc, Funding, PaymentMethodType};
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

/// What a key may do: a secret key everything, a public key only with the intent's client secret.
fn access(kind: KeyKind, client_secret: Option<&str>) -> Access<'_> {
    match kind {
        KeyKind::Secret => Access::SecretKey,
        KeyKind::Public => Access::ClientSecret(client_secret),
    }
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
    let key = "statement_descriptor";
    let statement_descriptor = params
        .string(key, StatementDescriptor::MAX_LENGTH)
        .and_then(|text| params.check(key, StatementDescriptor::new(text)));
    let metadata = params.string_map("metadata").and_then(|pairs| params.check("metadata", Metadata::new(pairs)));
    let customer_id = params.string("customer_id", IDENTIFIER_LENGTH).and_then(|id| {
        let parsed = CustomerId::parse(&id).ok_or_else(|| Invalid::value(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    let return_url = params.url("return_url");
    SharedFields { description, statement_descriptor, metadata, customer_id, return_url }
}

fn payment_methods(params: &mut Params) -> Option<Vec<PaymentMethodType>> {
    let names = params.string_list("payment_methods", CHOICES, CHOICE_LENGTH)?;
    if names.is_empty() {
        params.push(FieldError::invalid("payment_methods", "Allow at least one payment method."));
        return None;
    }
    let mut methods = Vec::new();
    for name in names {
        let method = params.check("payment_methods", PaymentMethodType::parse(&name))?;
        if !methods.contains(&method) {
            methods.push(method);
        }
    }
    Some(methods)
}

fn card_options(params: &mut Params) -> Option<CardOptions> {
    let capture_type = params.string("capture_type", CHOICE_LENGTH).and_then(|value| {
        let parsed = match value.as_str() {
            "automatic" => Ok(CaptureType::Automatic),
            "manual" => Ok(CaptureType::Manual),
            other => Err(Invalid::value(format!("{other} is not a capture type; use automatic or manual."))),
        };
        params.check("capture_type", parsed)
    });
    let allowed_bins = params.string_list("allowed_bins", ALLOWED_BINS, 8).and_then(|bins| {
        let valid = bins.iter().all(|bin| (1..=8).contains(&bin.len()) && bin.bytes().all(|b| b.is_ascii_digit()));
        params.check("allowed_bins", if valid { Ok(bins) } else { Err(Invalid::value("BINs are 1 to 8 digits.")) })
    });
    let allowed_funding = params.string_list("allowed_funding", CHOICES, CHOICE_LENGTH).and_then(|names| {
        let mut fundings: Vec<Funding> = Vec::new();
        for name in names {
            let funding = params.check("allowed_funding", Funding::parse(&name))?;
            if !fundings.contains(&funding) {
                fundings.push(funding);
            }
        }
        Some(fundings)
    });
    Some(CardOptions {
        capture_type: capture_type.unwrap_or(CaptureType::Automatic),
        allowed_bins: allowed_bins.unwrap_or_default(),
        allowed_funding: allowed_funding.unwrap_or_default(),
    })
}

fn attach_request(params: &mut Params) -> Option<AttachRequest> {
    let return_url = params.url("return_url");
    if let Some(id) = params.string("payment_method_id", IDENTIFIER_LENGTH) {
        // Saved payment methods come with setup intents; until then no id names one.
        params.push(FieldError::invalid("payment_method_id", format!("No saved payment method with id {id} exists.")));
        return None;
    }
    let inline = params.object("payment_method", payment_method);
    let (method, billing) = params.require("payment_method", inline)?;
    Some(AttachRequest { method, billing, return_url })
}

fn payment_method(params: &mut Params) -> Option<(PaymentMethodInput, Option<PaymentBilling>)> {
    let method =
        params.required_string("type", CHOICE_LENGTH).and_then(|t| params.check("type", PaymentMethodType::parse(&t)));
    let card = params.object("card", card_input);
    let billing = params.object("billing", payment_billing);
    let input = match method? {
        PaymentMethodType::Card => PaymentMethodInput::Card(params.require("card", card)?),
        other if card.is_some() => {
            params.push(FieldError::invalid(
                params.name("card"),
                format!("Card details do not go with {}.", other.as_str()),
            ));
            return None;
        }
        other => PaymentMethodInput::Redirect(other),
    };
    Some((input, billing))
}

fn card_input(params: &mut Params) -> Option<CardInput> {
    let number = params
        .string_or_integer("number", CARD_NUMBER_LENGTH)
        .and_then(|n| params.check("number", CardNumber::new(&n)));
    let exp_month = params.integer("exp_month").and_then(|month| {
        let valid = u32::try_from(month).ok().filter(|m| (1..=12).contains(m));
        params.check("exp_month", valid.ok_or_else(|| Invalid::value("The expiry month must be 1 to 12.")))
    });
    let exp_year = params.integer("exp_year").and_then(|year| {
        let year = if (0..100).contains(&year) { year + 2000 } else { year };
        let valid = u32::try_from(year).ok().filter(|y| (2000..=2100).contains(y));
        params.check("exp_year", valid.ok_or_else(|| Invalid::value("The expiry year must be a four-digit year.")))
    });
    let cvc = params.string_or_integer("cvc", CVC_LENGTH).and_then(|c| params.check("cvc", Cvc::new(&c)));
    let number = params.require("number", number);
    let exp_month = params.require("exp_month", exp_month);
    let exp_year = params.require("exp_year", exp_year);
    let cvc = params.require("cvc", cvc);
    Some(CardInput { number: number?, exp_month: exp_month?, exp_year: exp_year?, cvc: cvc? })
}
