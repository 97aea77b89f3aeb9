//! Signing in to the console with an account's secret key, and out. A wrong key of any kind gets the
//! same answer; sign-in is rate-limited per client address like every request without a key.

use super::{after_action, page, Action, ROOT, SESSION_COOKIE};
use crate::decode::{form, read_body};
use crate::pages::hosted::{cookie_is_secure, form_token, form_token_matches, html, not_allowed, FORM_TOKEN_FIELD};
use crate::state::{blocking, Services};
use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::ports::IdGenerator;

/// What a refused sign-in says, whatever was wrong with the key.
const REFUSED: &str =
    "That key does not open the console. Give one of the account's secret keys (sk_test_… or sk_live_…).";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(
            web::resource(format!("{ROOT}/sign_in"))
                .route(crate::routes::get_or_head().to(show))
                .route(web::post().to(sign_in))
                .default_service(not_allowed(&[Method::GET, Method::POST], "Open the sign-in page.", false)),
        )
        .service(
            web::resource(format!("{ROOT}/sign_out")).route(web::post().to(sign_out)).default_service(not_allowed(
                &[Method::POST],
                "Sign out with the button of a console page.",
                false,
            )),
        );
}

#[derive(Template)]
#[template(path = "console/sign_in.html")]
struct SignInPage<'a> {
    form_token: &'a str,
    error: Option<&'a str>,
}

fn sign_in_page(request: &HttpRequest, ids: &dyn IdGenerator, status: StatusCode, error: Option<&str>) -> HttpResponse {
    let (token, cookie) = form_token(request, ids);
    let mut response = html(status, SignInPage { form_token: &token, error }.render());
    if let Some(cookie) = cookie {
        let _ = response.add_cookie(&cookie);
    }
    response
}

async fn show(request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    sign_in_page(&request, services.ids.as_ref(), StatusCode::OK, None)
}

async fn sign_in(request: HttpRequest, payload: web::Payload, services: web::Data<Services>) -> HttpResponse {
    let Ok(body) = read_body(&request, &mut payload.into_inner()).await else {
        return sign_in_page(&request, services.ids.as_ref(), StatusCode::BAD_REQUEST, Some(REFUSED));
    };
    let fields = form::parse(&body).unwrap_or_default();
    let field = |name: &str| fields.get(name).and_then(|value| value.as_str()).unwrap_or_default().to_owned();
    if !form_token_matches(&request, Some(&field(FORM_TOKEN_FIELD))) {
        let expired = "This sign-in form has expired; it was reloaded. Give the key again.";
        return sign_in_page(&request, services.ids.as_ref(), StatusCode::FORBIDDEN, Some(expired));
    }
    let (key, previous) = (field("key"), request.cookie(SESSION_COOKIE).map(|cookie| cookie.value().to_owned()));
    let signing_in = services.clone();
    match blocking(move || signing_in.console_sessions.sign_in(&key, previous.as_deref())).await {
        Ok(signed_in) => {
            let cookie = session_cookie(&request, signed_in.token.reveal().to_owned());
            let mut response = after_action(ROOT);
            let _ = response.add_cookie(&cookie);
            response
        }
        Err(error) if error.status() == StatusCode::UNAUTHORIZED => {
            sign_in_page(&request, services.ids.as_ref(), StatusCode::UNAUTHORIZED, Some(REFUSED))
        }
        Err(error) => {
            let detail = error.details().join(" ");
            sign_in_page(&request, services.ids.as_ref(), StatusCode::SERVICE_UNAVAILABLE, Some(&detail))
        }
    }
}

async fn sign_out(request: HttpRequest, action: Action, services: web::Data<Services>) -> HttpResponse {
    let _ = action;
    if let Some(token) = request.cookie(SESSION_COOKIE).map(|cookie| cookie.value().to_owned()) {
        let ending = services.clone();
        if blocking(move || ending.console_sessions.sign_out(&token)).await.is_err() {
            return page(Err(askama::Error::Custom("the session could not be ended".into())));
        }
    }
    let mut response = after_action(&format!("{ROOT}/sign_in"));
    let mut gone = session_cookie(&request, String::new());
    gone.make_removal();
    let _ = response.add_cookie(&gone);
    response
}

/// The console's session cookie holding `token`: the console's alone, never read by scripts, never
/// sent from another site, and `Secure` by the rule of every cookie.
fn session_cookie(request: &HttpRequest, token: String) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, token)
        .path(ROOT)
        .http_only(true)
        .secure(cookie_is_secure(request))
        .same_site(SameSite::Strict)
        .finish()
}
