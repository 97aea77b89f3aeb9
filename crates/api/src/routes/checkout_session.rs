//! `/checkout_sessions`: create (with its payment intent), list, retrieve and expire. The customer
//! pays on the hosted page (`pages::checkout`).

use super::endpoint::Endpoint;
use super::payment_method::{card_options, payment_methods};
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{names, BodyParams, Params, QueryParams, HTTPS_URL, NOT_BLANK};
use crate::error::ApiError;
use crate::representation::checkout_session::CheckoutSessionResource;
use crate::representation::envelope::List;
use crate::representation::payment_intent::PaymentIntentResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::pagination::PageRequest;
use payments_application::ports::CheckoutSessionFilter;
use payments_domain::checkout_session::{
    expiry, total, BillingDetailsCollection, CheckoutSessionStatus, NewCheckoutSession, NewLineItem, SubmitType,
    MAX_LINE_ITEMS, NAME_LENGTH,
};
use payments_domain::limits::URL_LENGTH;
use payments_domain::money::Currency;
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;

/// The longest `customer_reference_id` (a merchant's order or cart id).
const REFERENCE_LENGTH: usize = 255;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/checkout_sessions", create)
            .named("create_checkout_session", "Create a checkout session and its hosted page")
            .body(|params| new_checkout_session(params, Timestamp::from_unix_seconds(0)))
            .answers::<CheckoutSessionResource<PaymentIntentResource>>(),
        Endpoint::get("/checkout_sessions", list)
            .named("list_checkout_sessions", "List checkout sessions, newest first")
            .query(list_request)
            .answers::<CheckoutSessionResource<PaymentIntentResource>>()
            .list(),
        Endpoint::get("/checkout_sessions/{id}", retrieve)
            .named("retrieve_checkout_session", "Retrieve a checkout session")
            .answers::<CheckoutSessionResource<PaymentIntentResource>>(),
        Endpoint::post("/checkout_sessions/{id}/expire", expire)
            .named("expire_checkout_session", "Expire an open checkout session")
            .answers::<CheckoutSessionResource<PaymentIntentResource>>(),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let now = services.now_in(&scope).await?;
    let new = new_checkout_session(&mut params, now);
    let new = params.finish(new)?;
    let view = blocking(move || services.checkout_sessions.create(&scope, new)).await?;
    Ok(ok(&CheckoutSessionResource::new(&view)))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (filter, page) = params.finish(request)?;
    let sessions = blocking(move || services.checkout_sessions.list(&scope, &filter, &page)).await?;
    Ok(ok(&List::of(&sessions, CheckoutSessionResource::new)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.checkout_sessions.retrieve(&scope, &id)).await?;
    Ok(ok(&CheckoutSessionResource::new(&view)))
}

async fn expire(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.checkout_sessions.expire(&scope, &id)).await?;
    Ok(ok(&CheckoutSessionResource::new(&view)))
}

fn new_checkout_session(params: &mut Params, now: Timestamp) -> Option<NewCheckoutSession<NewLineItem>> {
    let line_items = params.object_list("line_items", MAX_LINE_ITEMS, line_item);
    params.non_empty("line_items");
    let line_items = line_items.and_then(|items| {
        if items.is_empty() {
            params.push(FieldError::invalid("line_items", "Give at least one line item."));
            return None;
        }
        let amount = params.check("line_items", total(&items))?;
        Some((items, amount))
    });
    let success_url = params.redirect_url("success_url");
    let cancel_url = params.redirect_url("cancel_url");
    let payment_methods = payment_methods(params);
    let card_options = params.object("payment_method_options", |options| options.object("card", card_options));
    let currency = params
        .choice("currency", || names(&Currency::ALL, Currency::code))
        .and_then(|code| params.check("currency", Currency::parse(&code)))
        .unwrap_or(Currency::Php);
    let customer_reference_id = params.string("customer_reference_id", REFERENCE_LENGTH);
    let billing_details_collection = params
        .choice("billing_details_collection", || {
            names(&BillingDetailsCollection::ALL, BillingDetailsCollection::as_str)
        })
        .and_then(|value| params.check("billing_details_collection", BillingDetailsCollection::parse(&value)));
    let description = params.description("description");
    let submit_type = params
        .choice("submit_type", || names(&SubmitType::ALL, SubmitType::as_str))
        .and_then(|value| params.check("submit_type", SubmitType::parse(&value)));
    let statement_descriptor = params.statement_descriptor("statement_descriptor");
    let expires_at = params.integer("expires_at");
    let expires_at = params.check("expires_at", expiry(expires_at, now));
    let metadata = params.metadata("metadata");
    // Every missing parameter is reported before any `?` returns.
    let line_items = params.require("line_items", line_items);
    let success_url = params.require("success_url", success_url);
    let cancel_url = params.require("cancel_url", cancel_url);
    let payment_methods = params.require("payment_methods", payment_methods);
    let (line_items, amount) = line_items?;
    Some(NewCheckoutSession {
        line_items,
        amount,
        currency,
        success_url: success_url?,
        cancel_url: cancel_url?,
        payment_methods: payment_methods?,
        card_options: card_options.unwrap_or_default(),
        customer_reference_id,
        billing_details_collection: billing_details_collection.unwrap_or(BillingDetailsCollection::Always),
        description,
        submit_type: submit_type.unwrap_or(SubmitType::Pay),
        statement_descriptor,
        expires_at: expires_at?,
        metadata,
    })
}

fn line_item(params: &mut Params) -> Option<NewLineItem> {
    let name = params.string("name", NAME_LENGTH);
    params.pattern("name", NOT_BLANK);
    let name = name.and_then(|name| params.check("name", NewLineItem::check_name(name)));
    let amount = params
        .integer_between("amount", Some(1), None)
        .and_then(|amount| params.check("amount", NewLineItem::check_unit_amount(amount)));
    let quantity = params
        .integer_between("quantity", Some(1), None)
        .and_then(|quantity| params.check("quantity", NewLineItem::check_quantity(quantity)));
    let description = params.description("description");
    let image = params.string("image", URL_LENGTH);
    params.pattern("image", HTTPS_URL);
    let image = image.and_then(|url| params.check("image", NewLineItem::check_image(url)));
    let name = params.require("name", name);
    let amount = params.require("amount", amount);
    let quantity = params.require("quantity", quantity);
    Some(NewLineItem { name: name?, amount: amount?, quantity: quantity?, description, image })
}

/// A list request: the page and the filters.
pub(crate) fn list_request(params: &mut Params) -> Option<(CheckoutSessionFilter, PageRequest)> {
    let page = page_request(params);
    let filter = CheckoutSessionFilter {
        status: params.one_of("status", &CheckoutSessionStatus::ALL, CheckoutSessionStatus::as_str),
        customer_reference_id: params.string("customer_reference_id", REFERENCE_LENGTH),
    };
    Some((filter, page?))
}
