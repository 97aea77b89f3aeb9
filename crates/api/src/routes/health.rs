//! Liveness and readiness probes.

use super::endpoint::{Auth, Endpoint};
use super::support::ok;
use crate::error::ApiError;
use crate::representation::health::HealthResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::ApplicationError;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/healthz", alive)
            .named("check_liveness", "Whether the process is up")
            .auth(Auth::Nobody)
            .answers::<HealthResource>(),
        Endpoint::get("/readyz", ready)
            .named("check_readiness", "Whether the database answers")
            .auth(Auth::Nobody)
            .answers::<HealthResource>(),
    ]
}

/// The process is up.
async fn alive() -> HttpResponse {
    ok(&HealthResource { status: "ok" })
}

/// The database answers and the instance is not stopping; 503 `service_unavailable` otherwise.
async fn ready(services: web::Data<Services>) -> Result<HttpResponse, ApiError> {
    if services.stopping.has_begun() {
        return Err(ApiError::unavailable("this instance is stopping".into()));
    }
    let storage = services.storage.clone();
    blocking(move || storage.ping().map_err(ApplicationError::from)).await?;
    Ok(ok(&HealthResource { status: "ready" }))
}
