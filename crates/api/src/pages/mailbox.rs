//! The test mailbox, `GET /test/mailbox`: the e-mail an account sent in test mode, each message
//! rendered, for developers without an SMTP server. It answers the holder of a test secret key
//! (HTTP Basic, so a browser asks for it) and can be switched off (`mail.mailbox`).

use super::hosted::{html, message};
use crate::auth::authenticate;
use crate::formatting::long_date;
use crate::state::{blocking, Services};
use actix_web::http::{header, Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::Scope;
use payments_domain::account::{KeyKind, Mode};
use payments_domain::mail_message::{MailMessage, MailStatus};

/// The hosted pages' policy with the inline styles of e-mail allowed.
const MAILBOX_POLICY: &str = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; \
                              base-uri 'none'; frame-ancestors 'none'";
/// The most messages the page shows.
const SHOWN: u32 = 50;

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/test/mailbox")
            .route(crate::routes::get_or_head().to(mailbox))
            .default_service(crate::routes::allow_only(&[Method::GET])),
    );
}

struct Shown<'a> {
    id: &'a str,
    subject: &'a str,
    to: &'a str,
    from: &'a str,
    date: String,
    message_id: &'a str,
    status: &'static str,
    error: Option<&'a str>,
    html: &'a str,
    text: &'a str,
}

#[derive(Template)]
#[template(path = "mailbox.html")]
struct Mailbox<'a> {
    messages: Vec<Shown<'a>>,
    delivers: bool,
    back: Option<&'a str>,
}

async fn mailbox(request: HttpRequest, services: web::Data<Services>) -> HttpResponse {
    if !services.mailbox {
        return show(&services, None, None).await;
    }
    let scope = match authenticate(&request).await {
        Ok(caller) if caller.key_kind == KeyKind::Secret && caller.scope.mode == Mode::Test => caller.scope,
        _ => {
            let mut response = message(
                StatusCode::UNAUTHORIZED,
                "Sign in with a test key",
                "Give a test secret key (sk_test_…) as the user name to read this account's test e-mail.",
                None,
                true,
            );
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Basic realm=\"Test mailbox\", charset=\"UTF-8\""),
            );
            return response;
        }
    };
    show(&services, Some(scope), None).await
}

/// The test mailbox of `scope`, a test mode: its e-mail, newest first, with a link `back` (the
/// console shows it to a session signed in with a test key, as `/test/mailbox` shows it to the
/// holder of that key). Without a scope, or with the mailbox off, a 404 page.
pub(crate) async fn show(services: &Services, scope: Option<Scope>, back: Option<&str>) -> HttpResponse {
    let (Some(scope), true) = (scope, services.mailbox) else {
        return message(StatusCode::NOT_FOUND, "Not found", "The test mailbox is switched off here.", None, false);
    };
    let delivers = services.mailer.delivers();
    let service = services.mail_messages.clone();
    let messages = match blocking(move || service.latest(&scope, SHOWN)).await {
        Ok(messages) => messages,
        Err(_) => {
            return message(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again in a moment",
                "The mailbox is busy.",
                None,
                true,
            )
        }
    };
    let shown = messages.iter().map(shown).collect();
    let mut response = html(StatusCode::OK, Mailbox { messages: shown, delivers, back }.render());
    // The messages' own inline styles, so they look as they will in a mail client; still no scripts.
    response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, header::HeaderValue::from_static(MAILBOX_POLICY));
    response
}

fn shown(message: &MailMessage) -> Shown<'_> {
    let content = message.content();
    Shown {
        id: message.id().as_str(),
        subject: &content.subject,
        to: &content.to,
        from: &content.from,
        date: long_date(message.created_at()),
        message_id: &content.message_id,
        status: match message.status() {
            MailStatus::Pending => "queued",
            MailStatus::Sent => "sent to the SMTP server",
            MailStatus::Kept => "kept here (no SMTP server)",
            MailStatus::Failed => "failed",
        },
        error: message.last_error(),
        html: &content.html,
        text: &content.text,
    }
}
