//! Reads typed values out of a parameter map, collecting every error with the name of its parameter,
//! and refuses parameters nobody asked for.

use super::shape::{self, Shape};
use crate::error::ApiError;
use payments_application::pagination::MetadataMatch;
use payments_domain::description::Description;
use payments_domain::limits::{CHOICE_LENGTH, URL_LENGTH};
use payments_domain::metadata::Metadata;
use payments_domain::money::Amount;
use payments_domain::redirect_url::RedirectUrl;
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::validation::{ErrorCode, FieldError, Invalid};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The names of every value of a closed set, for [`Params::choice`]: `names(&Currency::ALL,
/// Currency::code)`.
pub fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|value| name(*value)).collect()
}

/// A string with a character other than white space (and, as every string, no NUL). White space is
/// what the service trims (Unicode's `White_Space`, spelled out: a pattern's `\s` leaves out U+0085
/// and takes U+FEFF).
pub const NOT_BLANK: &str =
    r"^[^\x00]*[^\x00\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00]*$";
/// An `http` or `https` URL (either case) of a host name (labels of letters, digits, `-` and `_`,
/// the last not starting with a digit) or an IPv4 address, perhaps with a port, then printable ASCII
/// but the backslash: narrower than what the service takes (IPv6, a user name), never wider.
pub const WEB_URL: &str = r"^[Hh][Tt][Tt][Pp][Ss]?://(?:(?:[A-Za-z0-9_-]+\.)*[A-Za-z_][A-Za-z0-9_-]*\.?|(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9]))(?::[0-9]{1,4})?(?:[/?#][!-\[\]-~]*)?$";
/// As [`WEB_URL`], `https` only.
pub const HTTPS_URL: &str = r"^[Hh][Tt][Tt][Pp][Ss]://(?:(?:[A-Za-z0-9_-]+\.)*[A-Za-z_][A-Za-z0-9_-]*\.?|(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9]))(?::[0-9]{1,4})?(?:[/?#][!-\[\]-~]*)?$";

/// `number` when it is a whole number within `i64` (JSON Schema counts `2000.0` as an integer).
#[allow(clippy::cast_possible_truncation, clippy::float_cmp)]
fn whole(number: f64) -> Option<i64> {
    // 2^63 is exact in f64; every f64 below it in magnitude with no fraction fits an i64.
    let limit = 9_223_372_036_854_775_808.0;
    (number.fract() == 0.0 && number >= -limit && number < limit).then_some(number as i64)
}

/// The digits of a whole number, also one sent with a fraction of zeros.
fn whole_digits(number: &serde_json::Number) -> Option<String> {
    if number.is_i64() || number.is_u64() {
        return Some(number.to_string());
    }
    number.as_f64().and_then(whole).map(|whole| whole.to_string())
}

/// Digits, after an optional minus sign (`2000`, `-1`, `09`): no fraction, not even of zeros
/// (`2000.0` is written as a decimal, not as the whole number a form field takes).
fn whole_in_digits(text: &str) -> Option<i64> {
    // Digits, after a minus sign at most: no plus sign, no white space (leading zeros are taken, as a
    // card's `exp_month` is often written `09`).
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i64>().ok()
}

/// A parameter map being read. Each read removes the parameter; [`Params::finish`] reports what
/// was left (unknown parameters) together with every error met on the way.
#[derive(Debug, Default)]
pub struct Params {
    values: Map<String, Value>,
    prefix: String,
    errors: Vec<FieldError>,
    /// Set when describing: each read records its parameter here and reads nothing.
    shape: Option<Shape>,
    /// Decoded from JSON, whose values have types: a whole number must be a number there, as the
    /// document states it. A form's values are all text, so a number is read from its digits.
    typed: bool,
}

impl Params {
    #[must_use]
    pub fn new(values: Map<String, Value>) -> Self {
        Self { values, prefix: String::new(), errors: Vec::new(), shape: None, typed: false }
    }

    /// The parameters of a JSON body, whose values keep their types.
    #[must_use]
    pub fn typed(values: Map<String, Value>) -> Self {
        Self { typed: true, ..Self::new(values) }
    }

    /// The map without its empty top-level strings: a form's empty input is no value.
    #[must_use]
    pub fn without_blanks(mut self) -> Self {
        self.values.retain(|_, value| value.as_str().is_none_or(|text| !text.is_empty()));
        self
    }

    /// A parameter map that reads nothing and records what a decoder asks for: run a decoder on it,
    /// then take its [`Shape`] with [`Params::into_shape`].
    #[must_use]
    pub fn describing() -> Self {
        Self { shape: Some(Shape::default()), ..Self::default() }
    }

