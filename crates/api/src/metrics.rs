//! `GET /metrics` for Prometheus, and the middleware that times every request by route pattern,
//! method and status. The metrics themselves are the adapters' ([`payments_adapters::metrics`]).

use crate::auth::{presented_key, token_matches};
use crate::error::ApiError;
use crate::settings::MetricsSettings;
use crate::state::{blocking, Services};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, HttpResponse};
use payments_adapters::metrics::CONTENT_TYPE;
use std::time::Instant;

/// Registers `/metrics` when enabled (GET and HEAD); other methods answer 405 with `Allow`.
pub fn configure(config: &mut web::ServiceConfig, settings: &MetricsSettings) {
    if settings.enabled {
        let token = web::Data::new(MetricsToken(Some(settings.bearer_token.clone()).filter(|t| !t.is_empty())));
        config.service(
            web::resource("/metrics")
                .app_data(token)
                .route(crate::routes::get_or_head().to(metrics))
                .default_service(crate::routes::allow_only(&[actix_web::http::Method::GET])),
        );
    }
}

/// The token `/metrics` asks for, if any.
struct MetricsToken(Option<String>);

async fn metrics(
    request: HttpRequest,
    token: web::Data<MetricsToken>,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    if let Some(expected) = &token.0 {
        if !token_matches(&presented_key(&request)?, expected) {
            return Err(ApiError::unauthenticated("The metrics token is not valid."));
        }
    }
    let deliveries = services.deliveries.clone();
    let backlog = blocking(move || deliveries.backlog()).await?;
    let text = services.metrics.render(&backlog, services.clock.now());
    Ok(HttpResponse::Ok().content_type(CONTENT_TYPE).body(text))
}

/// Times the request and counts it under its route pattern (`unmatched` for unknown routes), its
/// method (`other` for non-standard ones) and its status.
///
/// # Errors
/// What the wrapped service returns.
pub async fn record_request(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let services = request.app_data::<web::Data<Services>>().cloned();
    let method = method_label(request.method());
    let outcome = next.call(request).await;
    if let Some(services) = services {
        let (route, status) = match &outcome {
            Ok(response) => (response.request().match_pattern(), response.status().as_u16()),
            Err(error) => (None, error.as_response_error().status_code().as_u16()),
        };
        let route = route.unwrap_or_else(|| "unmatched".to_owned());
        services.metrics.request(&route, method, status, started.elapsed());
    }
    outcome
}

fn method_label(method: &Method) -> &'static str {
    let known = [
        (Method::GET, "GET"),
        (Method::HEAD, "HEAD"),
        (Method::POST, "POST"),
        (Method::PUT, "PUT"),
        (Method::DELETE, "DELETE"),
        (Method::PATCH, "PATCH"),
        (Method::OPTIONS, "OPTIONS"),
    ];
    known.into_iter().find(|(known, _)| known == method).map_or("other", |(_, label)| label)
}
