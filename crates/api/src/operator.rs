//! The operator API for accounts, under `/operator/accounts`: create (with keys), list, retrieve,
//! delete, an account's test data deleted, exported as JSON lines and imported, and its live
//! processor connector set, read and removed (its secrets never shown). Registered only
//! when `operator.token` is set, asked for as a bearer token, compared in constant time and never
//! logged. Not in the public OpenAPI document: it is the service operator's, not a merchant's.

use crate::auth::{presented_key, token_matches};
use crate::decode::{spool_body, BodyParams, BodyRules, QueryParams};
use crate::error::ApiError;
use crate::representation::account::{
    account_json, deleted_account_json, deleted_json, export_lines, imported_json, new_account_json, open_export,
};
use crate::representation::balance::ScheduleResource;
use crate::representation::connector_account::connector_json;
use crate::representation::processor_operation::processor_operation_json;
use crate::settings::OperatorSettings;
use crate::state::{blocking, Services};
use actix_web::dev::Payload;
use actix_web::http::header::{self, ContentDisposition, DispositionParam, DispositionType};
use actix_web::http::Method;
use actix_web::{web, FromRequest, HttpRequest, HttpResponse};
use payments_application::services::account::MAX_ACCOUNTS_LISTED;
use payments_application::{ApplicationError, Scope};
use payments_domain::account::Mode;
use payments_domain::connector_account::{ConnectorKind, ConnectorSecrets, ConnectorSetup, MAX_SETTING_LENGTH};
use payments_domain::ids::AccountId;
use payments_domain::payout::ScheduleEditor;
use serde_json::{json, Value};
use std::future::{ready, Ready};

/// Where the operator API lives; the idempotency middleware leaves it alone (it takes no API key).
pub const PATH_PREFIX: &str = "/operator/";
/// The media type of an export.
const JSON_LINES: &str = "application/x-ndjson";
/// Longest account name accepted.
const MAX_NAME_CHARS: usize = 255;

/// The token the operator API asks for.
struct OperatorToken(String);

/// A request that presented the operator token.
struct Operator;

impl FromRequest for Operator {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(expected) = request.app_data::<web::Data<OperatorToken>>() else {
            return ready(Err(ApiError::internal_message("the operator token is not registered")));
        };
        let bearer =
            request.headers().get(header::AUTHORIZATION).and_then(|value| value.to_str().ok()).is_some_and(|value| {
                value.trim_start().get(..7).is_some_and(|scheme| scheme.eq_ignore_ascii_case("bearer "))
            });
        let outcome = if bearer {
            presented_key(request).and_then(|presented| {
                if token_matches(&presented, &expected.0) {
                    Ok(Self)
                } else {
                    Err(ApiError::unauthenticated("The operator token is not valid."))
                }
            })
        } else {
            Err(ApiError::unauthenticated("Send the operator token as Authorization: Bearer <token>."))
        };
        ready(outcome)
    }
}

/// Registers the operator API when a token is configured; without one its paths are unknown (404).
pub fn configure(config: &mut web::ServiceConfig, settings: &OperatorSettings) {
    let Some(token) = settings.token() else { return };
    let token = web::Data::new(OperatorToken(token.to_owned()));
    let import_rules = BodyRules { max_bytes: settings.import_limit_bytes, ..BodyRules::default() };
    config.service(
        web::scope("/operator/accounts")
            .app_data(token)
            .service(
                web::resource("")
                    .route(web::post().to(create))
                    .route(crate::routes::get_or_head().to(list))
                    .default_service(crate::routes::allow_only(&[Method::GET, Method::POST])),
            )
            .service(
                web::resource("/{id}")
                    .route(crate::routes::get_or_head().to(retrieve))
                    .route(web::delete().to(delete))
                    .default_service(crate::routes::allow_only(&[Method::GET, Method::DELETE])),
            )
            .service(
                web::resource("/{id}/payout_schedules/{mode}")
                    .route(crate::routes::get_or_head().to(payout_schedule))
                    .route(web::post().to(change_payout_schedule))
                    .default_service(crate::routes::allow_only(&[Method::GET, Method::POST])),
            )
            .service(
                web::resource("/{id}/connector")
                    .route(crate::routes::get_or_head().to(connector))
                    .route(web::put().to(set_connector))
                    .route(web::delete().to(remove_connector))
                    .default_service(crate::routes::allow_only(&[Method::GET, Method::PUT, Method::DELETE])),
            )
            .service(
                web::resource("/{id}/processor_operations")
                    .route(crate::routes::get_or_head().to(unanswered_operations))
                    .default_service(crate::routes::allow_only(&[Method::GET])),
            )
            .service(
                web::resource("/{id}/test_data")
                    .app_data(import_rules)
                    .route(crate::routes::get_or_head().to(export))
                    .route(web::post().to(import))
                    .route(web::delete().to(delete_test_data))
                    .default_service(crate::routes::allow_only(&[Method::GET, Method::POST, Method::DELETE])),
            ),
    );
}

