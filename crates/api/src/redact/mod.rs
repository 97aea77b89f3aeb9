//! Redaction of what must never be kept or shown: card numbers and CVCs, secret API keys, webhook
//! secrets, client secrets and hosted pages' secret links.
//!
//! It decides on values as the API reads them, never on the raw text: a body is taken apart as the
//! JSON or form the API would parse, a query string and a path into their percent-decoded parts, and
//! each key and value is judged whatever its escaping. A body the API could not read is not kept at
//! all, only a note of its size. Ids the service minted are never taken for card numbers.

pub(crate) mod card_numbers;
mod names;
mod secrets;

pub use card_numbers::{card_numbers_masked, shortened, without_card_numbers};
pub use names::{declare_secret_parameters, name_holds_a_secret};
pub use secrets::{without_capabilities, without_client_secrets, without_secret_keys};

use crate::decode::form;
use crate::decode::format::BodyFormat;
use card_numbers::{digit_of, masked, number_may_be_a_card_number, CARD_NUMBER_DIGITS, CARD_NUMBER_REMOVED};
use names::{is_card_data_field, secrecy, Secrecy};
use secrets::CLIENT_SECRET_MARK;
use serde_json::Value;
use std::borrow::Cow;

/// What stands for a value that is not kept.
pub const REDACTED: &str = "[redacted]";
/// What stands in a fingerprint for a body or a query the API could not read.
const UNREAD: &str = "[unread]";

/// The fields of a request's `card` that are no secret: every other field sent in one is taken for
/// card data, whatever its name.
const CARD_FIELDS_KEPT: [&str; 2] = ["exp_month", "exp_year"];

/// What a body is taken apart for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// A request kept in the request log: a request's `card` holds card data.
    RequestLog,
    /// An answer kept in the request log: an answer's `card` (brand, last four digits) does not.
    AnswerLog,
    /// A request as its idempotency record's digest reads it: card data reduced to what the service
    /// keeps of a card anyway (its first six and last four digits and its expiry), everything else
    /// as sent, so that a retry with another request, or another card, is still told apart.
    Fingerprint,
}

/// A request body as it may be kept, as JSON: the parameters the API read from it (`format`, or
/// `None` for a type it does not read) with every secret taken out, or, for a body the API could not
/// read, a note of its size.
#[must_use]
pub fn request_body_as_kept(body: &[u8], format: Option<BodyFormat>) -> String {
    redacted_parameters(parsed_body(body, format), Purpose::RequestLog).unwrap_or_else(|| {
        let what = match format {
            Some(BodyFormat::Json) => "not valid JSON",
            Some(BodyFormat::Form) => "not a valid form",
            None => "neither JSON nor a form",
        };
        Value::String(format!("[not kept: {} bytes, {what}]", body.len())).to_string()
    })
}

/// An answer's body as it may be kept: its JSON with every secret taken out (or, were it no JSON,
/// its text scrubbed).
#[must_use]
pub fn response_body_as_kept(body: &[u8]) -> String {
    redacted_parameters(serde_json::from_slice::<Value>(body).ok(), Purpose::AnswerLog)
        .unwrap_or_else(|| scrubbed(&String::from_utf8_lossy(body)).into_owned())
}

/// A request's body as its idempotency record's digest reads it: the parameters the API read from
/// it with card data reduced to what the service keeps of a card anyway (a card number to its first
/// six and last four digits, a verification code to nothing), everything else as sent. A body the
/// API could not read is [`UNREAD`]: it is refused, so its key never replays it.
#[must_use]
pub fn request_body_as_fingerprinted(body: &[u8], format: Option<BodyFormat>) -> String {
    redacted_parameters(parsed_body(body, format), Purpose::Fingerprint).unwrap_or_else(|| UNREAD.to_owned())
}

/// A query string as its idempotency record's digest reads it: its parameters as the API reads
/// them, card data reduced as in [`request_body_as_fingerprinted`].
#[must_use]
pub fn query_as_fingerprinted(query: &str) -> String {
    let parameters = form::parse_query(query.as_bytes()).ok().map(Value::Object);
    redacted_parameters(parameters, Purpose::Fingerprint).unwrap_or_else(|| UNREAD.to_owned())
}

/// `body` as the API parses it in `format` (`None`: a type it does not read, or a body it refuses).
fn parsed_body(body: &[u8], format: Option<BodyFormat>) -> Option<Value> {
    match format {
        Some(BodyFormat::Json) => serde_json::from_slice::<Value>(body).ok(),
        Some(BodyFormat::Form) => form::parse(body).ok().map(Value::Object),
        None => None,
    }
}

/// Parsed parameters with what `purpose` does not keep taken out, as JSON text.
fn redacted_parameters(parsed: Option<Value>, purpose: Purpose) -> Option<String> {
    let mut value = parsed?;
    redact_value(&mut value, purpose);
    Some(value.to_string())
}

/// A path, or a text of a parameter, as its idempotency record's digest reads it: card numbers
/// (sent where an id goes by mistake) reduced to their first six and last four digits, judged by
/// what the text says once decoded (a percent-escape's digits are no card's); a text without one as
/// sent.
#[must_use]
pub fn path_as_fingerprinted(path: &str) -> Cow<'_, str> {
    let decoded = fully_decoded(path);
    match card_numbers_masked(&decoded) {
        Cow::Borrowed(_) => Cow::Borrowed(path),
        Cow::Owned(masked) => Cow::Owned(masked),
    }
}

