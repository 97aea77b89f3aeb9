//! `/customer_sessions` (and the seed's spelling `/customer_sesions`): create with a secret key;
//! retrieve with a secret key, or with a public key and the session's client secret.

use super::support::{access, ok, resource};
use crate::auth::{AnyKey, SecretKey};
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::customer_session::CustomerSessionResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_domain::customer_session::{Component, ComponentName, Feature, Toggle};
use payments_domain::ids::CustomerId;
use payments_domain::limits::{CHOICES, CHOICE_LENGTH, IDENTIFIER_LENGTH};
use payments_domain::validation::Invalid;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    for base in ["/customer_sessions", "/customer_sesions"] {
        config
            .service(resource(base).route(web::post().to(create)))
            .service(resource(&format!("{base}/{{id}}")).route(web::get().to(retrieve)));
    }
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let customer_id = params.required_string("customer_id", IDENTIFIER_LENGTH).and_then(|id| {
        let parsed = CustomerId::parse(&id).ok_or_else(|| Invalid::value(format!("No customer with id {id} exists.")));
        params.check("customer_id", parsed)
    });
    let components = params.object_list("components", CHOICES, component);
    let request = customer_id.map(|id| (id, components.unwrap_or_default()));
    let (customer_id, components) = params.finish(request)?;
    let view = blocking(move || services.customer_sessions.create(&scope, &customer_id, components)).await?;
    Ok(ok(&CustomerSessionResource::new(&view)))
}

async fn retrieve(
    AnyKey(caller): AnyKey,
    id: web::Path<String>,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let client_secret = params.string("client_secret", IDENTIFIER_LENGTH);
    params.finish(Some(()))?;
    let view = blocking(move || {
        let access = access(caller.key_kind, client_secret.as_deref());
        services.customer_sessions.retrieve(&caller.scope, &id, access)
    })
    .await?;
    Ok(ok(&CustomerSessionResource::new(&view)))
}

fn component(params: &mut Params) -> Option<Component> {
    let name = params
        .required_string("component", CHOICE_LENGTH)
        .and_then(|c| params.check("component", ComponentName::parse(&c)));
    let feature =
        params.required_string("feature", CHOICE_LENGTH).and_then(|f| params.check("feature", Feature::parse(&f)));
    let value = params.required_string("value", CHOICE_LENGTH).and_then(|v| params.check("value", Toggle::parse(&v)));
    Some(Component { component: name?, feature: feature?, value: value? })
}
