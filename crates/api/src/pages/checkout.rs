//! The hosted checkout page, `/c/<client_secret>`: the session's line items and total, a choice
//! among its payment methods, a card form and billing fields. Paying attaches the session's intent
//! as a browser would; redirects (3-D Secure, e-wallets) come back to this page, which then sends
//! the customer on to `success_url`. Works without JavaScript.

use super::hosted::FORM_TOKEN_FIELD;
use super::hosted::{form_token, form_token_matches, html, message, method_name, pesos, see_other};
use crate::decode::{BodyParams, Params, QueryParams};
use crate::routes::payment_method::payment_method;
use crate::state::Services;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use payments_application::services::{AttachOutcome, AttachRequest, CheckoutPage};
use payments_application::ApplicationError;
use payments_domain::checkout_session::{BillingDetailsCollection, CheckoutSessionStatus};
use payments_domain::description::Description;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::payment_intent::{PaymentError, PaymentIntentStatus};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::validation::FieldError;

/// The query parameter a redirect brings back; its presence means the customer is returning.
const RETURNING: &str = "payment_intent_client_secret";

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/c/{client_secret}").route(web::get().to(show)).route(web::post().to(pay)).default_service(
            web::to(|| async {
                message(StatusCode::METHOD_NOT_ALLOWED, "Not allowed", "Use the form of the page.", None, false)
            }),
        ),
    );
}

/// One input of the form, with what the customer typed (never a card number or CVC) and its error.
struct Field {
    /// The parameter name, as the API spells it: `payment_method[card][number]`.
    name: &'static str,
    id: &'static str,
    label: &'static str,
    kind: &'static str,
    autocomplete: &'static str,
    inputmode: &'static str,
    required: bool,
    value: String,
    error: Option<String>,
}

struct ItemLine<'a> {
    name: &'a str,
    description: Option<&'a str>,
    image: &'a str,
    quantity: i64,
    unit_price: String,
    line_total: String,
}

struct MethodOption {
    value: &'static str,
    label: &'static str,
    checked: bool,
}

#[derive(Template)]
#[template(path = "checkout.html")]
struct CheckoutForm<'a> {
    test_mode: bool,
    description: Option<&'a str>,
    items: Vec<ItemLine<'a>>,
    total: String,
    methods: Vec<MethodOption>,
    offers_card: bool,
    card_fields: Vec<Field>,
    billing_fields: Vec<Field>,
    alert: Option<String>,
    button: String,
    form_token: &'a str,
    cancel_url: &'a str,
}

#[derive(Template)]
#[template(path = "checkout_status.html")]
struct StatusPage<'a> {
    test_mode: bool,
    heading: &'a str,
    message: &'a str,
    total: String,
    link: Option<(&'a str, &'a str)>,
    refresh: bool,
}

/// What the customer typed, to show again after an error.
#[derive(Default)]
struct Entered {
    method: Option<String>,
    values: Vec<(String, String)>,
    errors: Vec<FieldError>,
    alert: Option<String>,
}

async fn show(
    request: HttpRequest,
    secret: web::Path<String>,
    QueryParams(mut query): QueryParams,
    services: web::Data<Services>,
) -> HttpResponse {
    let returning = query.string(RETURNING, IDENTIFIER_LENGTH).is_some();
    let page = match run(move || services.checkout_sessions.page(&secret)).await {
        Ok(page) => page,
        Err(error) => return failure(&error),
    };
    let intent = &page.view.payment_intent.intent;
    if returning && page.view.session.status() == CheckoutSessionStatus::Completed {
        return see_other(&page.view.session.success_url());
    }
    let mut entered = Entered::default();
    if returning && intent.status() == PaymentIntentStatus::AwaitingPaymentMethod {
        entered.alert = intent.last_payment_error().map(decline_message);
    }
    render(&request, &page, entered, StatusCode::OK)
}