async fn create(
    _: Operator,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let name = params.required_string("name", MAX_NAME_CHARS);
    let name = params.finish(name)?;
    let (account, keys) = blocking(move || services.accounts.create(&name)).await?;
    Ok(HttpResponse::Ok().json(new_account_json(&account, &keys, true)))
}

async fn list(
    _: Operator,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let limit = params.integer_between("limit", Some(1), Some(i64::from(MAX_ACCOUNTS_LISTED)));
    let after = params.string("after", 64);
    let (limit, after) = params.finish(Some((limit, after)))?;
    let after = after.map(|after| account_id(&after)).transpose()?;
    let limit = limit.and_then(|limit| u32::try_from(limit).ok()).unwrap_or(MAX_ACCOUNTS_LISTED);
    let (accounts, has_more) = blocking(move || services.accounts.list(after.as_ref(), limit)).await?;
    let data: Vec<_> = accounts.iter().map(account_json).collect();
    Ok(HttpResponse::Ok().json(json!({"resource": "list", "data": data, "has_more": has_more})))
}

async fn retrieve(
    _: Operator,
    AccountPath(id): AccountPath,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let account = blocking(move || services.accounts.retrieve(&id)).await?;
    Ok(HttpResponse::Ok().json(account_json(&account)))
}

async fn delete(
    _: Operator,
    AccountPath(id): AccountPath,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let deleted = id.clone();
    blocking(move || services.accounts.delete(&deleted)).await?;
    Ok(HttpResponse::Ok().json(deleted_account_json(&id)))
}

async fn delete_test_data(
    _: Operator,
    AccountPath(id): AccountPath,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let account = id.clone();
    let deleted = blocking(move || services.accounts.delete_test_data(&account)).await?;
    Ok(HttpResponse::Ok().json(deleted_json(&id, &deleted)))
}

async fn export(
    _: Operator,
    AccountPath(id): AccountPath,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let exported_at = services.clock.now();
    let account = id.clone();
    let export = blocking(move || services.accounts.export_test_data(&account)).await?;
    let disposition = ContentDisposition {
        disposition: DispositionType::Attachment,
        parameters: vec![DispositionParam::Filename(format!("{}-test-data.jsonl", id.as_str()))],
    };
    Ok(HttpResponse::Ok()
        .content_type(JSON_LINES)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(disposition)
        .body(export_lines(&export, exported_at)))
}

async fn import(
    _: Operator,
    request: HttpRequest,
    AccountPath(id): AccountPath,
    payload: web::Payload,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let file = spool_body(&request, &mut payload.into_inner()).await?;
    let account = id.clone();
    let rows = blocking(move || {
        let import = open_export(file).map_err(ApplicationError::invalid)?;
        services.accounts.import_test_data(&account, &import)
    })
    .await?;
    Ok(HttpResponse::Ok().json(imported_json(&id, rows)))
}

/// How often an account's mode (`test` or `live`) is paid out, and to which bank account.
async fn payout_schedule(
    _: Operator,
    AccountPath(id): AccountPath,
    request: HttpRequest,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let scope = Scope { account_id: id, mode: mode(&request)? };
    let schedule = blocking(move || services.payouts.schedule(&scope)).await?;
    Ok(HttpResponse::Ok().json(ScheduleResource::new(&schedule)))
}

