//! Which fields hold a secret, judged by their names as the API reads them: the parameters the
//! decoders mark as secrets' first, then the names of card data and of the service's own secrets in
//! any spelling (snake or camel case, other separators, encoded again), and names that hold a
//! secret among other text.

use super::fully_decoded;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The names of a card's data (its number and verification code), whose values are never kept,
/// wherever they are: spelled in snake case, camel case or with other separators (`securityCode`,
/// `card-number`), alone or at the end of a longer name (`cardSecurityCode`).
const CARD_DATA_FIELDS: [&str; 8] = ["number", "card_number", "cvc", "cvv", "cvc2", "cvv2", "csc", "security_code"];
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
/// The names of a card's verification code: a name that holds one as a word (`card_cvc`, `cardCvc`,
/// `cvv2`) is a secret field's too.
const VERIFICATION_CODE_WORDS: [&str; 5] = ["cvc", "cvv", "cvc2", "cvv2", "csc"];

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

pub(super) fn secrecy(name: &str) -> Secrecy {
    // Judged as it reads once decoded: `payment_method%255Bcard%255D%255Bcvc%255D` is `cvc`'s.
    let decoded = fully_decoded(name);
    let name = decoded.as_ref();
    // A form's `payment_method[card][cvc]` is the field `cvc`.
    let field = name.trim_end_matches(']').rsplit(['[', ']']).next().unwrap_or(name);
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '[' | ']'));
    let names_a_code =
        words(name).any(|word| VERIFICATION_CODE_WORDS.iter().any(|code| code.eq_ignore_ascii_case(&word)));
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
    let decoded = fully_decoded(name);
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
}

/// `name` in snake case: its [`words`] in lower case, joined by `_` (`cardSecurityCode`,
/// `card-security-code` and `Card Security Code` are all `card_security_code`).
fn snake_cased(name: &str) -> String {
    words(name).map(|word| word.to_lowercase()).collect::<Vec<_>>().join("_")
}

/// The words of a name: split at every character that is no letter or digit, and where a lower
/// case letter meets an upper case one (`cardCvc` is `card`, `Cvc`).
fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_alphanumeric()).filter(|part| !part.is_empty()).flat_map(|part| {
        let mut words = vec![String::new()];
        let mut previous_lower = false;
        for c in part.chars() {
            if c.is_uppercase() && previous_lower {
                words.push(String::new());
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
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
