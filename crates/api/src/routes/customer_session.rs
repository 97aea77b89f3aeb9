//! `/customer_sessions` (and the seed's spelling `/customer_sesions`): create with a secret key;
//! retrieve with a secret key, or with a public key and the session's client secret.

use super::endpoint::{Auth, Endpoint};
use super::support::{access, client_secret, ok};
use crate::auth::{AnyKey, SecretKey};
use crate::decode::{names, BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::customer_session::CustomerSessionResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_domain::account::KeyKind;
use payments_domain::customer_session::{Component, ComponentName, Feature, Toggle};
use payments_domain::ids::CustomerId;
use payments_domain::limits::{CHOICES, IDENTIFIER_LENGTH};
use payments_domain::validation::Invalid;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::post("/customer_sessions", create)
            .named("create_customer_session", "Create a customer session for the payment element")
            .body(new_session)
            .answers::<CustomerSessionResource>(),
        Endpoint::get("/customer_sessions/{id}", retrieve)
            .named("retrieve_customer_session", "Retrieve a customer session")
            .auth(Auth::AnyKey)
            .query(client_secret)
            .answers::<CustomerSessionResource>(),
        // The seed's spelling.
        Endpoint::post("/customer_sesions", create).alias_of("/customer_sessions"),
        Endpoint::get("/customer_sesions/{id}", retrieve).alias_of("/customer_sessions/{id}"),
    ]
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = new_session(&mut params);
    let (customer_id, components) = params.finish(request)?;
    let view = blocking(move || services.customer_sessions.create(&scope, &customer_id, components)).await?;
    Ok(ok(&CustomerSessionResource::for_merchant(&view)))
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
        services.customer_sessions.retrieve(&caller.scope, &id, access)
    })
    .await?;
    match kind {
        KeyKind::Secret => Ok(ok(&CustomerSessionResource::for_merchant(&view))),
        KeyKind::Public => Ok(ok(&CustomerSessionResource::for_browser(&view))),
    }
}

/// The customer and the payment element's settings.
fn new_session(params: &mut Params) -> Option<(CustomerId, Vec<Component>)> {
    let customer_id = params.required_string("customer_id", IDENTIFIER_LENGTH).and_then(|id| {
        let parsed =
            CustomerId::parse(&id).ok_or_else(|| Invalid::missing(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    let components = params.object_list("components", CHOICES, component);
    customer_id.map(|id| (id, components.unwrap_or_default()))
}

fn component(params: &mut Params) -> Option<Component> {
    let name = params
        .required_choice("component", || names(&ComponentName::ALL, ComponentName::as_str))
        .and_then(|c| params.check("component", ComponentName::parse(&c)));
    let feature = params
        .required_choice("feature", || names(&Feature::ALL, Feature::as_str))
        .and_then(|f| params.check("feature", Feature::parse(&f)));
    let value = params
        .required_choice("value", || names(&Toggle::ALL, Toggle::as_str))
        .and_then(|v| params.check("value", Toggle::parse(&v)));
    Some(Component { component: name?, feature: feature?, value: value? })
}