/// Changes the schedule: `interval` (`daily`, `weekly` with `weekly_anchor`, `monthly` with
/// `monthly_anchor`, `manual`) and the `bank_account` (`account_name`, `account_number`,
/// `bank_name`), each optional.
async fn change_payout_schedule(
    _: Operator,
    AccountPath(id): AccountPath,
    request: HttpRequest,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let scope = Scope { account_id: id, mode: mode(&request)? };
    let change = crate::routes::payout::schedule_change(&mut params);
    let (interval, destination) = params.finish(change)?;
    let schedule =
        blocking(move || services.payouts.change_schedule(&scope, ScheduleEditor::Operator, interval, destination))
            .await?;
    Ok(HttpResponse::Ok().json(ScheduleResource::new(&schedule)))
}

/// The account's live processor connector.
async fn connector(
    _: Operator,
    AccountPath(id): AccountPath,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let base = services.public_base_url.clone();
    let connector = blocking(move || services.connectors.retrieve(&id)).await?;
    Ok(HttpResponse::Ok().json(connector_json(&connector, &base)))
}

/// The account's live operations its processor has not answered, the oldest first (at most 100):
/// being sent, being asked about, or `unresolved`, for the operator to settle with the processor.
async fn unanswered_operations(
    _: Operator,
    AccountPath(id): AccountPath,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let operations = blocking(move || services.connectors.unanswered_operations(&id)).await?;
    let data: Vec<Value> = operations.iter().map(processor_operation_json).collect();
    Ok(HttpResponse::Ok().json(json!({"resource": "list", "data": data})))
}

/// Sets the account's live processor connector: `kind` (`stripe`), `api_base_url`,
/// `publishable_key`, and the secrets `secret_key` and `webhook_secret`, sealed before they are
/// stored and never shown again.
async fn set_connector(
    _: Operator,
    AccountPath(id): AccountPath,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let kind = params.one_of("kind", &ConnectorKind::ALL, ConnectorKind::as_str);
    let kind = params.require("kind", kind);
    let api_base_url = params.required_string("api_base_url", MAX_SETTING_LENGTH);
    let publishable_key = params.required_string("publishable_key", MAX_SETTING_LENGTH);
    let secret_key = params.required_string("secret_key", MAX_SETTING_LENGTH);
    params.secret("secret_key");
    let webhook_secret = params.required_string("webhook_secret", MAX_SETTING_LENGTH);
    params.secret("webhook_secret");
    let setup = (|| {
        Some(ConnectorSetup {
            kind: kind?,
            api_base_url: api_base_url?,
            publishable_key: publishable_key?,
            secrets: ConnectorSecrets { secret_key: secret_key?, webhook_secret: webhook_secret? },
        })
    })();
    let setup = params.finish(setup)?;
    let base = services.public_base_url.clone();
    let connector = blocking(move || services.connectors.set(&id, &setup)).await?;
    Ok(HttpResponse::Ok().json(connector_json(&connector, &base)))
}

/// Removes the account's live processor connector.
async fn remove_connector(
    _: Operator,
    AccountPath(id): AccountPath,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let account = id.clone();
    blocking(move || services.connectors.remove(&account)).await?;
    Ok(HttpResponse::Ok().json(json!({"resource": "connector", "account_id": id.as_str(), "deleted": true})))
}

/// The mode a path names: `test` or `live`.
fn mode(request: &HttpRequest) -> Result<Mode, ApiError> {
    match request.match_info().get("mode") {
        Some("test") => Ok(Mode::Test),
        Some("live") => Ok(Mode::Live),
        other => {
            Err(ApplicationError::NotFound { resource: "payout_schedule", id: other.unwrap_or_default().to_owned() }
                .into())
        }
    }
}

/// The account a path names (`/{id}…`), of a request that takes no query parameters.
struct AccountPath(AccountId);

impl FromRequest for AccountPath {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let outcome = QueryParams::from_request(request, payload)
            .into_inner()
            .and_then(|QueryParams(params)| params.finish(Some(())))
            .and_then(|()| account_id(request.match_info().get("id").unwrap_or_default()))
            .map(Self);
        ready(outcome)
    }
}

/// An account id from the path or a cursor; an id of no account's shape is no account's.
fn account_id(text: &str) -> Result<AccountId, ApiError> {
    AccountId::parse(text).ok_or_else(|| {
        payments_application::ApplicationError::NotFound { resource: "account", id: text.to_owned() }.into()
    })
}
