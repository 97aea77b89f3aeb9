//! Saved payment methods of a customer (`GET /customers/:id/payment_methods`, a renewed card's
//! expiry by `POST /customers/:id/payment_methods/:payment_method_id`, and `DELETE` of it), and how requests give a payment
//! method: the allowed `payment_methods`, `payment_method_options`, and an inline `payment_method`.

use super::billing::payment_billing;
use super::endpoint::{Auth, Endpoint};
use super::support::{access, client_secret, ok, page_request};
use crate::auth::AnyKey;
use crate::decode::{names, BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::envelope::{Deleted, List};
use crate::representation::payment_method::{PaymentMethodResource, RESOURCE};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::pagination::PageRequest;
use payments_application::ports::PaymentMethodInput;
use payments_domain::limits::{ALLOWED_BINS, CARD_NUMBER_LENGTH, CHOICES, CVC_LENGTH};
use payments_domain::payment_intent::{CaptureType, CardOptions};
use payments_domain::payment_method::{CardInput, CardNumber, Cvc, Funding, PaymentBilling, PaymentMethodType};
use payments_domain::validation::{FieldError, Invalid};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/customers/{customer_id}/payment_methods", list)
            .named("list_payment_methods", "List a customer's saved payment methods")
            .auth(Auth::AnyKey)
            .query(list_request)
            .answers::<PaymentMethodResource>()
            .list(),
        Endpoint::post("/customers/{customer_id}/payment_methods/{id}", change_expiry)
            .named("update_payment_method", "Give a customer's saved card the expiry of its renewed card")
            .auth(Auth::AnyKey)
            .body(expiry_change)
            .answers::<PaymentMethodResource>(),
        Endpoint::delete("/customers/{customer_id}/payment_methods/{id}", delete)
            .named("delete_payment_method", "Delete a customer's saved payment method")
            .auth(Auth::AnyKey)
            .query(client_secret)
            .answers::<Deleted>(),
    ]
}

/// With a secret key, or with a public key and the `client_secret` of a live customer session of
/// the customer.
async fn list(
    AnyKey(caller): AnyKey,
    customer_id: web::Path<String>,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (client_secret, page) = params.finish(request)?;
    let methods = blocking(move || {
        let access = access(caller.key_kind, client_secret.as_deref());
        services.payment_methods.list(&caller.scope, &customer_id, access, &page)
    })
    .await?;
    Ok(ok(&List::of(&methods, PaymentMethodResource::new)))
}

/// With a secret key, or with a public key and the `client_secret` of a live customer session of
/// the customer that enables `payment_method_edit`.
async fn change_expiry(
    AnyKey(caller): AnyKey,
    path: web::Path<(String, String)>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = expiry_change(&mut params);
    let (client_secret, expiry) = params.finish(request)?;
    let (customer_id, id) = path.into_inner();
    let method = blocking(move || {
        let access = access(caller.key_kind, client_secret.as_deref());
        services.payment_methods.change_expiry(&caller.scope, &customer_id, &id, access, expiry)
    })
    .await?;
    Ok(ok(&PaymentMethodResource::new(&method)))
}

/// A change of expiry: `exp_month` and `exp_year`, and the session's client secret for a public key.
fn expiry_change(params: &mut Params) -> Option<(Option<String>, (u32, u32))> {
    let client_secret = client_secret(params);
    let (exp_month, exp_year) = expiry(params);
    let exp_month = params.require("exp_month", exp_month);
    let exp_year = params.require("exp_year", exp_year);
    Some((client_secret, (exp_month?, exp_year?)))
}

/// With a secret key, or with a public key and the `client_secret` of a live customer session of
/// the customer that enables `payment_method_remove`.
async fn delete(
    AnyKey(caller): AnyKey,
    path: web::Path<(String, String)>,
    QueryParams(mut query): QueryParams,
    BodyParams(mut body): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    // A browser may send the session's client secret in the query or in the body.
    let in_query = client_secret(&mut query);
    let in_body = client_secret(&mut body);
    query.finish(Some(()))?;
    body.finish(Some(()))?;
    let client_secret = in_body.or(in_query);
    let (customer_id, id) = path.into_inner();
    let method = blocking(move || {
        let access = access(caller.key_kind, client_secret.as_deref());
        services.payment_methods.delete(&caller.scope, &customer_id, &id, access)
    })
    .await?;
    Ok(ok(&Deleted::new(method.id.as_str(), RESOURCE)))
}