async fn pay(
    request: HttpRequest,
    secret: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> HttpResponse {
    let token = params.string(FORM_TOKEN_FIELD, IDENTIFIER_LENGTH);
    if !form_token_matches(&request, token.as_deref()) {
        let page = request.path().to_owned();
        return message(
            StatusCode::FORBIDDEN,
            "This form has expired",
            "Nothing was charged. Open the payment page again to pay.",
            Some((&page, "Open the payment page")),
            false,
        );
    }
    let page = match run({
        let (services, secret) = (services.clone(), secret.clone());
        move || services.checkout_sessions.page(&secret)
    })
    .await
    {
        Ok(page) => page,
        Err(error) => return failure(&error),
    };
    if page.view.session.status() == CheckoutSessionStatus::Completed {
        // A second submission (a double click, another tab): paid already, on to the merchant.
        return see_other(&page.view.session.success_url());
    }
    let (entered, attach) = read_form(params, page.view.session.details().billing_details_collection);
    let Some(attach) = attach.filter(|_| page.payable) else {
        return render(&request, &page, entered, StatusCode::UNPROCESSABLE_ENTITY);
    };
    let loaded = page.clone();
    let outcome = run({
        let services = services.clone();
        move || services.checkout_sessions.pay(&loaded, attach)
    })
    .await;
    match outcome {
        Ok(AttachOutcome::Attached(view)) => match (view.intent.status(), view.intent.pending()) {
            (PaymentIntentStatus::Succeeded | PaymentIntentStatus::AwaitingCapture, _) => {
                see_other(&page.view.session.success_url())
            }
            (PaymentIntentStatus::AwaitingNextAction, Some(pending)) if pending.redirect_url.is_some() => {
                see_other(pending.redirect_url.as_deref().unwrap_or_default())
            }
            _ => see_other(request.path()),
        },
        Ok(AttachOutcome::Declined(_, error)) => {
            let entered = Entered { alert: Some(decline_message(&error)), ..entered };
            render(&request, &page, entered, StatusCode::PAYMENT_REQUIRED)
        }
        Err(ApiErrorKind::Validation(errors)) => {
            render(&request, &page, Entered { errors, ..entered }, StatusCode::UNPROCESSABLE_ENTITY)
        }
        // Paid, expired or attached meanwhile (a double submission, another tab): a paid session
        // goes on to the merchant, anything else shows the page as it stands now.
        Err(ApiErrorKind::Moved) => match run(move || services.checkout_sessions.page(&secret)).await {
            Ok(now) if now.view.session.status() == CheckoutSessionStatus::Completed => {
                see_other(&now.view.session.success_url())
            }
            _ => see_other(request.path()),
        },
        Err(error) => failure(&error),
    }
}

/// What paying can fail with, as the page handles it.
enum ApiErrorKind {
    Validation(Vec<FieldError>),
    /// The session or its intent changed meanwhile.
    Moved,
    Other(ApplicationError),
}

/// Runs a use case on the blocking pool, keeping the application's error for the page.
async fn run<T: Send + 'static>(
    use_case: impl FnOnce() -> Result<T, ApplicationError> + Send + 'static,
) -> Result<T, ApiErrorKind> {
    match web::block(use_case).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(ApplicationError::Validation(errors))) => Err(ApiErrorKind::Validation(errors)),
        Ok(Err(ApplicationError::InvalidState(_) | ApplicationError::Conflict)) => Err(ApiErrorKind::Moved),
        Ok(Err(error)) => Err(ApiErrorKind::Other(error)),
        Err(error) => Err(ApiErrorKind::Other(ApplicationError::Internal(error.into()))),
    }
}

/// One input of the form: its parameter name (as the API spells it, so the API's decoder reads it),
/// path in the decoded parameters, label and browser hints.
struct Input {
    name: &'static str,
    path: &'static [&'static str],
    label: &'static str,
    kind: &'static str,
    autocomplete: &'static str,
    inputmode: &'static str,
}

const CARD_INPUTS: [Input; 4] = [
    Input {
        name: "payment_method[card][number]",
        path: &["card", "number"],
        label: "Card number",
        kind: "text",
        autocomplete: "cc-number",
        inputmode: "numeric",
    },
    Input {
        name: "payment_method[card][exp_month]",
        path: &["card", "exp_month"],
        label: "Expiry month (MM)",
        kind: "text",
        autocomplete: "cc-exp-month",
        inputmode: "numeric",
    },
    Input {
        name: "payment_method[card][exp_year]",
        path: &["card", "exp_year"],
        label: "Expiry year (YY)",
        kind: "text",
        autocomplete: "cc-exp-year",
        inputmode: "numeric",
    },
    Input {
        name: "payment_method[card][cvc]",
        path: &["card", "cvc"],
        label: "CVC",
        kind: "text",
        autocomplete: "cc-csc",
        inputmode: "numeric",
    },
];

const NAME_INPUT: Input = Input {
    name: "payment_method[billing][name]",
    path: &["billing", "name"],
    label: "Full name",
    kind: "text",
    autocomplete: "name",
    inputmode: "text",
};

