//! `/billing_statement_line_items`: add, retrieve, update and delete the line items of a draft
//! statement. Update also answers at the spec's spelling with a trailing period, `/…/:id.`.

use super::support::{ok, resource};
use crate::auth::SecretKey;
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::billing_statement_line_item::BillingStatementLineItemResource;
use crate::representation::envelope::Deleted;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::services::NewLineItem;
use payments_domain::billing_statement::{LineItem, LineItemChanges, LINE_ITEM_DESCRIPTION_LENGTH};
use payments_domain::limits::IDENTIFIER_LENGTH;

const RESOURCE: &str = "billing_statement_line_item";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/billing_statement_line_items").route(web::post().to(create)))
        // The spec lists the update with a trailing period after the id; both spellings work.
        .service(resource("/billing_statement_line_items/{id}.").route(web::put().to(update)))
        .service(
            resource("/billing_statement_line_items/{id}")
                .route(web::get().to(retrieve))
                .route(web::put().to(update))
                .route(web::delete().to(delete)),
        );
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let statement_id = params.required_string("billing_statement_id", IDENTIFIER_LENGTH);
    let fields = line_item_fields(&mut params);
    let description = params.require("description", fields.description);
    let unit_price = params.require("unit_price", fields.unit_price);
    let quantity = params.require("quantity", fields.quantity);
    let new = (|| {
        Some(NewLineItem {
            billing_statement_id: statement_id?,
            description: description?,
            unit_price: unit_price?,
            quantity: quantity?,
        })
    })();
    let new = params.finish(new)?;
    let view = blocking(move || services.billing_statements.add_line_item(&scope, new)).await?;
    Ok(ok(&BillingStatementLineItemResource::of(&view)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.billing_statements.line_item(&scope, &id)).await?;
    Ok(ok(&BillingStatementLineItemResource::of(&view)))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = line_item_fields(&mut params);
    let changes = params.finish(Some(changes))?;
    let view = blocking(move || services.billing_statements.update_line_item(&scope, &id, changes)).await?;
    Ok(ok(&BillingStatementLineItemResource::of(&view)))
}

async fn delete(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let view = blocking(move || services.billing_statements.delete_line_item(&scope, &id)).await?;
    Ok(ok(&Deleted::new(view.item.id.as_str(), RESOURCE)))
}

/// The fields create and update share, each checked.
fn line_item_fields(params: &mut Params) -> LineItemChanges {
    let description = params
        .string("description", LINE_ITEM_DESCRIPTION_LENGTH)
        .and_then(|text| params.check("description", LineItem::check_description(text)));
    let unit_price =
        params.integer("unit_price").and_then(|price| params.check("unit_price", LineItem::check_unit_price(price)));
    let quantity =
        params.integer("quantity").and_then(|quantity| params.check("quantity", LineItem::check_quantity(quantity)));
    LineItemChanges { description, unit_price, quantity }
}
