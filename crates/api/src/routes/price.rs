//! `/prices`: create, list (by product), retrieve and update (archive). This service's own
//! resource (PayRex documents none), for Pages' storefronts.

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::price::PriceResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::pagination::PageRequest;
use payments_domain::ids::ProductId;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::price::{NewPrice, PriceChanges};
use payments_domain::validation::FieldError;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/prices", create)
            .named("create_price", "Create a price of a product (this service's own)")
            .body(new_price)
            .answers::<PriceResource>(),
        Endpoint::get("/prices", list)
            .named("list_prices", "List prices, newest first, of one product when asked")
            .query(list_request)
            .answers::<PriceResource>()
            .list(),
        Endpoint::get("/prices/{id}", retrieve).named("retrieve_price", "Retrieve a price").answers::<PriceResource>(),
        Endpoint::put("/prices/{id}", update)
            .named("update_price", "Update a price; active=false archives it")
            .body(price_changes)
            .answers::<PriceResource>(),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_price(&mut params);
    let new = params.finish(new)?;
    let price = blocking(move || services.prices.create(&scope, new)).await?;
    Ok(ok(&PriceResource::from(&price)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let price = blocking(move || services.prices.retrieve(&scope, &id)).await?;
    Ok(ok(&PriceResource::from(&price)))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = price_changes(&mut params);
    let changes = params.finish(changes)?;
    let price = blocking(move || services.prices.update(&scope, &id, changes)).await?;
    Ok(ok(&PriceResource::from(&price)))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (product, page) = params.finish(request)?;
    let prices = blocking(move || services.prices.list(&scope, product.as_ref(), &page)).await?;
    Ok(ok(&List::of(&prices, PriceResource::from)))
}

/// A list request: the product whose prices are asked for, if one, and the page.
fn list_request(params: &mut Params) -> Option<(Option<ProductId>, PageRequest)> {
    let page = page_request(params);
    let product = product_id(params);
    Some((product, page?))
}

/// `product_id`, which must be a product's id.
fn product_id(params: &mut Params) -> Option<ProductId> {
    let id = params.string("product_id", IDENTIFIER_LENGTH)?;
    let parsed = ProductId::parse(&id);
    if parsed.is_none() {
        params.push(FieldError::missing("product_id", format!("No product with id {id} exists.")));
    }
    parsed
}

pub(crate) fn new_price(params: &mut Params) -> Option<NewPrice> {
    let product = product_id(params);
    let amount = params.amount("amount");
    let description = params.description("description");
    let product = params.require("product_id", product);
    let amount = params.require("amount", amount);
    Some(NewPrice { product_id: product?, amount: amount?, description })
}

pub(crate) fn price_changes(params: &mut Params) -> Option<PriceChanges> {
    Some(PriceChanges { description: params.description("description"), active: params.boolean("active") })
}
