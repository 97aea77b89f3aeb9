//! Redaction of what must never be echoed or logged: a run of digits that looks like a card number,
//! wherever a client put it (a wrong field, a parameter name, a URL path), a hosted page's secret
//! link, a secret API key or webhook secret a client put in a URL, a client secret, and the fields
//! of a body that hold them.

use serde_json::Value;

/// Digits in a run that is taken for a card number.
const CARD_NUMBER_DIGITS: usize = 12;

/// The prefixes of hosted pages whose next path segment is a capability (a client secret or a
/// single-use token): whoever holds the link may pay or authorize.
const CAPABILITY_PATHS: [&str; 3] = ["/c/", "/b/", "/test/authorize/"];

/// `path` with the capability segment of a hosted page's link replaced, so a log line never holds
/// a working link: `/b/bstm_…_secret_…` is `/b/[redacted]`.
#[must_use]
pub fn without_capabilities(path: &str) -> String {
    for prefix in CAPABILITY_PATHS {
        if let Some(rest) = path.strip_prefix(prefix) {
            let tail = rest.find('/').map_or("", |slash| &rest[slash..]);
            return format!("{prefix}[redacted]{tail}");
        }
    }
    path.to_owned()
}

/// The prefixes of secret API keys and of webhook secrets.
const SECRET_KEY_PREFIXES: [&str; 3] = ["sk_test_", "sk_live_", "whsk_"];

/// `text` with the body of every secret API key and webhook secret replaced (`sk_live_[redacted]`):
/// a client that put its key in a path by mistake does not leave it in the log.
#[must_use]
pub fn without_secret_keys(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((at, prefix)) =
        SECRET_KEY_PREFIXES.iter().filter_map(|prefix| Some((rest.find(prefix)?, *prefix))).min()
    {
        cleaned.push_str(&rest[..at + prefix.len()]);
        cleaned.push_str("[redacted]");
        let key = &rest[at + prefix.len()..];
        let end = key.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(key.len());
        rest = &key[end..];
    }
    cleaned.push_str(rest);
    cleaned
}

/// What separates an object's id from the random part of its client secret.
const CLIENT_SECRET_MARK: &str = "_secret_";

/// `text` with the random part of every client secret replaced (`pi_1_secret_[redacted]`).
#[must_use]
pub fn without_client_secrets(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(CLIENT_SECRET_MARK) {
        cleaned.push_str(&rest[..at + CLIENT_SECRET_MARK.len()]);
        let secret = &rest[at + CLIENT_SECRET_MARK.len()..];
        let end = secret.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(secret.len());
        if end > 0 {
            cleaned.push_str("[redacted]");
        }
        rest = &secret[end..];
    }
    cleaned.push_str(rest);
    cleaned
}

/// The fields of a body whose values are never kept, wherever they are: a card's number and CVC,
/// client secrets, webhook secrets, the console's form tokens.
const SECRET_FIELDS: [&str; 5] = ["number", "cvc", "client_secret", "secret_key", "form_token"];

/// `text` as it may be stored and shown: a JSON body with the values of [`SECRET_FIELDS`] replaced,
/// and any text with card numbers, keys and client secrets taken out wherever they are.
#[must_use]
pub fn loggable(text: &str) -> String {
    // Only a body that names a secret field is taken apart: the others are kept as they came.
    let names_one = SECRET_FIELDS.iter().any(|field| text.contains(&format!("\"{field}\"")));
    let cleaned = match serde_json::from_str::<Value>(text) {
        Ok(mut value) if names_one => {
            without_secret_fields(&mut value);
            value.to_string()
        }
        _ => text.to_owned(),
    };
    without_secrets(&cleaned)
}

/// `text` with card numbers, secret keys, webhook secrets and client secrets taken out.
#[must_use]
pub fn without_secrets(text: &str) -> String {
    without_secret_keys(&without_client_secrets(&without_card_numbers(text)))
}

/// `value` with the values of [`SECRET_FIELDS`] replaced at any depth.
pub fn without_secret_fields(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                if SECRET_FIELDS.contains(&key.as_str()) && !field.is_null() {
                    *field = Value::String("[redacted]".to_owned());
                } else {
                    without_secret_fields(field);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_secret_fields),
        _ => {}
    }
}