/// A query string as it may be kept: each parameter judged by its decoded name and value, kept as
/// it came when nothing in it is secret.
#[must_use]
pub fn query_as_kept(query: &str) -> String {
    let pairs = query.split('&').map(|pair| {
        let (name, value) = form_urlencoded::parse(pair.as_bytes()).next().unwrap_or_default();
        let (name, value) = (fully_decoded(&name).into_owned(), fully_decoded(&value).into_owned());
        let raw_name = pair.split_once('=').map_or(pair, |(raw_name, _)| raw_name);
        match secrecy(&name) {
            Secrecy::Value => {
                let kept = secret_value_as_kept(&name, &Value::String(value), Purpose::RequestLog);
                let name = match scrubbed(&name) {
                    Cow::Borrowed(_) => raw_name.to_owned(),
                    Cow::Owned(cleaned) => form_urlencoded::byte_serialize(cleaned.as_bytes()).collect(),
                };
                format!("{name}={}", kept.as_str().unwrap_or(REDACTED))
            }
            Secrecy::NameAndValue => format!("{REDACTED}={REDACTED}"),
            Secrecy::None => match (scrubbed(&name), scrubbed(&value)) {
                (Cow::Borrowed(_), Cow::Borrowed(_)) => pair.to_owned(),
                (name, value) => form_urlencoded::Serializer::new(String::new()).append_pair(&name, &value).finish(),
            },
        }
    });
    pairs.collect::<Vec<_>>().join("&")
}

/// A request's path as it may be kept or logged: a hosted page's secret link cut, and the rest
/// judged by its decoded text (kept as it came when nothing in it is secret).
#[must_use]
pub fn path_as_kept(path: &str) -> String {
    let path = without_capabilities(path);
    let decoded = fully_decoded(&path);
    match scrubbed(&decoded) {
        Cow::Borrowed(_) => path.into_owned(),
        Cow::Owned(cleaned) => cleaned,
    }
}

/// Rounds of percent-decoding, at most: more than any client encodes a text by mistake.
const DECODING_ROUNDS: usize = 8;

/// `text` percent-decoded until it no longer changes ([`DECODING_ROUNDS`] times at most): what was
/// encoded twice is judged by what it says.
fn fully_decoded(text: &str) -> Cow<'_, str> {
    let mut decoded = Cow::Borrowed(text);
    for _ in 0..DECODING_ROUNDS {
        let again = percent_encoding::percent_decode_str(&decoded).decode_utf8_lossy().into_owned();
        if again == decoded {
            break;
        }
        decoded = Cow::Owned(again);
    }
    decoded
}

/// `text` with secret keys, webhook secrets, client secrets and card numbers taken out (in that
/// order: a secret's random part is cut whole before its digits are looked at).
#[must_use]
pub fn scrubbed(text: &str) -> Cow<'_, str> {
    let keys = without_secret_keys(text);
    let client_secrets = then(keys, without_client_secrets);
    then(client_secrets, without_card_numbers)
}

/// `text` after `step`, allocating only when a step changed it.
fn then<'a>(text: Cow<'a, str>, step: impl for<'b> Fn(&'b str) -> Cow<'b, str>) -> Cow<'a, str> {
    let changed = match step(&text) {
        Cow::Owned(changed) => Some(changed),
        Cow::Borrowed(_) => None,
    };
    changed.map_or(text, Cow::Owned)
}

/// `value` with secrets taken out at any depth, as `purpose` needs: the values of secret fields
/// (and, in a request, every field of a `card` but its expiry), and card numbers, keys and client
/// secrets in every other key and string. A fingerprint keeps the secrets that are no card data
/// (random, they tell two requests apart and cannot be guessed back) and reduces card data to what
/// the service keeps of a card anyway.
fn redact_value(value: &mut Value, purpose: Purpose) {
    match value {
        Value::Object(map) => {
            let mut hidden = 0;
            *map = std::mem::take(map)
                .into_iter()
                .map(|(name, mut field)| match secrecy(&name) {
                    Secrecy::None if purpose != Purpose::AnswerLog && name.eq_ignore_ascii_case("card") => {
                        card_as_kept(&mut field, purpose);
                        (name, field)
                    }
                    Secrecy::None => {
                        redact_value(&mut field, purpose);
                        (text_as_kept(&name, purpose).into_owned(), field)
                    }
                    Secrecy::Value if field.is_null() => (name, field),
                    Secrecy::Value => {
                        let kept = secret_value_as_kept(&name, &field, purpose);
                        (text_as_kept(&name, purpose).into_owned(), kept)
                    }
                    Secrecy::NameAndValue => {
                        hidden += 1;
                        (format!("[redacted field {hidden}]"), Value::String(REDACTED.to_owned()))
                    }
                })
                .collect();
        }
        Value::Array(items) => items.iter_mut().for_each(|item| redact_value(item, purpose)),
        Value::String(text) => {
            if let Cow::Owned(cleaned) = text_as_kept(text, purpose) {
                *text = cleaned;
            }
        }
        Value::Number(number) => {
            if number_may_be_a_card_number(number) {
                *value = match purpose {
                    Purpose::Fingerprint => card_data_as_fingerprinted(value),
                    Purpose::RequestLog | Purpose::AnswerLog => Value::String(CARD_NUMBER_REMOVED.to_owned()),
                };
            }
        }
        Value::Bool(_) | Value::Null => {}
    }
}