/// A list request: the page, and the client secret of a customer session for a public key.
fn list_request(params: &mut Params) -> Option<(Option<String>, PageRequest)> {
    let client_secret = client_secret(params);
    let page = page_request(params)?;
    Some((client_secret, page))
}

pub(super) fn payment_methods(params: &mut Params) -> Option<Vec<PaymentMethodType>> {
    payment_methods_of(params, &PaymentMethodType::ALL)
}

/// `payment_methods`, whose items the document lists among `types` (the caller refuses others).
pub(super) fn payment_methods_of(params: &mut Params, types: &[PaymentMethodType]) -> Option<Vec<PaymentMethodType>> {
    let methods = || names(types, PaymentMethodType::as_str);
    let names = params.choice_list("payment_methods", CHOICES, methods);
    params.non_empty("payment_methods");
    let names = names?;
    if names.is_empty() {
        let name = params.name("payment_methods");
        params.push(FieldError::invalid(name, "Allow at least one payment method."));
        return None;
    }
    let mut methods = Vec::new();
    for name in names {
        let method = params.check("payment_methods", PaymentMethodType::parse(&name))?;
        if !methods.contains(&method) {
            methods.push(method);
        }
    }
    Some(methods)
}

/// The card rules of a payment: how it is captured, and which cards may pay.
pub(super) fn card_options(params: &mut Params) -> Option<CardOptions> {
    let capture_type =
        params.choice("capture_type", || names(&CaptureType::ALL, CaptureType::as_str)).and_then(|value| {
            let parsed = match value.as_str() {
                "automatic" => Ok(CaptureType::Automatic),
                "manual" => Ok(CaptureType::Manual),
                other => Err(Invalid::value(format!("{other} is not a capture type; use automatic or manual."))),
            };
            params.check("capture_type", parsed)
        });
    let rules = card_rules(params)?;
    Some(CardOptions { capture_type: capture_type.unwrap_or(CaptureType::Automatic), ..rules })
}

/// Which cards may pay; a card being saved is never captured, so its rules have no capture type.
pub(super) fn card_rules(params: &mut Params) -> Option<CardOptions> {
    let allowed_bins = params.string_list("allowed_bins", ALLOWED_BINS, 8);
    params.pattern("allowed_bins", "^[0-9]{1,8}$");
    let allowed_bins = allowed_bins.and_then(|bins| {
        let valid = bins.iter().all(|bin| (1..=8).contains(&bin.len()) && bin.bytes().all(|b| b.is_ascii_digit()));
        params.check("allowed_bins", if valid { Ok(bins) } else { Err(Invalid::value("BINs are 1 to 8 digits.")) })
    });
    let fundings = || names(&Funding::ALL, Funding::as_str);
    let allowed_funding = params.choice_list("allowed_funding", CHOICES, fundings).and_then(|given| {
        let mut fundings: Vec<Funding> = Vec::new();
        for name in given {
            let funding = params.check("allowed_funding", Funding::parse(&name))?;
            if !fundings.contains(&funding) {
                fundings.push(funding);
            }
        }
        Some(fundings)
    });
    Some(CardOptions {
        capture_type: CaptureType::Automatic,
        allowed_bins: allowed_bins.unwrap_or_default(),
        allowed_funding: allowed_funding.unwrap_or_default(),
    })
}

pub(crate) fn payment_method(params: &mut Params) -> Option<(PaymentMethodInput, Option<PaymentBilling>)> {
    payment_method_of(params, &PaymentMethodType::ALL, entered_card)
}

/// A card being saved for later: only cards can be (the setup intent says so of another type), by
/// their details.
pub(crate) fn card_to_save(params: &mut Params) -> Option<(PaymentMethodInput, Option<PaymentBilling>)> {
    payment_method_of(params, &[PaymentMethodType::Card], |params| card_input(params, false).map(EnteredCard::Details))
}

/// An inline payment method, whose `type` the document lists among `types`, and whose card is read
/// by `read_card`.
fn payment_method_of(
    params: &mut Params,
    types: &[PaymentMethodType],
    read_card: fn(&mut Params) -> Option<EnteredCard>,
) -> Option<(PaymentMethodInput, Option<PaymentBilling>)> {
    let method = params
        .required_choice("type", || names(types, PaymentMethodType::as_str))
        .and_then(|t| params.check("type", PaymentMethodType::parse(&t)));
    let card = params.object("card", read_card);
    params.exactly_where("card", "type", PaymentMethodType::Card.as_str());
    let billing = params.object("billing", payment_billing);
    let input = match method? {
        PaymentMethodType::Card => match params.require("card", card)? {
            EnteredCard::Details(card) => PaymentMethodInput::Card(card),
            EnteredCard::Token(token) => PaymentMethodInput::ProcessorToken(token),
        },
        other if card.is_some() => {
            params.push(FieldError::invalid(
                params.name("card"),
                format!("Card details do not go with {}.", other.as_str()),
            ));
            return None;
        }
        other => PaymentMethodInput::Redirect(other),
    };
    Some((input, billing))
}

