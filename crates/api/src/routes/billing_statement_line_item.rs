//! `/billing_statement_line_items`: add, retrieve, update and delete the line items of a draft
//! statement. Update also answers at the spec's spelling with a trailing period, `/…/:id.`.

use super::endpoint::Endpoint;
use super::support::ok;
use crate::auth::SecretKey;
use crate::decode::{BodyParams, Params, QueryParams, NOT_BLANK};
use crate::error::ApiError;
use crate::representation::billing_statement_line_item::BillingStatementLineItemResource;
use crate::representation::envelope::Deleted;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::services::NewLineItem;
use payments_domain::billing_statement::{LineItem, LineItemChanges, LINE_ITEM_DESCRIPTION_LENGTH};
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::money::Amount;

const RESOURCE: &str = "billing_statement_line_item";

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/billing_statement_line_items", create)
            .named("create_billing_statement_line_item", "Add a line item to a draft statement")
            .body(new_line_item)
            .answers::<BillingStatementLineItemResource>(),
        // The spec lists the update with a trailing period after the id; both spellings work.
        Endpoint::put("/billing_statement_line_items/{id}.", update).alias_of("/billing_statement_line_items/{id}"),
        Endpoint::get("/billing_statement_line_items/{id}", retrieve)
            .named("retrieve_billing_statement_line_item", "Retrieve a line item")
            .answers::<BillingStatementLineItemResource>(),
        Endpoint::put("/billing_statement_line_items/{id}", update)
            .named("update_billing_statement_line_item", "Update a line item of a draft statement")
            .body(line_item_fields)
            .answers::<BillingStatementLineItemResource>(),
        Endpoint::delete("/billing_statement_line_items/{id}", delete)
            .named("delete_billing_statement_line_item", "Delete a line item of a draft statement")
            .answers::<Deleted>(),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_line_item(&mut params);
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

fn new_line_item(params: &mut Params) -> Option<NewLineItem> {
    let statement_id = params.required_string("billing_statement_id", IDENTIFIER_LENGTH);
    let fields = line_item_fields(params);
    let description = params.require("description", fields.description);
    let unit_price = params.require("unit_price", fields.unit_price);
    let quantity = params.require("quantity", fields.quantity);
    Some(NewLineItem {
        billing_statement_id: statement_id?,
        description: description?,
        unit_price: unit_price?,
        quantity: quantity?,
    })
}

/// The fields create and update share, each checked.
fn line_item_fields(params: &mut Params) -> LineItemChanges {
    let description = params.string("description", LINE_ITEM_DESCRIPTION_LENGTH);
    params.pattern("description", NOT_BLANK);
    let description = description.and_then(|text| params.check("description", LineItem::check_description(text)));
    let unit_price = params
        .integer_between("unit_price", Some(1), Some(Amount::MAXIMUM))
        .and_then(|price| params.check("unit_price", LineItem::check_unit_price(price)));
    let quantity = params
        .integer_between("quantity", Some(1), Some(Amount::MAXIMUM))
        .and_then(|quantity| params.check("quantity", LineItem::check_quantity(quantity)));
    LineItemChanges { description, unit_price, quantity }
}