/// A text (a key or a string) as `purpose` keeps it.
fn text_as_kept(text: &str, purpose: Purpose) -> Cow<'_, str> {
    match purpose {
        Purpose::RequestLog | Purpose::AnswerLog => scrubbed(text),
        Purpose::Fingerprint => path_as_fingerprinted(text),
    }
}

/// A request's card as `purpose` keeps it: its expiry, and every other field redacted (a card sent
/// in another shape than an object is redacted whole).
fn card_as_kept(card: &mut Value, purpose: Purpose) {
    let redacted = |field: &Value| match purpose {
        Purpose::Fingerprint => card_data_as_fingerprinted(field),
        Purpose::RequestLog | Purpose::AnswerLog => Value::String(REDACTED.to_owned()),
    };
    match card {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                let kept = CARD_FIELDS_KEPT.iter().any(|kept| kept.eq_ignore_ascii_case(name));
                if kept {
                    redact_value(field, purpose);
                } else if !field.is_null() {
                    *field = redacted(field);
                }
            }
        }
        Value::Null => {}
        other => *other = redacted(other),
    }
}

/// What stands for the value of the secret field `name`: in the request log, a client secret's id
/// with its random part taken out (`pi_…_secret_[redacted]`), anything else [`REDACTED`]; in a
/// fingerprint, card data reduced and any other secret as sent.
fn secret_value_as_kept(name: &str, value: &Value, purpose: Purpose) -> Value {
    if purpose == Purpose::Fingerprint {
        return if is_card_data_field(name) { card_data_as_fingerprinted(value) } else { value.clone() };
    }
    let object = value.as_str().and_then(|secret| secret.split_once(CLIENT_SECRET_MARK)).map(|(object, _)| object);
    Value::String(match object.filter(|object| payments_domain::ids::is_object_id(object)) {
        Some(object) => format!("{object}{CLIENT_SECRET_MARK}{REDACTED}"),
        None => REDACTED.to_owned(),
    })
}