/// `text` with every run of digits that may be a card number (spaces, dashes or `%20` between them
/// allowed) replaced, so a card number sent in the wrong place is not echoed in an error or a log
/// line, while the service's own limits in its messages stay readable.
#[must_use]
pub fn without_card_numbers(text: &str) -> String {
    if !may_hold_a_card_number(text) {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut cleaned = String::with_capacity(text.len());
    let mut start = 0;
    while start < chars.len() {
        if !chars[start].is_ascii_digit() {
            cleaned.push(chars[start]);
            start += 1;
            continue;
        }
        // The run: digits, with single separators between them.
        let mut end = start;
        let mut digits = 0;
        let mut last_digit = start;
        while end < chars.len() {
            if chars[end].is_ascii_digit() {
                digits += 1;
                last_digit = end;
                end += 1;
                continue;
            }
            let separator = if chars[end..].starts_with(&['%', '2', '0']) {
                3
            } else if matches!(chars[end], ' ' | '-' | '+') {
                1
            } else {
                break;
            };
            if !chars.get(end + separator).is_some_and(char::is_ascii_digit) {
                break;
            }
            end += separator;
        }
        let run: Vec<u32> = chars[start..=last_digit].iter().filter_map(|c| c.to_digit(10)).collect();
        if digits >= CARD_NUMBER_DIGITS && looks_like_a_card_number(&run) {
            cleaned.push_str("[card number removed]");
        } else {
            cleaned.extend(&chars[start..=last_digit]);
        }
        start = last_digit + 1;
    }
    cleaned
}

/// Whether `text` has a run of at least [`CARD_NUMBER_DIGITS`] digits among the separators a card
/// number may be written with (`%20` counted generously): a quick look that spares the full scan to
/// the many texts without one.
fn may_hold_a_card_number(text: &str) -> bool {
    let mut digits = 0;
    for byte in text.bytes() {
        match byte {
            b'0'..=b'9' => {
                digits += 1;
                if digits >= CARD_NUMBER_DIGITS {
                    return true;
                }
            }
            b' ' | b'-' | b'+' | b'%' => {}
            _ => digits = 0,
        }
    }
    false
}

/// Card numbers have 12 to 19 digits and pass the Luhn check; the service's own limits that show in
/// its messages (amounts, sequence numbers, times) are at most 19 digits and fail it. A longer run
/// may hold several numbers written together, so it is taken for card numbers whatever it is.
fn looks_like_a_card_number(digits: &[u32]) -> bool {
    digits.len() > 19 || (CARD_NUMBER_DIGITS..=19).contains(&digits.len()) && passes_luhn(digits)
}

/// The Luhn check of card numbers: every second digit from the right doubled (less 9 above 9), the
/// sum a multiple of ten.
fn passes_luhn(digits: &[u32]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(position, &digit)| match (position % 2, digit * 2) {
            (0, _) => digit,
            (_, doubled) if doubled > 9 => doubled - 9,
            (_, doubled) => doubled,
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn client_secrets_and_secret_fields_are_taken_out() {
        assert_eq!(
            without_client_secrets("?client_secret=pi_1_secret_AbC9&x=cs_2_secret_Z"),
            "?client_secret=pi_1_secret_[redacted]&x=cs_2_secret_[redacted]"
        );
        assert_eq!(without_client_secrets("no_secret_ here"), "no_secret_ here");
        let body = r#"{"payment_method":{"card":{"number":"4242 4242","cvc":"123","exp_month":12}},"secret_key":"whsk_A1","items":[{"client_secret":"x"}],"cvc":null}"#;
        assert_eq!(
            loggable(body),
            r#"{"cvc":null,"items":[{"client_secret":"[redacted]"}],"payment_method":{"card":{"cvc":"[redacted]","exp_month":12,"number":"[redacted]"}},"secret_key":"[redacted]"}"#
        );
        assert_eq!(
            loggable("not json 4242424242424242 sk_test_abc whsk_def"),
            "not json [card number removed] sk_test_[redacted] whsk_[redacted]"
        );
    }

    #[test]
    fn hosted_page_links_lose_their_secret_and_other_paths_stay() {
        assert_eq!(without_capabilities("/b/bstm_1_secret_2"), "/b/[redacted]");
        assert_eq!(without_capabilities("/c/cs_1_secret_2"), "/c/[redacted]");
        assert_eq!(without_capabilities("/test/authorize/token/x"), "/test/authorize/[redacted]/x");
        assert_eq!(without_capabilities("/billing_statements/bstm_1"), "/billing_statements/bstm_1");
        assert_eq!(without_capabilities("/test/mailbox"), "/test/mailbox");
    }

    #[test]
    fn card_numbers_are_never_echoed() {
        for (text, expected) in [
            ("No payment method pm_4242424242424242 exists.", "No payment method pm_[card number removed] exists."),
            ("id 4242 4242 4242 4242.", "id [card number removed]."),
            ("4242-4242-4242-4242", "[card number removed]"),
            ("/customers/4242%204242%204242%204242/x", "/customers/[card number removed]/x"),
            ("4242+4242+4242+4242", "[card number removed]"),
            ("amount 12345678901 and 2026", "amount 12345678901 and 2026"),
            ("a 1 2 3 b", "a 1 2 3 b"),
            ("trailing 12 ", "trailing 12 "),
            ("5425233430109903 and 4000000000003220", "[card number removed] and [card number removed]"),
            ("4242424242424242 4242424242424242", "[card number removed]"),
            ("4242424242424242424242424242", "[card number removed]"),
        ] {
            assert_eq!(without_card_numbers(text), expected);
        }
    }

    #[test]
    fn the_services_own_limits_are_never_taken_for_card_numbers() {
        for limit in
            [999_999_999_999_i64, 5_999_999_999, 253_402_300_799, i64::MAX, i64::from(i32::MAX), i64::from(u32::MAX)]
        {
            let message = format!("The parameter must be at most {limit}.");
            assert_eq!(without_card_numbers(&message), message);
        }
        assert!(!passes_luhn(&[4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 3]));
        assert!(passes_luhn(&[4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2]));
    }
}