/// Billing inputs beside the name when the session collects them `always`; all but the phone are
/// required.
const BILLING_INPUTS: [Input; 6] = [
    Input {
        name: "payment_method[billing][email]",
        path: &["billing", "email"],
        label: "E-mail",
        kind: "email",
        autocomplete: "email",
        inputmode: "email",
    },
    Input {
        name: "payment_method[billing][phone]",
        path: &["billing", "phone"],
        label: "Phone (optional)",
        kind: "tel",
        autocomplete: "tel",
        inputmode: "tel",
    },
    Input {
        name: "payment_method[billing][address][line1]",
        path: &["billing", "address", "line1"],
        label: "Address",
        kind: "text",
        autocomplete: "address-line1",
        inputmode: "text",
    },
    Input {
        name: "payment_method[billing][address][city]",
        path: &["billing", "address", "city"],
        label: "City",
        kind: "text",
        autocomplete: "address-level2",
        inputmode: "text",
    },
    Input {
        name: "payment_method[billing][address][postal_code]",
        path: &["billing", "address", "postal_code"],
        label: "Postal code",
        kind: "text",
        autocomplete: "postal-code",
        inputmode: "numeric",
    },
    Input {
        name: "payment_method[billing][address][country]",
        path: &["billing", "address", "country"],
        label: "Country (two letters, e.g. PH)",
        kind: "text",
        autocomplete: "country",
        inputmode: "text",
    },
];

/// The billing inputs a session asks for: the cardholder's name (for cards) with `auto`, everything
/// with `always`.
fn billing_inputs(collection: BillingDetailsCollection) -> Vec<&'static Input> {
    let mut inputs = vec![&NAME_INPUT];
    if collection == BillingDetailsCollection::Always {
        inputs.extend(BILLING_INPUTS.iter());
    }
    inputs
}

/// Reads the posted form into what attaching needs; card inputs are ignored unless the card is
/// chosen, and the billing inputs the page asked for are required.
fn read_form(mut params: Params, collection: BillingDetailsCollection) -> (Entered, Option<AttachRequest>) {
    let method = nested(params.values(), &["type"]).map(str::to_owned);
    let card_chosen = method.as_deref() == Some(PaymentMethodType::Card.as_str());
    // What the customer typed, to show again: never the card's number or CVC.
    let values = billing_inputs(collection)
        .into_iter()
        .chain(CARD_INPUTS.iter().filter(|input| input.path[1].starts_with("exp_")))
        .filter_map(|input| Some((input.name.to_owned(), nested(params.values(), input.path)?.to_owned())))
        .collect::<Vec<_>>();
    let missing: Vec<FieldError> = billing_inputs(collection)
        .into_iter()
        .filter(|input| input.autocomplete != "tel")
        .filter(|_| card_chosen || collection == BillingDetailsCollection::Always)
        .filter(|input| values.iter().all(|(name, value)| name != input.name || value.trim().is_empty()))
        .map(|input| FieldError::required(input.name))
        .collect();
    let choice = params.object("payment_method", |method| {
        if !method.holds("type", PaymentMethodType::Card.as_str()) {
            method.discard("card");
        }
        payment_method(method)
    });
    let mut entered = Entered { method, values, ..Entered::default() };
    match params.finish_fields(choice) {
        Ok((input, billing)) if missing.is_empty() => {
            (entered, Some(AttachRequest { method: input.into(), billing, return_url: None }))
        }
        Ok(_) => {
            entered.errors = missing;
            (entered, None)
        }
        Err(mut errors) => {
            let missing: Vec<FieldError> =
                missing.into_iter().filter(|m| errors.iter().all(|e| e.parameter != m.parameter)).collect();
            errors.extend(missing);
            entered.errors = errors;
            (entered, None)
        }
    }
}

/// The string at `path` under `payment_method` in decoded form parameters.
fn nested<'a>(values: &'a serde_json::Map<String, serde_json::Value>, path: &[&str]) -> Option<&'a str> {
    let mut value = values.get("payment_method")?;
    for key in path {
        value = value.get(key)?;
    }
    value.as_str()
}

