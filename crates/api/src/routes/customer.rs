//! `/customers`: create, list, retrieve, update and delete.

use super::billing::{address, text_field};
use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{names, BodyParams, Params, QueryParams, NOT_BLANK};
use crate::error::ApiError;
use crate::representation::customer::{CustomerResource, RESOURCE};
use crate::representation::envelope::{Deleted, List};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::pagination::PageRequest;
use payments_application::ports::CustomerFilter;
use payments_domain::customer::{
    Billing, BillingStatementPrefix, Customer, CustomerChanges, CustomerName, Email, NewCustomer, SequenceNumber,
};
use payments_domain::metadata::Metadata;
use payments_domain::money::Currency;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/customers", create)
            .named("create_customer", "Create a customer")
            .body(new_customer)
            .answers::<CustomerResource>(),
        Endpoint::get("/customers", list)
            .named("list_customers", "List customers, newest first")
            .query(list_request)
            .answers::<CustomerResource>()
            .list(),
        Endpoint::get("/customers/{id}", retrieve)
            .named("retrieve_customer", "Retrieve a customer")
            .answers::<CustomerResource>()
            .answers::<Deleted>(),
        Endpoint::put("/customers/{id}", update)
            .named("update_customer", "Update a customer")
            .body(customer_changes)
            .answers::<CustomerResource>(),
        Endpoint::delete("/customers/{id}", delete)
            .named("delete_customer", "Delete a customer")
            .answers::<CustomerResource>()
            .answers::<Deleted>(),
        Endpoint::post("/customers/", create).alias_of("/customers"),
        Endpoint::get("/customers/", list).alias_of("/customers"),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let new = new_customer(&mut params);
    let new = params.finish(new)?;
    let customer = blocking(move || services.customers.create(&scope, new)).await?;
    Ok(ok(&CustomerResource::from(&customer)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let customer = blocking(move || services.customers.retrieve(&scope, &id)).await?;
    Ok(render(&customer))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let changes = customer_changes(&mut params);
    let changes = params.finish(changes)?;
    let customer = blocking(move || services.customers.update(&scope, &id, changes)).await?;
    Ok(ok(&CustomerResource::from(&customer)))
}

async fn delete(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let customer = blocking(move || services.customers.delete(&scope, &id)).await?;
    Ok(render(&customer))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (filter, page) = params.finish(request)?;
    let customers = blocking(move || services.customers.list(&scope, &filter, &page)).await?;
    Ok(ok(&List::of(&customers, CustomerResource::from)))
}

/// A customer, or the tombstone of a deleted one.
fn render(customer: &Customer) -> HttpResponse {
    if customer.is_deleted() {
        ok(&Deleted::new(customer.id.as_str(), RESOURCE))
    } else {
        ok(&CustomerResource::from(customer))
    }
}

/// A list request: the page and the filters.
pub(crate) fn list_request(params: &mut Params) -> Option<(CustomerFilter, PageRequest)> {
    let page = page_request(params);
    let filter = CustomerFilter {
        name: params.string("name", CustomerName::MAX_LENGTH),
        email: params.string("email", Email::MAX_LENGTH),
        metadata: params.metadata_filter("metadata"),
    };
    Some((filter, page?))
}

fn new_customer(params: &mut Params) -> Option<NewCustomer> {
    let name = params.required_string("name", CustomerName::MAX_LENGTH);
    params.pattern("name", NOT_BLANK);
    let name = name.and_then(|name| params.check("name", CustomerName::new(name)));
    let email = params
        .formatted_string("email", Email::MAX_LENGTH, "email")
        .and_then(|email| params.check("email", Email::new(email)));
    let email = params.require("email", email);
    let currency = params
        .required_choice("currency", || names(&Currency::ALL, Currency::code))
        .and_then(|code| params.check("currency", Currency::parse(&code)));
    let fields = shared_fields(params);
    Some(NewCustomer {
        name: params.require("name", name)?,
        email: email?,
        currency: params.require("currency", currency)?,
        billing_statement_prefix: fields.billing_statement_prefix,
        next_billing_statement_sequence_number: fields.next_billing_statement_sequence_number,
        billing: fields.billing,
        metadata: fields.metadata,
    })
}

fn customer_changes(params: &mut Params) -> Option<CustomerChanges> {
    let name = params.string("name", CustomerName::MAX_LENGTH);
    params.pattern("name", NOT_BLANK);
    let name = name.and_then(|name| params.check("name", CustomerName::new(name)));
    let email = params
        .formatted_string("email", Email::MAX_LENGTH, "email")
        .and_then(|email| params.check("email", Email::new(email)));
    let currency = params
        .choice("currency", || names(&Currency::ALL, Currency::code))
        .and_then(|code| params.check("currency", Currency::parse(&code)));
    let fields = shared_fields(params);
    Some(CustomerChanges {
        name,
        email,
        currency,
        billing_statement_prefix: fields.billing_statement_prefix,
        next_billing_statement_sequence_number: fields.next_billing_statement_sequence_number,
        billing: fields.billing,
        metadata: fields.metadata,
    })
}

/// The optional fields that create and update read alike.
struct SharedFields {
    billing_statement_prefix: Option<BillingStatementPrefix>,
    next_billing_statement_sequence_number: Option<SequenceNumber>,
    billing: Option<Billing>,
    metadata: Option<Metadata>,
}

fn shared_fields(params: &mut Params) -> SharedFields {
    let key = "billing_statement_prefix";
    let billing_statement_prefix = params.string(key, BillingStatementPrefix::MAX_LENGTH);
    params.pattern(key, "^[A-Z0-9]{3,15}$");
    let billing_statement_prefix =
        billing_statement_prefix.and_then(|p| params.check(key, BillingStatementPrefix::new(p)));
    let key = "next_billing_statement_sequence_number";
    let next_billing_statement_sequence_number = params
        .positive_whole_number(key, SequenceNumber::DIGITS)
        .and_then(|n| params.check(key, SequenceNumber::parse(&n)));
    let billing = params.object("billing", |billing| {
        let phone = text_field(billing, "phone");
        let address = billing.object("address", address);
        Some(Billing { phone, address })
    });
    let metadata = params.metadata("metadata");
    SharedFields { billing_statement_prefix, next_billing_statement_sequence_number, billing, metadata }
}
