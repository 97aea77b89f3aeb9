//! Which fields hold a secret, judged by their names as the API reads them: the parameters the
//! decoders mark as secrets' first, then the names of card data and of the service's own secrets in
//! any spelling (snake or camel case, other separators, encoded again), and names that hold a
//! secret among other text.

use super::card_numbers::is_format_character;
use super::fully_decoded;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

/// The names of a card's data (its number and verification code), whose values are never kept,
/// wherever they are: spelled in snake case, camel case or with other separators (`securityCode`,
/// `card-number`), alone or at the end of a longer name (`cardSecurityCode`).
const CARD_DATA_FIELDS: [&str; 14] = [
    "number",
    "card_number",
    "cvc",
    "cvv",
    "cvc2",
    "cvv2",
    "csc",
    "cvn",
    "cvd",
    "ccv",
    "cid",
    "security_code",
    "verification_code",
    "card_verification_value",
];
/// The names of the other fields whose values are never kept: client secrets (a customer session's
/// `customer_session_client_secret` too), webhook secrets, the console's form tokens.
pub(super) const SECRET_FIELDS: [&str; 3] = ["client_secret", "secret_key", "form_token"];

/// The names of the parameters the API's decoders mark as secrets' ([`declare_secret_parameters`]):
/// the first judge of a field's name; the names above, and what a name says of itself (its words,
/// its spellings), stay as the fallback for whatever no decoder reads.
static DECLARED_SECRETS: OnceLock<BTreeSet<String>> = OnceLock::new();

/// Tells redaction which parameters the API's decoders mark as secrets'
/// (`routes::secret_parameter_names`), once, as the service starts.
pub fn declare_secret_parameters(names: BTreeSet<String>) {
    let _ = DECLARED_SECRETS.set(names);
}
/// The names of a card's verification code, as networks and processors spell it: a name that holds
/// one as a word (`card_cvc`, `cardCvc`, `cvv2`, `amex_cid`) is a secret field's too.
const VERIFICATION_CODE_WORDS: [&str; 9] = ["cvc", "cvv", "cvc2", "cvv2", "csc", "cvn", "cvd", "ccv", "cid"];

/// What of a field is secret, judged by its name (a JSON key, or a form's bracketed name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Secrecy {
    None,
    /// The field is a secret's ([`SECRET_FIELDS`], or a name of a verification code among its
    /// words): its value is not kept.
    Value,
    /// The name holds a secret field's among other text (`card number`, `{"cvc": "123"}`,
    /// `card[cvc]=987`), so the name itself may hold the secret: neither is kept.
    NameAndValue,
}

/// Judgements kept per thread, at most: the names a service answers with come again and again, so
/// each is judged once; names no one sends twice only churn a bounded map.
const JUDGEMENTS_KEPT: usize = 1_024;
/// The longest name whose judgement is kept.
const LONGEST_NAME_KEPT: usize = 64;

thread_local! {
    /// The names already judged on this thread, once the decoders declared their secrets (the
    /// judgement depends on them).
    static JUDGED: RefCell<HashMap<String, Secrecy>> = RefCell::new(HashMap::new());
}

/// What of the field `name` is secret ([`judged`]), remembered per thread.
pub(super) fn secrecy(name: &str) -> Secrecy {
    if DECLARED_SECRETS.get().is_none() || name.len() > LONGEST_NAME_KEPT {
        return judged(name);
    }
    if let Some(secrecy) = JUDGED.with_borrow(|judged| judged.get(name).copied()) {
        return secrecy;
    }
    let secrecy = judged(name);
    JUDGED.with_borrow_mut(|judged| {
        if judged.len() >= JUDGEMENTS_KEPT {
            judged.clear();
        }
        judged.insert(name.to_owned(), secrecy);
    });
    secrecy
}

/// What of the field `name` is secret, judged by what it says.
fn judged(name: &str) -> Secrecy {
    // Judged as it reads once decoded: `payment_method%255Bcard%255D%255Bcvc%255D` is `cvc`'s.
    let decoded = readable(name);
    let name = decoded.as_ref();
    // A form's `payment_method[card][cvc]` is the field `cvc`.
    let field = name.trim_end_matches(']').rsplit(['[', ']']).next().unwrap_or(name);
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '[' | ']'));
    let names_a_code = words(name)
        .any(|word| VERIFICATION_CODE_WORDS.iter().any(|code| code.eq_ignore_ascii_case(&word)))
        || names_card_data_run_together(name);
    let holds_a_field =
        is_secret_field(name) || name.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(is_secret_field);
    match (is_secret_field(field), names_a_code || holds_a_field, plain) {
        (true, _, _) | (false, true, true) => Secrecy::Value,
        (false, true, false) => Secrecy::NameAndValue,
        (false, false, _) => Secrecy::None,
    }
}