/// The inputs as the template shows them, with what was typed and the error of each.
fn fields(inputs: &[&Input], entered: &Entered) -> Vec<Field> {
    inputs
        .iter()
        .map(|input| Field {
            name: input.name,
            id: input.autocomplete,
            label: input.label,
            kind: input.kind,
            autocomplete: input.autocomplete,
            inputmode: input.inputmode,
            required: input.autocomplete != "tel",
            value: entered
                .values
                .iter()
                .find(|(name, _)| name == input.name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default(),
            error: entered.errors.iter().find(|error| error.parameter == input.name).map(|error| {
                if error.code == payments_domain::validation::ErrorCode::ParameterRequired {
                    format!("Enter the {}.", input.label.to_lowercase().trim_end_matches(" (optional)"))
                } else {
                    error.detail.replace(input.name, input.label)
                }
            }),
        })
        .collect()
}

fn render(request: &HttpRequest, page: &CheckoutPage, entered: Entered, status: StatusCode) -> HttpResponse {
    let session = &page.view.session;
    let intent = &page.view.payment_intent.intent;
    let details = session.details();
    let total = pesos(details.amount.centavos());
    let test_mode = !session.livemode();
    let status_page = |status: StatusCode, heading: &str, text: &str, link: Option<(&str, &str)>, refresh: bool| {
        let page = StatusPage { test_mode, heading, message: text, total: total.clone(), link, refresh };
        html(status, page.render())
    };
    let success_url = session.success_url();
    match (session.status(), intent.status()) {
        (CheckoutSessionStatus::Completed, _) => {
            let link = Some((success_url.as_str(), "Return to the merchant"));
            return status_page(StatusCode::OK, "Paid", "Thank you: your payment was received.", link, false);
        }
        (CheckoutSessionStatus::Expired, _) | (CheckoutSessionStatus::Active, _) if !page.payable => {
            let link = Some((details.cancel_url.as_str(), "Return to the merchant"));
            let text = "This checkout session has expired and can no longer be paid. Nothing was charged.";
            return status_page(StatusCode::GONE, "This payment page has expired", text, link, false);
        }
        (_, PaymentIntentStatus::Processing) => {
            let text = "Your payment is being processed. This page refreshes by itself.";
            return status_page(StatusCode::OK, "Processing your payment", text, None, true);
        }
        (_, PaymentIntentStatus::AwaitingNextAction) => {
            let redirect = intent.pending().and_then(|pending| pending.redirect_url.as_deref()).unwrap_or_default();
            let link = Some((redirect, "Continue"));
            let text = "Finish authorizing the payment to complete it.";
            return status_page(StatusCode::OK, "Your payment is waiting for you", text, link, false);
        }
        _ => {}
    }
    let (token, cookie) = form_token(request);
    let chosen = entered.method.as_deref().unwrap_or_else(|| details.payment_methods[0].as_str());
    let methods = details
        .payment_methods
        .iter()
        .map(|method| MethodOption {
            value: method.as_str(),
            label: method_name(*method),
            checked: method.as_str() == chosen,
        })
        .collect();
    let items = details
        .line_items
        .iter()
        .map(|item| ItemLine {
            name: &item.name,
            description: item.description.as_ref().map(Description::as_str),
            image: item.image.as_deref().unwrap_or("/assets/item.svg"),
            quantity: item.quantity,
            unit_price: pesos(item.amount),
            line_total: pesos(item.total().unwrap_or(i64::MAX)),
        })
        .collect();
    let form = CheckoutForm {
        test_mode,
        description: details.description.as_ref().map(Description::as_str),
        items,
        total: total.clone(),
        methods,
        offers_card: details.payment_methods.contains(&PaymentMethodType::Card),
        card_fields: fields(&CARD_INPUTS.iter().collect::<Vec<_>>(), &entered),
        billing_fields: fields(&billing_inputs(details.billing_details_collection), &entered),
        alert: entered.alert.clone().or_else(|| unplaced_error(&entered)),
        button: format!("{} {total}", details.submit_type.verb()),
        form_token: &token,
        cancel_url: &details.cancel_url,
    };
    let mut response = html(status, form.render());
    if let Some(cookie) = cookie {
        if let Err(error) = response.add_cookie(&cookie) {
            tracing::warn!(%error, "the form token cookie could not be set");
        }
    }
    response
}

/// An error of no input on the page (the method, say), shown above the form.
fn unplaced_error(entered: &Entered) -> Option<String> {
    let placed = |parameter: &str| {
        CARD_INPUTS.iter().chain(BILLING_INPUTS.iter()).chain([&NAME_INPUT]).any(|i| i.name == parameter)
    };
    entered.errors.iter().find(|error| !placed(&error.parameter)).map(|error| error.detail.clone())
}

fn decline_message(error: &PaymentError) -> String {
    format!("{} Try again, or choose another payment method.", error.detail)
}

/// The page for an error of the service: an unknown link is 404, an outage 503.
fn failure(error: &ApiErrorKind) -> HttpResponse {
    let unknown = |heading| {
        let text = "This payment link is not valid. Check the address, or ask the merchant for a new link.";
        message(StatusCode::NOT_FOUND, heading, text, None, false)
    };
    match error {
        ApiErrorKind::Other(ApplicationError::NotFound { .. }) => unknown("Payment page not found"),
        ApiErrorKind::Other(ApplicationError::Unavailable(_)) => message(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try again in a moment",
            "The payment service is busy. Nothing was charged.",
            None,
            false,
        ),
        _ => message(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "The payment could not be completed. Nothing was charged.",
            None,
            false,
        ),
    }
}