/// Card data as a fingerprint keeps it: a number of [`CARD_NUMBER_DIGITS`] digits or more as its
/// first six and last four, anything else (a verification code, a number cut short) as nothing.
fn card_data_as_fingerprinted(value: &Value) -> Value {
    let text = match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let digits: String = text.chars().filter_map(digit_of).collect();
    Value::String(if digits.len() >= CARD_NUMBER_DIGITS { masked(&digits) } else { REDACTED.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use payments_domain::ids::RANDOM_PART_LENGTH;
    use proptest::prelude::*;

    #[test]
    fn secret_keys_lose_their_body_and_public_keys_stay() {
        assert_eq!(
            without_secret_keys("/payments/sk_test_AbC123/x?k=sk_live_Z9"),
            "/payments/sk_test_[redacted]/x?k=sk_live_[redacted]"
        );
        assert_eq!(without_secret_keys("/customers/pk_test_AbC"), "/customers/pk_test_AbC");
        assert_eq!(without_secret_keys("sk_live_"), "sk_live_[redacted]");
        assert_eq!(without_secret_keys("/customers/cus_1"), "/customers/cus_1");
    }

    #[test]
    fn client_secrets_are_taken_out_whole_before_their_digits_are_looked_at() {
        assert_eq!(
            without_client_secrets("?client_secret=pi_1_secret_AbC9&x=cs_2_secret_Z"),
            "?client_secret=pi_1_secret_[redacted]&x=cs_2_secret_[redacted]"
        );
        assert_eq!(without_client_secrets("no_secret_ here"), "no_secret_ here");
        assert_eq!(scrubbed("pi_1_secret_ab4242424242424242cd"), "pi_1_secret_[redacted]");
    }

    #[test]
    fn secret_fields_are_redacted_at_any_depth_and_in_the_order_they_came() {
        let body = br#"{"payment_method":{"card":{"number":"4242 4242","cvc":"123","exp_month":12}},"secret_key":"whsk_A1","items":[{"client_secret":"x"}],"cvc":null}"#;
        assert_eq!(
            request_body_as_kept(body, Some(BodyFormat::Json)),
            r#"{"payment_method":{"card":{"number":"[redacted]","cvc":"[redacted]","exp_month":12}},"secret_key":"[redacted]","items":[{"client_secret":"[redacted]"}],"cvc":null}"#
        );
    }

    #[test]
    fn every_client_secret_field_is_redacted_whatever_its_value() {
        let form = b"save_payment_method=true&customer_session_client_secret=anything-at-all&client_secret=x";
        assert_eq!(
            request_body_as_kept(form, Some(BodyFormat::Form)),
            r#"{"save_payment_method":"true","customer_session_client_secret":"[redacted]","client_secret":"[redacted]"}"#
        );
    }

    #[test]
    fn escaped_names_are_judged_as_the_api_reads_them() {
        let body = br#"{"payment_method": {"type": "card", "card": {"\u006eumber": "424242424242\u0034242", "exp_month": 12, "exp_year": 2030, "\u0063vc": "987"}}}"#;
        let kept = request_body_as_kept(body, Some(BodyFormat::Json));
        assert_eq!(
            kept,
            r#"{"payment_method":{"type":"card","card":{"number":"[redacted]","exp_month":12,"exp_year":2030,"cvc":"[redacted]"}}}"#
        );
        let form = b"payment_method[card][%6Eumber]=4242424242424242&payment_method%5Bcard%5D%5Bcvc%5D=987";
        assert_eq!(
            request_body_as_kept(form, Some(BodyFormat::Form)),
            r#"{"payment_method":{"card":{"number":"[redacted]","cvc":"[redacted]"}}}"#
        );
    }

    #[test]
    fn a_body_the_api_could_not_read_is_not_kept() {
        for (body, format, what) in [
            (&b"a[b]=1&a=2&payment_method[card][cvc]=987"[..], Some(BodyFormat::Form), "not a valid form"),
            (&br#"{"\u0063vc": "987""#[..], Some(BodyFormat::Json), "not valid JSON"),
            (&b"cvc=987"[..], None, "neither JSON nor a form"),
        ] {
            let kept = request_body_as_kept(body, format);
            assert_eq!(kept, format!("\"[not kept: {} bytes, {what}]\"", body.len()));
        }
    }

    #[test]
    fn names_that_hold_a_secret_field_among_other_text_are_hidden_with_their_value() {
        // `card number` is the field `card_number` spelled with a space: its value goes. A name that
        // holds a value among other text goes with it, and one that holds a card number loses it.
        let body = br#"{"metadata":{"card number":"x","{\"cvc\":\"987\"}":"y","order":"A-1","4242424242424242 card_number":"z"}}"#;
        assert_eq!(
            request_body_as_kept(body, Some(BodyFormat::Json)),
            r#"{"metadata":{"card number":"[redacted]","[redacted field 1]":"[redacted]","order":"A-1","[card number removed] card_number":"[redacted]"}}"#
        );
    }

    #[test]
    fn a_cards_fields_but_its_expiry_and_every_name_of_a_verification_code_are_secret() {
        let body = br#"{"payment_method":{"card":{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvv2":"987","security_code":"986","pin":"1234"}},"metadata":{"card_cvc":"985","cardCvc":"984","cvc2":"983","security_code":"982","phone_number":"0917","billing_statement_number":"A-1"}}"#;
        assert_eq!(
            request_body_as_kept(body, Some(BodyFormat::Json)),
            r#"{"payment_method":{"card":{"number":"[redacted]","exp_month":12,"exp_year":2030,"cvv2":"[redacted]","security_code":"[redacted]","pin":"[redacted]"}},"metadata":{"card_cvc":"[redacted]","cardCvc":"[redacted]","cvc2":"[redacted]","security_code":"[redacted]","phone_number":"0917","billing_statement_number":"A-1"}}"#
        );
        // An answer's card is what the service shows of it.
        let answer = br#"{"card":{"brand":"visa","last4":"4242","exp_month":12}}"#;
        assert_eq!(response_body_as_kept(answer), r#"{"card":{"brand":"visa","last4":"4242","exp_month":12}}"#);
        assert!(name_holds_a_secret("payment_method[card][number]=4242&payment_method[card][cvc]=987"));
        assert!(!name_holds_a_secret("payment_method[card][cvc]"));
        assert!(!name_holds_a_secret("colour"));
    }

    #[test]
    fn decimals_of_many_digits_are_removed() {
        for number in [
            "4242.424242424242",
            "0.4242424242424242",
            "-4242.424242424242",
            "4.242424242424242e-5",
            "4242424242424242.0",
        ] {
            let kept = request_body_as_kept(format!(r#"{{"x":{number}}}"#).as_bytes(), Some(BodyFormat::Json));
            assert_eq!(kept, r#"{"x":"[card number removed]"}"#, "{number}");
        }
        let kept = request_body_as_kept(br#"{"x":1500.5,"y":0.25}"#, Some(BodyFormat::Json));
        assert_eq!(kept, r#"{"x":1500.5,"y":0.25}"#);
    }

    #[test]
    fn queries_keep_what_is_not_secret_as_it_came() {
        assert_eq!(query_as_kept("limit=10&after=cus_1"), "limit=10&after=cus_1");
        assert_eq!(query_as_kept("card%5Bcvc%5D=987&limit=2"), "card%5Bcvc%5D=[redacted]&limit=2");
        assert_eq!(query_as_kept("cvc=987"), "cvc=[redacted]");
        assert_eq!(query_as_kept("q=4242.4242.4242.4242"), "q=%5Bcard+number+removed%5D");
        assert_eq!(query_as_kept(""), "");
    }

    #[test]
    fn paths_are_judged_by_their_decoded_text() {
        assert_eq!(path_as_kept("/customers/4242%2E4242%2E4242%2E4242/x"), "/customers/[card number removed]/x");
        assert_eq!(path_as_kept("/customers/4242/4242/4242/4242"), "/customers/[card number removed]");
        assert_eq!(path_as_kept("/customers/4242%252E4242%252E4242%252E4242"), "/customers/[card number removed]");
        assert_eq!(path_as_kept("/customers/cus_1%20x"), "/customers/cus_1%20x");
        assert_eq!(path_as_kept("/b/bstm_1_secret_2"), "/b/[redacted]");
        assert_eq!(path_as_kept("/test/authorize/token/x"), "/test/authorize/[redacted]/x");
        assert_eq!(path_as_kept("/customers/sk_test_abc"), "/customers/sk_test_[redacted]");
        assert_eq!(path_as_kept("/billing_statements/bstm_1"), "/billing_statements/bstm_1");
    }

    #[test]
    fn card_numbers_are_never_echoed() {
        for (text, expected) in [
            ("No payment method pm_4242424242424242 exists.", "No payment method pm_[card number removed] exists."),
            ("id 4242 4242 4242 4242.", "id [card number removed]."),
            ("4242-4242-4242-4242", "[card number removed]"),
            ("4242.4242.4242.4242", "[card number removed]"),
            ("4242_4242_4242_4242", "[card number removed]"),
            ("4242\u{a0}4242\u{a0}4242\u{a0}4242", "[card number removed]"),
            ("/customers/4242%204242%204242%204242/x", "/customers/[card number removed]/x"),
            ("4242+4242+4242+4242", "[card number removed]"),
            ("amount 12345678901 and 2026", "amount 12345678901 and 2026"),
            ("a 1 2 3 b", "a 1 2 3 b"),
            ("trailing 12 ", "trailing 12 "),
            ("5425233430109903 and 4000000000003220", "[card number removed] and [card number removed]"),
            ("4242424242424242 4242424242424242", "[card number removed]"),
            ("4242424242424242424242424242", "[card number removed]"),
            ("4242\u{202f}4242\u{202f}4242\u{202f}4242", "[card number removed]"),
            ("4242\u{2007}4242\u{2007}4242\u{2007}4242", "[card number removed]"),
            ("4242\u{2013}4242\u{2013}4242\u{2013}4242", "[card number removed]"),
            ("4242\u{200b}4242\u{200b}4242\u{200b}4242", "[card number removed]"),
            ("4242  4242 - 4242\r\n4242", "[card number removed]"),
            ("4242,4242,4242,4242", "[card number removed]"),
            ("\u{ff14}\u{ff12}\u{ff14}\u{ff12}424242424242", "[card number removed]"),
            ("call +63 917 555 1006", "call +63 917 555 1006"),
            ("ORD-000000000000", "ORD-000000000000"),
            ("4242    4242424242424", "4242    4242424242424"),
        ] {
            assert_eq!(without_card_numbers(text), expected);
        }
    }

    #[test]
    fn card_numbers_are_found_across_any_separators_and_in_any_scripts_digits() {
        for text in [
            "4242|4242|4242|4242",
            "4242*4242*4242*4242",
            "4242\u{b7}4242\u{b7}4242\u{b7}4242",
            "4242)(4242)(4242)(4242",
            "\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}",
            "\u{6f4}\u{6f2}\u{6f4}\u{6f2} \u{6f4}\u{6f2}\u{6f4}\u{6f2} \u{6f4}\u{6f2}\u{6f4}\u{6f2} \u{6f4}\u{6f2}\u{6f4}\u{6f2}",
            "\u{96a}\u{968}\u{96a}\u{968}424242424242",
            "\u{1d7d2}\u{1d7d0}\u{1d7d2}\u{1d7d0}424242424242",
        ] {
            assert_eq!(without_card_numbers(text), "[card number removed]", "{text}");
        }
        assert_eq!(without_card_numbers("(4242) [4242] {4242} <4242>"), "([card number removed]>");
        // Digits written before or after one, in groups of their own, or through invisible characters.
        for (text, expected) in [
            ("4000056655665556-1", "[card number removed]"),
            ("4000056655665556/12", "[card number removed]"),
            ("1) 4000 0566 5566 5556", "[card number removed]"),
            ("note 4000 0566 5566 5556 918", "note [card number removed]"),
            ("4000 -- 0566 -- 5566 -- 5556", "[card number removed]"),
            ("4000\u{200b}\u{2060}\u{200b}\u{2060}0566\u{feff}5566\u{200b}5556", "[card number removed]"),
            ("ref+4000056655665556", "ref+[card number removed]"),
        ] {
            assert_eq!(without_card_numbers(text), expected, "{text}");
        }
        // Long runs of invisible characters, and letters that show nothing, between groups.
        for text in [
            format!("4000{}0566{}5566{}5556", "\u{200b}".repeat(12), "\u{e0020}".repeat(9), "\u{200b}".repeat(40)),
            "4000-----\u{200b}0566-----\u{200b}5566-----\u{200b}5556".to_owned(),
            "4000\u{3164}0566\u{115f}5566\u{ffa0}5556".to_owned(),
        ] {
            assert_eq!(without_card_numbers(&text), "[card number removed]", "{text:?}");
        }
        // Times are no card numbers, nor are groups that make none.
        for time in ["2026-11-29 01:25:27.123456", "2026-11-29 01:25:27.123456 +0800"] {
            assert_eq!(without_card_numbers(time), time);
        }
        assert_eq!(without_card_numbers("4242+4242+4242+4242"), "[card number removed]");
        assert_eq!(without_card_numbers("4000056655665557-1"), "4000056655665557-1");
        // Letters still end a run, and a Luhn failure is no card's (nor is any stretch of its
        // groups: `4242|4242|4242` alone would pass, as a 12-digit card number may).
        assert_eq!(without_card_numbers("4242a4242b4242c4242"), "4242a4242b4242c4242");
        assert_eq!(without_card_numbers("1242|4242|4242|4243"), "1242|4242|4242|4243");
        assert_eq!(without_card_numbers("4242|4242|4242|4243"), "[card number removed]");
        // The masked form keeps what the service keeps of a card anyway.
        assert_eq!(card_numbers_masked("key 4242-4242-4242-4242 end"), "key 424242…4242 end");
        assert_eq!(card_numbers_masked("order-2026-11-28"), "order-2026-11-28");
    }

    #[test]
    fn names_are_judged_once_decoded_and_in_any_spelling() {
        let form = b"payment_method%255Bcard%255D%255Bcvc%255D=987&securityCode=986&cardSecurityCode=985&card-number=4242424242424242&CVV2=984&phone_number=0917";
        assert_eq!(
            request_body_as_kept(form, Some(BodyFormat::Form)),
            r#"{"payment_method%5Bcard%5D%5Bcvc%5D":"[redacted]","securityCode":"[redacted]","cardSecurityCode":"[redacted]","card-number":"[redacted]","CVV2":"[redacted]","phone_number":"0917"}"#
        );
        assert_eq!(query_as_kept("securityCode=987&limit=2"), "securityCode=[redacted]&limit=2");
        // Acronyms and names written run together.
        for name in [
            "CVVCode",
            "CVCNumber",
            "CardCVVCode",
            "cardcvc",
            "CARDCVC",
            "securitycode",
            "cardverificationvalue",
            "card_securitycode",
        ] {
            assert_eq!(query_as_kept(&format!("{name}=800")), format!("{name}=[redacted]"), "{name}");
        }
        assert_eq!(query_as_kept("incident_id=800&accident=1"), "incident_id=800&accident=1");
        // A secret's name is scrubbed as any other text is.
        assert_eq!(query_as_kept("cvc_4242424242424242=1"), "cvc_%5Bcard+number+removed%5D=[redacted]");
        assert_eq!(query_as_kept("4242424242424242%5Bcvc%5D=1"), "%5Bcard+number+removed%5D%5Bcvc%5D=[redacted]");
    }

    #[test]
    fn a_fingerprint_keeps_what_tells_requests_apart_and_no_card_data() {
        let attach = |number: &str, cvc: &str| {
            let body = format!(
                "payment_method[type]=card&payment_method[card][number]={number}&payment_method[card][exp_month]=12\
                 &payment_method[card][exp_year]=2030&payment_method[card][cvc]={cvc}&client_secret=pi_1_secret_AbC"
            );
            request_body_as_fingerprinted(body.as_bytes(), Some(BodyFormat::Form))
        };
        assert_eq!(
            attach("4242424242424242", "987"),
            r#"{"payment_method":{"type":"card","card":{"number":"424242…4242","exp_month":"12","exp_year":"2030","cvc":"[redacted]"}},"client_secret":"pi_1_secret_AbC"}"#
        );
        assert_eq!(attach("4242424242424242", "123"), attach("4242424242424242", "987"), "the code is left out");
        assert_eq!(attach("4242421111114242", "123"), attach("4242424242424242", "987"), "so are the middle digits");
        assert_ne!(attach("5425233430109903", "987"), attach("4242424242424242", "987"), "another card differs");
        let json = br#"{"metadata":{"note":"card 4242 4242 4242 4242"},"securityCode":"987","amount":10000}"#;
        assert_eq!(
            request_body_as_fingerprinted(json, Some(BodyFormat::Json)),
            r#"{"metadata":{"note":"card 424242…4242"},"securityCode":"[redacted]","amount":10000}"#
        );
        assert_eq!(request_body_as_fingerprinted(b"{\"cvc\": \"987\"", Some(BodyFormat::Json)), "[unread]");
        assert_eq!(query_as_fingerprinted("cvc=987&limit=2"), r#"{"cvc":"[redacted]","limit":"2"}"#);
        assert_eq!(path_as_fingerprinted("/customers/4242424242424242"), "/customers/424242…4242");
    }

    #[test]
    fn ids_the_service_minted_are_never_taken_for_card_numbers() {
        // A random part whose digits pass the Luhn check, as one id in a few hundred has.
        let id = "cus_mk17957955194242424242424242xyzw";
        assert_eq!(id.len(), "cus_".len() + RANDOM_PART_LENGTH);
        assert!(payments_domain::ids::is_minted_id(id));
        for text in [
            id.to_owned(),
            format!("/customers/{id}"),
            format!("No object with id {id} to page from."),
            format!("{id}_secret_[redacted]"),
        ] {
            assert_eq!(without_card_numbers(&text), text);
        }
        // The same digits after a prefix the service does not mint, or in a part of another length.
        assert_eq!(without_card_numbers("xyz_mk17957955194242424242424242xyzw"), "xyz_mk[card number removed]xyzw");
        assert_eq!(without_card_numbers("cus_mk4242424242424242"), "cus_mk[card number removed]");
    }

    #[test]
    fn a_text_is_cleaned_before_it_is_cut() {
        let id = format!("{}4000056655665556", "x".repeat(114));
        let shown = shortened(&id, 128);
        assert!(shown.starts_with(&"x".repeat(114)) && !shown.contains("40000566"), "{shown}");
        assert_eq!(shortened("cus_1", 128), "cus_1");
        assert_eq!(shortened("abcdef", 3), "abc…");
    }

    #[test]
    fn the_services_own_limits_are_never_taken_for_card_numbers() {
        for limit in
            [999_999_999_999_i64, 5_999_999_999, 253_402_300_799, i64::MAX, i64::from(i32::MAX), i64::from(u32::MAX)]
        {
            let message = format!("The parameter must be at most {limit}.");
            assert_eq!(without_card_numbers(&message), message);
        }
    }

    #[test]
    fn numbers_that_may_be_card_numbers_are_removed() {
        let kept = request_body_as_kept(
            br#"{"amount":4242424242424242,"x":4242424242424242.0,"y":10000}"#,
            Some(BodyFormat::Json),
        );
        assert_eq!(kept, r#"{"amount":"[card number removed]","x":"[card number removed]","y":10000}"#);
    }

    /// The test cards of every brand the service knows.
    const CARDS: [&str; 5] =
        ["4242424242424242", "5425233430109903", "4000000000003220", "378282246310005", "3530111333300000"];

    /// The zeros of the scripts a card number is written in here: ASCII, Arabic-Indic, Extended
    /// Arabic-Indic, Devanagari, full-width and mathematical bold digits.
    const ZEROS: [char; 6] = ['0', '\u{660}', '\u{6f0}', '\u{966}', '\u{ff10}', '\u{1d7ce}'];

    /// `digits` written as a person or a program may: in the digits of the script whose zero is
    /// `zero`, together or in groups of four with one separator.
    fn written(digits: &str, zero: char, separator: Option<&str>) -> String {
        let in_script = |digit: u8| char::from_u32(u32::from(zero) + u32::from(digit - b'0')).unwrap_or(zero);
        let groups: Vec<String> =
            digits.as_bytes().chunks(4).map(|group| group.iter().copied().map(in_script).collect()).collect();
        groups.join(separator.unwrap_or_default())
    }

    /// `text` with the digits of every script in [`ZEROS`] written in ASCII.
    fn in_ascii(text: &str) -> String {
        text.chars()
            .map(|c| {
                ZEROS
                    .iter()
                    .find_map(|zero| u32::from(c).checked_sub(u32::from(*zero)).filter(|digit| *digit < 10))
                    .and_then(|digit| char::from_digit(digit, 10))
                    .unwrap_or(c)
            })
            .collect()
    }

    /// `text` as a JSON string's content, each character escaped as `\uXXXX` where `escape` says.
    fn json_escaped(text: &str, escape: &[bool]) -> String {
        text.chars()
            .enumerate()
            .map(|(at, c)| {
                if escape.get(at % escape.len().max(1)).copied().unwrap_or(false) {
                    format!("\\u{:04x}", u32::from(c))
                } else {
                    c.to_string()
                }
            })
            .collect()
    }

    /// `text` percent-encoded where `escape` says (and where a form needs it).
    fn percent_escaped(text: &str, escape: &[bool]) -> String {
        text.chars()
            .enumerate()
            .map(|(at, c)| {
                let must = matches!(c, '&' | '=' | '+' | '%' | '#') || !c.is_ascii_graphic();
                if must || escape.get(at % escape.len().max(1)).copied().unwrap_or(false) {
                    c.to_string().bytes().map(|b| format!("%{b:02X}")).collect()
                } else {
                    c.to_string()
                }
            })
            .collect()
    }

    /// Every text a stored value holds: itself, percent-decoded, and each string and key of it read
    /// as JSON.
    fn texts_of(stored: &str) -> Vec<String> {
        fn collect(value: &Value, into: &mut Vec<String>) {
            match value {
                Value::String(text) => into.push(text.clone()),
                Value::Array(items) => items.iter().for_each(|item| collect(item, into)),
                Value::Object(map) => map.iter().for_each(|(key, item)| {
                    into.push(key.clone());
                    collect(item, into);
                }),
                other => into.push(other.to_string()),
            }
        }
        let mut texts = vec![stored.to_owned()];
        texts.push(percent_encoding::percent_decode_str(&stored.replace('+', " ")).decode_utf8_lossy().into_owned());
        if let Ok(value) = serde_json::from_str::<Value>(stored) {
            collect(&value, &mut texts);
        }
        texts
    }

    /// Whether a stored text still holds the card number (whatever separates its digits) or the
    /// CVC (as a number of its own).
    fn leaks(stored: &str, number: &str, cvc: &str) -> Option<String> {
        // A body not kept is a note of its size, whose digits are no card's.
        let is_a_note = |text: &str| {
            text.strip_prefix("[not kept: ").and_then(|rest| rest.split_once(" bytes, ")).is_some_and(
                |(size, reason)| {
                    size.bytes().all(|b| b.is_ascii_digit()) && !reason.contains(|c: char| c.is_ascii_digit())
                },
            )
        };
        let stored = serde_json::from_str::<String>(stored).ok().filter(|text| is_a_note(text)).map_or(stored, |_| "");
        // Judged as written and as fully decoded; the digits of a percent-escape (`%37`) are no
        // value's, so escapes are read, not counted.
        let without_escapes = |text: &str| {
            let mut decoded = text.to_owned();
            for _ in 0..8 {
                decoded = percent_encoding::percent_decode_str(&decoded).decode_utf8_lossy().into_owned();
            }
            decoded
        };
        texts_of(stored).into_iter().find(|text| {
            let decoded = without_escapes(text);
            let digits_only: String = in_ascii(&decoded).chars().filter(char::is_ascii_alphanumeric).collect();
            digits_only.contains(number) || decoded.split(|c: char| !c.is_ascii_digit()).any(|run| run == cvc)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Card data sent in every way the API reads it (JSON with escapes, a form or a query with
        /// percent-escapes, names encoded twice, a body it refused), in the card's fields or
        /// anywhere else, under any spelling of a verification code's name, with its digits in any
        /// script and any separators between them, is never kept: not in the request log, and not
        /// in what an idempotency record's digest reads.
        #[test]
        fn card_data_is_never_kept_however_it_is_written(
            card in 0..CARDS.len(),
            zero in prop::sample::select(ZEROS.to_vec()),
            separator in proptest::option::of(prop::sample::select(vec![" ", "-", ".", "_", "/", "\u{a0}", "|", "*", "\u{b7}", ")(", "~", " -- ", "\u{200b}\u{2060}\u{200b}\u{2060}\u{feff}-"])),
            // A code that is another field's value, or some of a card's digits (its first six and
            // last four are kept), could not be told from them.
            cvc in "[0-9]{3,4}".prop_filter("another field's value", |cvc| !["2030", "12", "123"].contains(&cvc.as_str()) && !cvc.starts_with("0") && !CARDS.iter().any(|card| card.contains(cvc.as_str()))),
            spelling in prop::sample::select(vec!["cvc", "securityCode", "cardSecurityCode", "card_cvc", "CVV2", "security-code", "Card Verification CVC", "cvn", "cardVerificationValue", "verification_code", "amex_cid", "c\u{200b}v\u{2060}c"]),
            escape in proptest::collection::vec(any::<bool>(), 1..7),
            twice in any::<bool>(),
            elsewhere in any::<bool>(),
        ) {
            let number = CARDS[card];
            let shown = written(number, zero, separator);
            let j = |text: &str| json_escaped(text, &escape);
            // A form's names are percent-encoded once as usual, or twice by a sloppy client.
            let name = |text: &str| if twice { percent_escaped(&percent_escaped(text, &[true]), &escape) } else { percent_escaped(text, &escape) };
            let f = |text: &str| percent_escaped(text, &escape);
            // The card where it belongs, the number again in a field of no meaning, and the code
            // again at the top level under another spelling of its name.
            let note = if elsewhere { format!("card {shown}") } else { "none".to_owned() };
            let json = format!(
                r#"{{"{}":{{"{}":"card","{}":{{"{}":"{}","{}":12,"{}":2030,"{}":"{}"}}}},"{}":{{"{}":"{}"}},"{}":"{}"}}"#,
                j("payment_method"), j("type"), j("card"), j("number"), j(&shown), j("exp_month"), j("exp_year"),
                j("cvc"), j(&cvc), j("metadata"), j("note"), j(&note), j(spelling), j(&cvc),
            );
            let form = format!(
                "{}=card&{}={}&{}=12&{}=2030&{}={}&{}={}&{}={}",
                name("payment_method[type]"), name("payment_method[card][number]"), f(&shown), name("payment_method[card][exp_month]"),
                name("payment_method[card][exp_year]"), name("payment_method[card][cvc]"), f(&cvc), name("metadata[note]"), f(&note),
                name(spelling), f(&cvc),
            );
            let mut stored = vec![
                request_body_as_kept(json.as_bytes(), Some(BodyFormat::Json)),
                request_body_as_kept(form.as_bytes(), Some(BodyFormat::Form)),
                query_as_kept(&form),
                // Refused: JSON sent as a form, a form sent as JSON, a type the API does not read,
                // JSON cut short, a form that starts like JSON.
                request_body_as_kept(json.as_bytes(), Some(BodyFormat::Form)),
                request_body_as_kept(form.as_bytes(), Some(BodyFormat::Json)),
                request_body_as_kept(form.as_bytes(), None),
                request_body_as_kept(&json.as_bytes()[..json.len() - 1], Some(BodyFormat::Json)),
                request_body_as_kept(format!("{{{form}").as_bytes(), Some(BodyFormat::Form)),
                path_as_kept(&format!("/customers/{}", f(&shown))),
                response_body_as_kept(format!(r#"{{"error":"No card {shown}","metadata":{{"cvc":"{cvc}"}}}}"#).as_bytes()),
                // What an idempotency record's digest reads.
                request_body_as_fingerprinted(json.as_bytes(), Some(BodyFormat::Json)),
                request_body_as_fingerprinted(form.as_bytes(), Some(BodyFormat::Form)),
                request_body_as_fingerprinted(form.as_bytes(), Some(BodyFormat::Json)),
                query_as_fingerprinted(&form),
                path_as_fingerprinted(&format!("/customers/{}", f(&shown))).into_owned(),
            ];
            if elsewhere {
                stored.push(scrubbed(&format!("key-{shown}")).into_owned());
                stored.push(card_numbers_masked(&format!("key-{shown}")).into_owned());
            }
            for kept in &stored {
                prop_assert!(leaks(kept, number, &cvc).is_none(), "kept {kept:?} from {json} / {form}");
            }
        }
    }
}
