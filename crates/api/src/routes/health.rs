//! Liveness and readiness probes.

use super::support::resource;
use crate::error::ApiError;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::ApplicationError;
use serde_json::json;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/healthz").route(web::get().to(alive)))
        .service(resource("/readyz").route(web::get().to(ready)));
}

/// The process is up.
async fn alive() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

/// The database answers; 503 `service_unavailable` otherwise.
async fn ready(services: web::Data<Services>) -> Result<HttpResponse, ApiError> {
    let storage = services.storage.clone();
    blocking(move || storage.ping().map_err(ApplicationError::from)).await?;
    Ok(HttpResponse::Ok().json(json!({"status": "ready"})))
}
