//! `/products`: create, list, retrieve, update (archive) and delete an unpriced product. This
//! service's own resource (PayRex documents none), for Pages' storefronts.

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{BodyParams, Params, QueryParams, HTTPS_URL, NOT_BLANK};
use crate::error::ApiError;
use crate::representation::envelope::{Deleted, List};
use crate::representation::product::{ProductResource, RESOURCE};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_domain::limits::URL_LENGTH;
use payments_domain::product::{check_image, NewProduct, ProductChanges, ProductName, NAME_LENGTH};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/products", create)
            .named("create_product", "Create a product (this service's own)")
            .body(new_product)
            .answers::<ProductResource>(),
        Endpoint::get("/products", list)
            .named("list_products", "List products, newest first")
            .query(page_request)
            .answers::<ProductResource>()
            .list(),
        Endpoint::get("/products/{id}", retrieve)
            .named("retrieve_product", "Retrieve a product")
            .answers::<ProductResource>(),
        Endpoint::put("/products/{id}", update)
            .named("update_product", "Update a product; active=false archives it")
            .body(product_changes)
            .answers::<ProductResource>(),
        Endpoint::delete("/products/{id}", delete)
            .named("delete_product", "Delete a product that has no price")
            .answers::<Deleted>(),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_product(&mut params);
    let new = params.finish(new)?;
    let product = blocking(move || services.products.create(&scope, new)).await?;
    Ok(ok(&ProductResource::from(&product)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let product = blocking(move || services.products.retrieve(&scope, &id)).await?;
    Ok(ok(&ProductResource::from(&product)))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = product_changes(&mut params);
    let changes = params.finish(changes)?;
    let product = blocking(move || services.products.update(&scope, &id, changes)).await?;
    Ok(ok(&ProductResource::from(&product)))
}

async fn delete(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let product = blocking(move || services.products.delete(&scope, &id)).await?;
    Ok(ok(&Deleted::new(product.id.as_str(), RESOURCE)))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let page = page_request(&mut params);
    let page = params.finish(page)?;
    let products = blocking(move || services.products.list(&scope, &page)).await?;
    Ok(ok(&List::of(&products, ProductResource::from)))
}

fn name(params: &mut Params) -> Option<ProductName> {
    let name = params.string("name", NAME_LENGTH);
    params.pattern("name", NOT_BLANK);
    name.and_then(|name| params.check("name", ProductName::new(name)))
}

fn image(params: &mut Params) -> Option<String> {
    let image = params.string("image", URL_LENGTH);
    params.pattern("image", HTTPS_URL);
    image.and_then(|url| params.check("image", check_image(url)))
}

pub(crate) fn new_product(params: &mut Params) -> Option<NewProduct> {
    let name = name(params);
    let description = params.description("description");
    let image = image(params);
    Some(NewProduct { name: params.require("name", name)?, description, image })
}

pub(crate) fn product_changes(params: &mut Params) -> Option<ProductChanges> {
    Some(ProductChanges {
        name: name(params),
        description: params.description("description"),
        image: image(params),
        active: params.boolean("active"),
    })
}