/// Whether `name` is a secret field's, however it is spelled ([`snake_cased`]): one of
/// [`CARD_DATA_FIELDS`] or [`SECRET_FIELDS`], or a name that ends with one of several words
/// (`card_security_code`, `customer_session_client_secret`).
fn is_secret_field(name: &str) -> bool {
    if DECLARED_SECRETS.get().is_some_and(|declared| declared.contains(name)) {
        return true;
    }
    let name = snake_cased(name);
    CARD_DATA_FIELDS.iter().chain(&SECRET_FIELDS).any(|field| {
        name == *field || (field.contains('_') && name.strip_suffix(field).is_some_and(|before| before.ends_with('_')))
    })
}

/// Whether `name` is one of a card's data fields, however it is spelled: its value is card data.
pub(super) fn is_card_data_field(name: &str) -> bool {
    let decoded = readable(name);
    let field = decoded.trim_end_matches(']').rsplit(['[', ']']).next().unwrap_or(&decoded);
    // Of the declared secrets, the card's data is what is not a secret of the service's own making.
    let declared_card_data = DECLARED_SECRETS
        .get()
        .is_some_and(|declared| declared.contains(field) && !SECRET_FIELDS.iter().any(|own| field.ends_with(own)));
    let name = snake_cased(field);
    declared_card_data
        || CARD_DATA_FIELDS.iter().any(|field| {
            name == *field
                || (field.contains('_') && name.strip_suffix(field).is_some_and(|before| before.ends_with('_')))
        })
        || words(&name).any(|word| VERIFICATION_CODE_WORDS.iter().any(|code| code.eq_ignore_ascii_case(&word)))
        || names_card_data_run_together(&name)
}

/// The names of a card's verification code found inside a word written run together (`cardcvc`,
/// `CVVCODE`): the three-letter ones no English word holds (`cid` is left to whole words).
const VERIFICATION_CODES_RUN_TOGETHER: [&str; 6] = ["cvc", "cvv", "csc", "cvn", "cvd", "ccv"];

/// Whether `name`, with its letters and digits run together in lower case, holds a verification
/// code's name, or ends with a card data field of several words (`securitycode`, `cardnumber`).
fn names_card_data_run_together(name: &str) -> bool {
    let compact: String = name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    VERIFICATION_CODES_RUN_TOGETHER.iter().any(|code| compact.contains(code))
        || CARD_DATA_FIELDS
            .iter()
            .filter(|field| field.contains('_'))
            .any(|field| compact.ends_with(&field.replace('_', "")))
}

/// `name` as it reads: decoded until it stops changing, without the invisible format characters
/// (U+200B, U+2060 …) that would split a word (`cv\u{200b}c` is `cvc`).
fn readable(name: &str) -> Cow<'_, str> {
    let decoded = fully_decoded(name);
    if !decoded.chars().any(is_format_character) {
        return decoded;
    }
    Cow::Owned(decoded.chars().filter(|&c| !is_format_character(c)).collect())
}

/// `name` in snake case: its [`words`] in lower case, joined by `_` (`cardSecurityCode`,
/// `card-security-code` and `Card Security Code` are all `card_security_code`).
fn snake_cased(name: &str) -> String {
    words(name).map(|word| word.to_lowercase()).collect::<Vec<_>>().join("_")
}

/// The words of a name: split at every character that is no letter or digit, where a lower case
/// letter meets an upper case one, and where an acronym meets a word (`cardCvc` is `card`, `Cvc`;
/// `CVVCode` is `CVV`, `Code`).
fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_alphanumeric()).filter(|part| !part.is_empty()).flat_map(|part| {
        let chars: Vec<char> = part.chars().collect();
        let mut words = vec![String::new()];
        for (at, &c) in chars.iter().enumerate() {
            let previous = at.checked_sub(1).map(|before| chars[before]);
            let next = chars.get(at + 1);
            // `cardCvc` is `card`, `Cvc`; `CVVCode` is `CVV`, `Code`.
            let after_lower = previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
            let ends_acronym = previous.is_some_and(char::is_uppercase) && next.is_some_and(|n| n.is_lowercase());
            if c.is_uppercase() && (after_lower || ends_acronym) {
                words.push(String::new());
            }
            if let Some(word) = words.last_mut() {
                word.push(c);
            }
        }
        words
    })
}

/// Whether a parameter's name holds a secret among other text (`card[cvc]=987`, as a whole body
/// percent-encoded into one name reads): an error must not echo it.
#[must_use]
pub fn name_holds_a_secret(name: &str) -> bool {
    secrecy(name) == Secrecy::NameAndValue
}