/// A card as the customer entered it: its details (test mode), or the live processor's token for
/// it, made in the browser (live mode: card numbers never reach this service).
enum EnteredCard {
    Details(CardInput),
    Token(String),
}

/// The longest processor token taken.
const PROCESSOR_TOKEN_LENGTH: usize = 255;
/// What a card's details are sent as; a token stands for all of them.
const CARD_DETAILS: [&str; 4] = ["number", "exp_month", "exp_year", "cvc"];

fn entered_card(params: &mut Params) -> Option<EnteredCard> {
    let token = params.string("token", PROCESSOR_TOKEN_LENGTH);
    params.pattern("token", "^[A-Za-z0-9_]+$");
    params.one_or_all("token", &CARD_DETAILS);
    let Some(token) = token else { return card_input(params, true).map(EnteredCard::Details) };
    let sent = CARD_DETAILS.into_iter().find(|key| params.is_sent(key));
    // Details sent empty count as absent, as the document says.
    CARD_DETAILS.into_iter().for_each(|key| params.discard(key));
    if let Some(detail) = sent {
        let name = params.name(detail);
        params.push(FieldError::invalid(name, "Give the card's token or its details, not both."));
        return None;
    }
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        let name = params.name("token");
        params.push(FieldError::invalid(name, "A processor's token is letters, digits and underscores."));
        return None;
    }
    Some(EnteredCard::Token(token))
}

/// `value` of the required `key`, or of one a token may stand for when `replaceable`.
fn required<T>(params: &mut Params, replaceable: bool, key: &str, value: Option<T>) -> Option<T> {
    if replaceable {
        params.require_unless_replaced(key, value)
    } else {
        params.require(key, value)
    }
}

/// A card's details; `replaceable` when a token may stand for them (the document then shows each
/// as optional, and the rule between them and the token).
pub(super) fn card_input(params: &mut Params, replaceable: bool) -> Option<CardInput> {
    // 12 to 19 digits, spaces allowed between them; the Luhn check is beyond the document.
    let number = params.string_or_integer("number", CARD_NUMBER_LENGTH);
    params.pattern("number", "^ *(?:[0-9] *){12,19}$");
    params.bounds("number", 100_000_000_000, i64::MAX);
    let number = number.and_then(|n| params.check("number", CardNumber::new(&n)));
    let (exp_month, exp_year) = expiry(params);
    let cvc = params.string_or_integer("cvc", CVC_LENGTH);
    params.pattern("cvc", "^[0-9]{3,4}$");
    params.bounds("cvc", 100, 9_999);
    let cvc = cvc.and_then(|c| params.check("cvc", Cvc::new(&c)));
    params.secret("number");
    params.secret("cvc");
    let number = required(params, replaceable, "number", number);
    let exp_month = required(params, replaceable, "exp_month", exp_month);
    let exp_year = required(params, replaceable, "exp_year", exp_year);
    let cvc = required(params, replaceable, "cvc", cvc);
    Some(CardInput { number: number?, exp_month: exp_month?, exp_year: exp_year?, cvc: cvc? })
}

/// A card's `exp_month` (1 to 12) and `exp_year` (four digits, or two for 20YY), checked and not yet
/// required.
fn expiry(params: &mut Params) -> (Option<u32>, Option<u32>) {
    let exp_month = params.integer("exp_month");
    params.bounds("exp_month", 1, 12);
    let exp_month = exp_month.and_then(|month| {
        let valid = u32::try_from(month).ok().filter(|m| (1..=12).contains(m));
        params.check("exp_month", valid.ok_or_else(|| Invalid::value("The expiry month must be 1 to 12.")))
    });
    let exp_year = params.integer_in_ranges("exp_year", &[(0, 99), (2000, 2100)]).and_then(|year| {
        let year = if (0..100).contains(&year) { year + 2000 } else { year };
        let valid = u32::try_from(year).ok().filter(|y| (2000..=2100).contains(y));
        params.check("exp_year", valid.ok_or_else(|| Invalid::value("The expiry year must be a four-digit year.")))
    });
    (exp_month, exp_year)
}