    /// What a decoder run on [`Params::describing`] asked for.
    #[must_use]
    pub fn into_shape(self) -> Shape {
        self.shape.unwrap_or_default()
    }

    /// Records `key` when describing; `true` then, and the reader returns without a value.
    fn describe(&mut self, key: &str, schema: impl FnOnce() -> utoipa::openapi::schema::Schema) -> bool {
        match &mut self.shape {
            Some(shape) => {
                shape.add(key, schema);
                true
            }
            None => false,
        }
    }

    /// The parameter's name as a client spells it: `billing[address][line1]`.
    #[must_use]
    pub fn name(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}[{key}]", self.prefix)
        }
    }

    /// Records an error.
    pub fn push(&mut self, error: FieldError) {
        self.errors.push(error);
    }

    /// Keeps `Ok` values and records a refused one under `key`.
    pub fn check<T>(&mut self, key: &str, result: Result<T, Invalid>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(refused) => {
                let name = self.name(key);
                self.push(refused.at(name));
                None
            }
        }
    }

    /// Whether `key` is sent: there, and neither `null` nor the empty string, which count as absent.
    #[must_use]
    pub fn is_sent(&self, key: &str) -> bool {
        self.values.get(key).is_some_and(|value| !value.is_null() && value.as_str() != Some(""))
    }

    /// Removes a parameter; `null` and the empty string count as absent.
    fn take(&mut self, key: &str) -> Option<Value> {
        match self.values.remove(key)? {
            Value::Null => None,
            Value::String(text) if text.is_empty() => None,
            value => Some(value),
        }
    }

    fn type_error(&mut self, key: &str, expected: &str) {
        let name = self.name(key);
        let detail = format!("The parameter {name} must be {expected}.");
        self.push(FieldError::new(name, ErrorCode::ParameterTypeInvalid, detail));
    }

    /// Marks a required parameter as missing when `value` is `None`.
    ///
    /// An error already reported for the parameter, or for one nested in it, is not repeated.
    pub fn require<T>(&mut self, key: &str, value: Option<T>) -> Option<T> {
        if let Some(shape) = &mut self.shape {
            shape.require(key);
            return value;
        }
        let name = self.name(key);
        let nested = format!("{name}[");
        let reported = self.errors.iter().any(|e| e.parameter == name || e.parameter.starts_with(&nested));
        if value.is_none() && !reported {
            self.push(FieldError::required(name));
        }
        value
    }

    /// Reports that none of several alternative parameters came, naming `key` with `detail`; not
    /// while the document is described (it shows them all as optional), nor after an error about
    /// one of them was reported.
    pub fn missing_alternatives(&mut self, key: &str, detail: &str) {
        if self.shape.is_none() && self.errors.is_empty() {
            let name = self.name(key);
            self.push(FieldError::new(name, ErrorCode::ParameterRequired, detail));
        }
    }

    /// States, for the document, that exactly one of `keys` is sent; the decoder refuses both and
    /// neither itself.
    pub fn exactly_one_of(&mut self, keys: &[&str]) {
        if let Some(shape) = &mut self.shape {
            shape.rule(shape::Rule::ExactlyOne(keys.iter().map(|key| (*key).to_owned()).collect()));
        }
    }

    /// States, for the document, that at most one of `keys` is sent; the decoder refuses more
    /// itself.
    pub fn at_most_one_of(&mut self, keys: &[&str]) {
        if let Some(shape) = &mut self.shape {
            shape.rule(shape::Rule::AtMostOne(keys.iter().map(|key| (*key).to_owned()).collect()));
        }
    }

    /// States, for the document, that either `one` is sent and none of `all`, or all of `all` and
    /// not `one`; the decoder refuses the rest itself.
    pub fn one_or_all(&mut self, one: &str, all: &[&str]) {
        if let Some(shape) = &mut self.shape {
            shape.rule(shape::Rule::OneOrAll {
                one: one.to_owned(),
                all: all.iter().map(|key| (*key).to_owned()).collect(),
            });
        }
    }

    /// States, for the document, that `key` is sent only where `other` is `value`; the decoder
    /// refuses it elsewhere itself.
    pub fn only_where(&mut self, key: &str, other: &str, value: &str) {
        if let Some(shape) = &mut self.shape {
            shape.rule(shape::Rule::OnlyWhere {
                parameter: key.to_owned(),
                other: other.to_owned(),
                value: value.to_owned(),
            });
        }
    }

    /// States, for the document, that `key` is sent where `other` is `value` and only there; the
    /// decoder refuses it missing there and sent elsewhere itself.
    pub fn exactly_where(&mut self, key: &str, other: &str, value: &str) {
        if let Some(shape) = &mut self.shape {
            shape.rule(shape::Rule::ExactlyWhere {
                parameter: key.to_owned(),
                other: other.to_owned(),
                value: value.to_owned(),
            });
        }
    }

    /// As [`Params::require`], for a parameter another one can stand in for (`payment_method`, or
    /// `payment_method_id`): the document shows both as optional.
    pub fn require_unless_replaced<T>(&mut self, key: &str, value: Option<T>) -> Option<T> {
        if self.shape.is_some() {
            return value;
        }
        self.require(key, value)
    }

    /// A string parameter of at most `max_chars` characters.
    pub fn string(&mut self, key: &str, max_chars: usize) -> Option<String> {
        if self.describe(key, || shape::string(max_chars)) {
            return None;
        }
        match self.take(key)? {
            Value::String(text) => self.within(key, text, max_chars),
            _ => {
                self.type_error(key, "a string");
                None
            }
        }
    }

    /// A string parameter of at most `max_chars` characters that must be present.
    pub fn required_string(&mut self, key: &str, max_chars: usize) -> Option<String> {
        let value = self.string(key, max_chars);
        self.require(key, value)
    }

    /// A string that names one of a closed set of values, such as a currency; the caller's parser
    /// checks it, and the document lists `names()` as its choices.
    pub fn choice(&mut self, key: &str, names: impl FnOnce() -> Vec<&'static str>) -> Option<String> {
        if self.describe(key, || shape::choice(names())) {
            return None;
        }
        self.string(key, CHOICE_LENGTH)
    }

    /// One value of the closed set `all`, named by `name` (a status, an event type); another
    /// string is `parameter_invalid` listing the choices.
    pub fn one_of<T: Copy>(&mut self, key: &str, all: &[T], name: fn(T) -> &'static str) -> Option<T> {
        let text = self.choice(key, || names(all, name))?;
        let found = all.iter().copied().find(|value| name(*value) == text);
        if found.is_none() {
            let choices = names(all, name).join(", ");
            let detail = format!("The parameter {} must be one of {choices}.", self.name(key));
            let name = self.name(key);
            self.push(FieldError::invalid(name, detail));
        }
        found
    }

    /// As [`Params::choice`], for a parameter that must be present.
    pub fn required_choice(&mut self, key: &str, names: impl FnOnce() -> Vec<&'static str>) -> Option<String> {
        let value = self.choice(key, names);
        self.require(key, value)
    }

    /// A list of at most `max_items` strings, each naming one of `names()`.
    pub fn choice_list(
        &mut self,
        key: &str,
        max_items: usize,
        names: impl FnOnce() -> Vec<&'static str>,
    ) -> Option<Vec<String>> {
        if self.describe(key, || shape::list(shape::choice(names()), max_items)) {
            return None;
        }
        self.string_list(key, max_items, CHOICE_LENGTH)
    }

    /// States in the document that the string `key` (read just before) matches `pattern`, a rule
    /// the caller's own check enforces; the pattern must exclude NUL as every string does.
    pub fn pattern(&mut self, key: &str, pattern: &str) {
        if let Some(shape) = &mut self.shape {
            shape.constrain(key, Some(pattern), None);
        }
    }

    /// Marks `key` (read just before) as a secret's: card data or a client secret, which the request
    /// log and the idempotency record never keep (`crate::redact` reads the marks of every
    /// endpoint's decoder).
    pub fn secret(&mut self, key: &str) {
        if let Some(shape) = &mut self.shape {
            shape.mark_secret(key);
        }
    }

    /// States in the document that the number `key` (read just before, perhaps also as digits)
    /// lies within `minimum..=maximum`, a rule the caller's own check enforces.
    pub fn bounds(&mut self, key: &str, minimum: i64, maximum: i64) {
        if let Some(shape) = &mut self.shape {
            shape.constrain(key, None, Some((minimum, maximum)));
        }
    }

    /// A whole number the caller checks to lie in one of `ranges`, which the document lists.
    pub fn integer_in_ranges(&mut self, key: &str, ranges: &[(i64, i64)]) -> Option<i64> {
        if self.describe(key, || shape::integer_in_ranges(ranges)) {
            return None;
        }
        self.integer(key)
    }

    /// States in the document that the list `key` (read just before) names each item once; the
    /// caller refuses a repeat itself.
    pub fn unique(&mut self, key: &str) {
        if let Some(shape) = &mut self.shape {
            shape.unique(key);
        }
    }

    /// Marks the list `key` as holding at least one item in the document; the caller's own check
    /// refuses an empty one with its own words.
    pub fn non_empty(&mut self, key: &str) {
        if let Some(shape) = &mut self.shape {
            shape.non_empty(key);
        }
    }

    /// A whole number from 1 up to `max_digits` digits, sent as a number or in digits, as text for
    /// the caller's parser.
    pub fn positive_whole_number(&mut self, key: &str, max_digits: u32) -> Option<String> {
        if self.describe(key, || shape::positive_whole_number(max_digits)) {
            return None;
        }
        self.string_or_integer(key, CHOICE_LENGTH)
    }

    /// A string parameter for which a client may also send a whole number.
    pub fn string_or_integer(&mut self, key: &str, max_chars: usize) -> Option<String> {
        if self.describe(key, || shape::string_or_integer(max_chars)) {
            return None;
        }
        let text = match self.take(key)? {
            Value::String(text) => Some(text),
            Value::Number(number) => whole_digits(&number),
            _ => None,
        };
        match text {
            Some(text) => self.within(key, text, max_chars),
            None => {
                self.type_error(key, "a string");
                None
            }
        }
    }

    /// `text` when it has at most `max_chars` characters, else an error naming the limit.
    fn within(&mut self, key: &str, text: String, max_chars: usize) -> Option<String> {
        if text.chars().count() <= max_chars {
            return Some(text);
        }
        let name = self.name(key);
        let detail = format!("The parameter {name} must be at most {max_chars} characters long.");
        self.push(FieldError::invalid(name, detail));
        None
    }

    /// A whole-number parameter: a JSON integer, or digits (forms send numbers as strings).
    pub fn integer(&mut self, key: &str) -> Option<i64> {
        if self.describe(key, || shape::integer(None, None)) {
            return None;
        }
        let parsed = match self.take(key)? {
            Value::Number(number) => number.as_i64().or_else(|| number.as_f64().and_then(whole)),
            Value::String(text) if !self.typed => whole_in_digits(&text),
            _ => None,
        };
        if parsed.is_none() {
            self.type_error(key, "a whole number");
        }
        parsed
    }

    /// A whole number within `minimum..=maximum` (either end open when `None`); out of bounds is
    /// `parameter_below_minimum` or `parameter_above_maximum`.
    pub fn integer_between(&mut self, key: &str, minimum: Option<i64>, maximum: Option<i64>) -> Option<i64> {
        if self.describe(key, || shape::integer(minimum, maximum)) {
            return None;
        }
        let value = self.integer(key)?;
        let name = self.name(key);
        if let Some(minimum) = minimum.filter(|minimum| value < *minimum) {
            let detail = format!("The parameter {name} must be at least {minimum}.");
            self.push(FieldError::new(name, ErrorCode::ParameterBelowMinimum, detail));
            return None;
        }
        if let Some(maximum) = maximum.filter(|maximum| value > *maximum) {
            let detail = format!("The parameter {name} must be at most {maximum}.");
            self.push(FieldError::new(name, ErrorCode::ParameterAboveMaximum, detail));
            return None;
        }
        Some(value)
    }

    /// A string of at most `max_chars` characters in a format the document names (`email`), which
    /// the caller's parser checks.
    pub fn formatted_string(&mut self, key: &str, max_chars: usize, format: &str) -> Option<String> {
        if self.describe(key, || shape::formatted_string(max_chars, format)) {
            return None;
        }
        self.string(key, max_chars)
    }

    /// An amount in centavos: a whole number within the service's bounds. A negative, fractional or
    /// non-numeric value is a type error; a whole number out of bounds is below or above the bounds.
    pub fn amount(&mut self, key: &str) -> Option<Amount> {
        if self.describe(key, || shape::integer(Some(Amount::MINIMUM), Some(Amount::MAXIMUM))) {
            return None;
        }
        let centavos = self.integer(key)?;
        if centavos < 0 {
            self.type_error(key, "a positive whole number of centavos");
            return None;
        }
        self.check(key, Amount::new(centavos))
    }

    /// A list of at most `max_items` strings of at most `max_chars` characters each: an array
    /// (`a[]=x` in forms), or one string as a list of one.
    pub fn string_list(&mut self, key: &str, max_items: usize, max_chars: usize) -> Option<Vec<String>> {
        if self.describe(key, || shape::list(shape::string(max_chars), max_items)) {
            return None;
        }
        let items = match self.take(key)? {
            Value::String(text) => vec![Value::String(text)],
            Value::Array(items) => items,
            _ => {
                self.type_error(key, "a list of strings");
                return None;
            }
        };
        if items.len() > max_items {
            let name = self.name(key);
            let detail = format!("The parameter {name} may list at most {max_items} items.");
            self.push(FieldError::invalid(name, detail));
            return None;
        }
        let mut strings = Vec::with_capacity(items.len());
        for item in items {
            let Value::String(text) = item else {
                self.type_error(key, "a list of strings");
                return None;
            };
            strings.push(self.within(key, text, max_chars)?);
        }
        Some(strings)
    }

    /// Free text of at most [`Description::MAX_LENGTH`] characters.
    pub fn description(&mut self, key: &str) -> Option<Description> {
        let text = self.string(key, Description::MAX_LENGTH)?;
        self.check(key, Description::new(text))
    }

    /// `metadata`: at most 50 string values (see [`Metadata::new`]).
    pub fn metadata(&mut self, key: &str) -> Option<Metadata> {
        let (keys, key_chars, value_chars) = (Metadata::MAX_KEYS, Metadata::MAX_KEY_LENGTH, Metadata::MAX_VALUE_LENGTH);
        if self.describe(key, || shape::string_map(Some(keys), Some(key_chars), Some(value_chars))) {
            return None;
        }
        let pairs = self.string_map(key)?;
        self.check(key, Metadata::new(pairs))
    }

    /// A statement descriptor of at most [`StatementDescriptor::MAX_LENGTH`] characters, not blank.
    pub fn statement_descriptor(&mut self, key: &str) -> Option<StatementDescriptor> {
        let text = self.string(key, StatementDescriptor::MAX_LENGTH);
        self.pattern(key, NOT_BLANK);
        self.check(key, StatementDescriptor::new(text?))
    }

    /// A URL a customer may be redirected to (see [`RedirectUrl`]), of at most [`URL_LENGTH`]
    /// characters; whether the mode allows it is the use case's to say.
    pub fn redirect_url(&mut self, key: &str) -> Option<RedirectUrl> {
        // The pattern, not `format: uri`: the service takes what browsers take (`%` not followed
        // by two hex digits, say), which RFC 3986 does not.
        if self.describe(key, || shape::string(URL_LENGTH)) {
            self.pattern(key, WEB_URL);
            return None;
        }
        let text = self.string(key, URL_LENGTH)?;
        self.check(key, RedirectUrl::new(text))
    }

    /// A boolean parameter: `true`/`True`/`1` or `false`/`False`/`0` in forms.
    pub fn boolean(&mut self, key: &str) -> Option<bool> {
        if self.describe(key, shape::boolean) {
            return None;
        }
        let parsed = match self.take(key)? {
            Value::Bool(flag) => Some(flag),
            Value::String(text) => match text.as_str() {
                "true" | "True" | "1" => Some(true),
                "false" | "False" | "0" => Some(false),
                _ => None,
            },
            // `1.0` is `1` to JSON Schema, as for any whole number.
            Value::Number(number) => match number.as_i64().or_else(|| number.as_f64().and_then(whole)) {
                Some(1) => Some(true),
                Some(0) => Some(false),
                _ => None,
            },
            _ => None,
        };
        if parsed.is_none() {
            self.type_error(key, "a boolean");
        }
        parsed
    }

    /// A map of strings, such as `metadata`.
    pub fn string_map(&mut self, key: &str) -> Option<BTreeMap<String, String>> {
        if self.describe(key, || shape::string_map(None, None, None)) {
            return None;
        }
        let Value::Object(map) = self.take(key)? else {
            self.type_error(key, "an object of strings");
            return None;
        };
        let mut pairs = BTreeMap::new();
        let mut valid = true;
        for (name, value) in map {
            match value {
                Value::String(text) => {
                    pairs.insert(name, text);
                }
                _ => {
                    let parameter = format!("{}[{name}]", self.name(key));
                    let detail = format!("The parameter {parameter} must be a string.");
                    self.push(FieldError::new(parameter, ErrorCode::ParameterTypeInvalid, detail));
                    valid = false;
                }
            }
        }
        valid.then_some(pairs)
    }

    /// A list's metadata filter: `metadata[key]=value` pairs that must all match, or bare keys that
    /// must be present (`metadata=key`, repeated for several: what Python's `requests` sends for a map
    /// in a query string, so PayRex's Python client filters by keys only). At most
    /// [`Metadata::MAX_KEYS`] conditions, keys and values within the metadata limits.
    pub fn metadata_filter(&mut self, key: &str) -> Vec<MetadataMatch> {
        let (keys, key_chars, value_chars) = (Metadata::MAX_KEYS, Metadata::MAX_KEY_LENGTH, Metadata::MAX_VALUE_LENGTH);
        if self.describe(key, || shape::key_filter(keys, key_chars, value_chars)) {
            return Vec::new();
        }
        let conditions: Vec<(String, Option<Value>)> = match self.take(key) {
            None => return Vec::new(),
            Some(Value::Object(pairs)) => pairs.into_iter().map(|(k, v)| (k, Some(v))).collect(),
            Some(Value::String(name)) => vec![(name, None)],
            Some(Value::Array(names)) => {
                names.into_iter().map(|name| (name.as_str().unwrap_or("").to_owned(), None)).collect()
            }
            Some(_) => {
                self.type_error(key, "an object of strings or a list of keys");
                return Vec::new();
            }
        };
        let name = self.name(key);
        if conditions.len() > Metadata::MAX_KEYS {
            let detail = format!("Filter by at most {} metadata keys.", Metadata::MAX_KEYS);
            self.push(FieldError::invalid(name, detail));
            return Vec::new();
        }
        let mut matches = Vec::with_capacity(conditions.len());
        for (metadata_key, value) in conditions {
            let parameter = format!("{name}[{metadata_key}]");
            if let Err(refused) = Metadata::check_key(&metadata_key) {
                self.push(refused.at(name.clone()));
                continue;
            }
            let value = match value {
                None => None,
                Some(Value::String(text)) if text.chars().count() <= Metadata::MAX_VALUE_LENGTH => Some(text),
                Some(Value::String(_)) => {
                    let detail = format!("Metadata values are at most {} characters long.", Metadata::MAX_VALUE_LENGTH);
                    self.push(FieldError::invalid(parameter, detail));
                    continue;
                }
                Some(_) => {
                    let detail = format!("The parameter {parameter} must be a string.");
                    self.push(FieldError::new(parameter, ErrorCode::ParameterTypeInvalid, detail));
                    continue;
                }
            };
            matches.push(MetadataMatch { key: metadata_key, value });
        }
        matches
    }

    /// A nested object read by `read`; its errors and unknown keys are reported under this one.
    pub fn object<T>(&mut self, key: &str, read: impl FnOnce(&mut Params) -> Option<T>) -> Option<T> {
        if self.shape.is_some() {
            let mut nested = Self::describing();
            read(&mut nested);
            let nested = nested.into_shape();
            if let Some(shape) = &mut self.shape {
                shape.absorb_secrets(&nested);
            }
            self.describe(key, || nested.into_schema());
            return None;
        }
        let Value::Object(map) = self.take(key)? else {
            self.type_error(key, "an object");
            return None;
        };
        let mut nested =
            Self { values: map, prefix: self.name(key), errors: Vec::new(), shape: None, typed: self.typed };
        let value = read(&mut nested);
        nested.reject_unknown();
        let failed = !nested.errors.is_empty();
        self.errors.append(&mut nested.errors);
        if failed {
            None
        } else {
            value
        }
    }

    /// A list of at most `max_items` objects, each read by `read` (its errors and unknown keys are
    /// reported under `key[i]`); `None` when absent or when any item failed.
    pub fn object_list<T>(
        &mut self,
        key: &str,
        max_items: usize,
        mut read: impl FnMut(&mut Params) -> Option<T>,
    ) -> Option<Vec<T>> {
        if self.shape.is_some() {
            let mut nested = Self::describing();
            read(&mut nested);
            let nested = nested.into_shape();
            if let Some(shape) = &mut self.shape {
                shape.absorb_secrets(&nested);
            }
            self.describe(key, || shape::list(nested.into_schema(), max_items));
            return None;
        }
        let Value::Array(items) = self.take(key)? else {
            self.type_error(key, "a list of objects");
            return None;
        };
        if items.len() > max_items {
            let name = self.name(key);
            let detail = format!("The parameter {name} may list at most {max_items} items.");
            self.push(FieldError::invalid(name, detail));
            return None;
        }
        let mut values = Vec::with_capacity(items.len());
        let mut failed = false;
        for (position, item) in items.into_iter().enumerate() {
            let item_name = format!("{}[{position}]", self.name(key));
            let Value::Object(map) = item else {
                let detail = format!("The parameter {item_name} must be an object.");
                self.push(FieldError::new(item_name, ErrorCode::ParameterTypeInvalid, detail));
                failed = true;
                continue;
            };
            let mut nested =
                Self { values: map, prefix: item_name, errors: Vec::new(), shape: None, typed: self.typed };
            let value = read(&mut nested);
            nested.reject_unknown();
            failed |= !nested.errors.is_empty();
            self.errors.append(&mut nested.errors);
            values.extend(value);
        }
        (!failed).then_some(values)
    }

    fn reject_unknown(&mut self) {
        let unknown: Vec<String> = std::mem::take(&mut self.values).into_iter().map(|(key, _)| key).collect();
        for key in unknown {
            let name = self.name(&key);
            let detail = format!("The parameter {name} is unknown.");
            self.push(FieldError::new(name, ErrorCode::ParameterInvalid, detail));
        }
    }

    /// Ends reading: fails with every recorded error and every unknown parameter, else returns the
    /// value that was read.
    ///
    /// # Errors
    /// A 400 carrying all the field errors.
    pub fn finish<T>(self, value: Option<T>) -> Result<T, ApiError> {
        match self.finish_fields(value) {
            Ok(value) => Ok(value),
            Err(errors) if errors.is_empty() => {
                Err(ApiError::internal_message("a request was decoded without a value and without an error"))
            }
            Err(errors) => Err(ApiError::validation(errors)),
        }
    }

    /// As [`Params::finish`], with the field errors themselves (a hosted page shows them beside its
    /// inputs); empty when there was no value and no error.
    ///
    /// # Errors
    /// Every recorded error and unknown parameter.
    pub fn finish_fields<T>(mut self, value: Option<T>) -> Result<T, Vec<FieldError>> {
        self.reject_unknown();
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        value.ok_or_else(Vec::new)
    }

    /// The parameters not read yet, to be rewritten before they are read (a page's form that
    /// takes pesos where the API takes centavos).
    #[must_use]
    pub fn into_values(self) -> Map<String, Value> {
        self.values
    }

    /// The parameters not read yet, as decoded.
    #[must_use]
    pub fn values(&self) -> &Map<String, Value> {
        &self.values
    }

    /// Whether the parameter `key` is the string `value`, without reading it.
    #[must_use]
    pub fn holds(&self, key: &str, value: &str) -> bool {
        self.values.get(key).and_then(Value::as_str) == Some(value)
    }

    /// Drops a parameter unread (a page's inputs that do not apply to the choice made).
    pub fn discard(&mut self, key: &str) {
        self.values.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(value: Value) -> Params {
        let Value::Object(map) = value else { unreachable!("tests pass objects") };
        Params::new(map)
    }

    fn codes(result: Result<(), ApiError>) -> Vec<(String, &'static str)> {
        result.unwrap_err().field_errors().iter().map(|e| (e.parameter.clone(), e.code.as_str())).collect()
    }

    #[test]
    fn integers_come_as_numbers_or_digit_strings_but_never_with_a_fraction() {
        let mut p = params(json!({"a": 5, "b": "7", "c": 2.5, "d": "x", "e": 2000.0, "f": "2000.00", "g": "1.5"}));
        assert_eq!((p.integer("a"), p.integer("b"), p.integer("c"), p.integer("d")), (Some(5), Some(7), None, None));
        // A JSON number with a fraction of zeros is an integer (JSON Schema's reading); digits with
        // one are written as a decimal, which a whole-number field refuses.
        assert_eq!((p.integer("e"), p.integer("f"), p.integer("g")), (Some(2000), None, None), "zero fractions");
        let mut q = params(json!({"a": 1e19, "b": ".0", "c": "-", "d": "1e3", "e": "10.0", "f": "1."}));
        assert_eq!((q.integer("a"), q.integer("b"), q.integer("c"), q.integer("d")), (None, None, None, None));
        assert_eq!((q.integer("e"), q.integer("f")), (None, None));
        assert_eq!(
            codes(p.finish(Some(()))),
            vec![
                ("c".into(), "parameter_type_invalid"),
                ("d".into(), "parameter_type_invalid"),
                ("f".into(), "parameter_type_invalid"),
                ("g".into(), "parameter_type_invalid")
            ]
        );
    }

    #[test]
    fn a_json_body_writes_a_whole_number_as_a_number_and_a_form_as_digits() {
        let Value::Object(map) = json!({"a": "12", "b": 12, "n": {"c": "7"}}) else { unreachable!() };
        let mut typed = Params::typed(map.clone());
        assert_eq!((typed.integer("a"), typed.integer("b")), (None, Some(12)));
        assert_eq!(typed.object("n", |nested| nested.integer("c")), None, "nested values keep the body's types");
        assert_eq!(
            codes(typed.finish(Some(()))),
            vec![("a".into(), "parameter_type_invalid"), ("n[c]".into(), "parameter_type_invalid")]
        );
        let mut form = Params::new(map);
        assert_eq!((form.integer("a"), form.integer("b")), (Some(12), Some(12)));
        assert_eq!(form.object("n", |nested| nested.integer("c")), Some(7));
    }

    #[test]
    fn a_long_whole_number_with_a_zero_fraction_is_read_exactly() {
        // Parsed with a lossy float reading, 4242424242424242.0 became 4242424242424241.5 and was
        // refused as no whole number; every whole number below 2^53 is read as sent.
        for written in ["4242424242424242.0", "2193095604648871.0", "9007199254740991.0", "5999999999.000"] {
            let body = format!("{{\"a\": {written}}}");
            let Ok(Value::Object(map)) = crate::decode::json::parse(body.as_bytes()) else { panic!("{body}") };
            let expected = written.split('.').next().unwrap().parse::<i64>().unwrap();
            assert_eq!(Params::new(map).integer("a"), Some(expected), "{written}");
        }
    }

    #[test]
    fn booleans_accept_the_lenient_spellings() {
        let mut whole = params(json!({"a": 1.0, "b": 0.0, "c": 0.5}));
        assert_eq!((whole.boolean("a"), whole.boolean("b"), whole.boolean("c")), (Some(true), Some(false), None));
        let mut p = params(json!({"a": "True", "b": "0", "c": true, "d": "yes"}));
        assert_eq!(
            (p.boolean("a"), p.boolean("b"), p.boolean("c"), p.boolean("d")),
            (Some(true), Some(false), Some(true), None)
        );
    }

    #[test]
    fn missing_required_unknown_and_nested_errors_are_all_reported() {
        let mut p = params(json!({"extra": "x", "billing": {"phone": 5, "nope": "y"}}));
        let name = p.required_string("name", 10);
        p.object("billing", |b| b.string("phone", 10));
        let errors = codes(p.finish(name.map(drop)));
        assert!(errors.contains(&("name".into(), "parameter_required")), "{errors:?}");
        assert!(errors.contains(&("extra".into(), "parameter_invalid")), "{errors:?}");
        assert!(errors.contains(&("billing[phone]".into(), "parameter_type_invalid")), "{errors:?}");
        assert!(errors.contains(&("billing[nope]".into(), "parameter_invalid")), "{errors:?}");
    }

    #[test]
    fn metadata_values_must_be_strings() {
        let mut p = params(json!({"metadata": {"a": "1", "b": 2}}));
        assert!(p.string_map("metadata").is_none());
        assert_eq!(codes(p.finish(Some(()))), vec![("metadata[b]".into(), "parameter_type_invalid")]);
    }

    #[test]
    fn amounts_refuse_negatives_as_types_and_out_of_bounds_as_bounds() {
        let mut p = params(json!({"a": -5, "b": 1999, "c": "6000000000", "d": "2000"}));
        assert_eq!((p.amount("a"), p.amount("b"), p.amount("c")), (None, None, None));
        assert_eq!(p.amount("d").map(Amount::centavos), Some(2000));
        assert_eq!(
            codes(p.finish(Some(()))),
            vec![
                ("a".into(), "parameter_type_invalid"),
                ("b".into(), "parameter_below_minimum"),
                ("c".into(), "parameter_above_maximum")
            ]
        );
    }

    #[test]
    fn lists_and_urls() {
        let mut p =
            params(json!({"a": ["x", "y"], "b": "z", "c": [1], "u": "ftp://x", "v": "https://shop.example/r?x=1"}));
        assert_eq!(p.string_list("a", 5, 5), Some(vec!["x".into(), "y".into()]));
        assert_eq!(p.string_list("b", 5, 5), Some(vec!["z".into()]));
        assert_eq!(p.string_list("c", 5, 5), None);
        assert_eq!(p.redirect_url("u"), None);
        assert_eq!(p.redirect_url("v").as_ref().map(RedirectUrl::as_str), Some("https://shop.example/r?x=1"));
    }

    #[test]
    fn strings_and_lists_past_their_limits_are_refused_naming_the_limit() {
        let mut p = params(json!({"a": "abcdef", "b": ["x", "y", "z"], "c": ["toolong"], "d": "ñandú"}));
        assert_eq!(p.string("a", 5), None);
        assert_eq!(p.string_list("b", 2, 5), None);
        assert_eq!(p.string_list("c", 2, 5), None);
        assert_eq!(p.string("d", 5).as_deref(), Some("ñandú"), "characters, not bytes");
        let errors = p.finish(Some(())).unwrap_err();
        let details: Vec<&str> = errors.field_errors().iter().map(|e| e.detail.as_str()).collect();
        assert_eq!(
            details,
            vec![
                "The parameter a must be at most 5 characters long.",
                "The parameter b may list at most 2 items.",
                "The parameter c must be at most 5 characters long."
            ]
        );
    }

    #[test]
    fn null_and_empty_strings_are_absent() {
        let mut p = params(json!({"a": null, "b": ""}));
        assert_eq!((p.string("a", 10), p.string("b", 10)), (None, None));
        assert!(p.finish(Some(())).is_ok());
    }
}
