//! The test helpers that end a payment or a setup intent's pending authorization, written once for
//! both: `complete_redirect` as the test authorization page would, `finish_processing` as the
//! processor would. Each intent's routes register them with [`HelperTarget`].

use super::support::{ok, verdict};
use crate::auth::TestSecretKey;
use crate::decode::BodyParams;
use crate::error::ApiError;
use crate::representation::payment_intent::PaymentIntentResource;
use crate::representation::setup_intent::SetupIntentResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::services::{AuthorizationFlow, PaymentIntentService, SetupIntentService};
use payments_application::{ApplicationError, Scope};
use payments_domain::pending_authorization::Verdict;
use std::sync::Arc;

/// An intent whose test helpers these are: its service, and how its view is answered.
pub(super) trait HelperTarget: 'static {
    type Flow: AuthorizationFlow<View: Send + 'static> + Send + Sync + 'static;

    fn flow(services: &Services) -> Arc<Self::Flow>;

    fn render(view: &<Self::Flow as AuthorizationFlow>::View) -> HttpResponse;
}

impl HelperTarget for PaymentIntentService {
    type Flow = Self;

    fn flow(services: &Services) -> Arc<Self> {
        services.payment_intents.clone()
    }

    fn render(view: &<Self as AuthorizationFlow>::View) -> HttpResponse {
        ok(&PaymentIntentResource::new(view))
    }
}

impl HelperTarget for SetupIntentService {
    type Flow = Self;

    fn flow(services: &Services) -> Arc<Self> {
        services.setup_intents.clone()
    }

    fn render(view: &<Self as AuthorizationFlow>::View) -> HttpResponse {
        ok(&SetupIntentResource::new(view))
    }
}

/// What a test helper does with the verdict the body asks for.
type End<F> = fn(&F, &Scope, &str, &Verdict) -> Result<<F as AuthorizationFlow>::View, ApplicationError>;

pub(super) async fn complete_redirect<T: HelperTarget>(
    key: TestSecretKey,
    id: web::Path<String>,
    body: BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    end_pending::<T>(key, id, body, &services, T::Flow::finish_redirect).await
}

pub(super) async fn finish_processing<T: HelperTarget>(
    key: TestSecretKey,
    id: web::Path<String>,
    body: BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    end_pending::<T>(key, id, body, &services, T::Flow::settle_processing).await
}

async fn end_pending<T: HelperTarget>(
    TestSecretKey(scope): TestSecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: &Services,
    end: End<T::Flow>,
) -> Result<HttpResponse, ApiError> {
    let verdict = verdict(&mut params);
    let verdict = params.finish(verdict)?;
    let flow = T::flow(services);
    let view = blocking(move || end(&flow, &scope, &id, &verdict)).await?;
    Ok(T::render(&view))
}
