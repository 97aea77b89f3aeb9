//! The shape of a request, recorded by running its decoder on a [`Params`](super::Params) that
//! describes instead of reads: every parameter the decoder asks for, with its type, bounds and
//! whether it is required. The OpenAPI document's request schemas come from here, so they cannot
//! drift from what the service accepts.

use utoipa::openapi::schema::{
    AdditionalProperties, AnyOfBuilder, ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::RefOr;

/// What every string the service reads must match: no NUL character (PostgreSQL's text cannot hold
/// one, so it is refused everywhere, whatever the backend).
const WITHOUT_NUL: &str = "^[^\\x00]*$";
/// What a map's keys must match: no NUL, and no square bracket, which `map[key]` in a form could not
/// carry.
const KEY_CHARACTERS: &str = r"^[^\x00\[\]]*$";

/// The parameters one decoder reads, in the order it reads them, and the rules between them.
#[derive(Default)]
pub struct Shape {
    properties: Vec<(String, Schema)>,
    required: Vec<String>,
    rules: Vec<Rule>,
    /// The names of the parameters that hold a secret (card data, a client secret), at any depth:
    /// what the request log and the idempotency record never keep.
    secrets: Vec<String>,
}

/// A rule between parameters that the decoder keeps, stated in the object's schema.
#[derive(Debug, Clone)]
pub(super) enum Rule {
    /// Exactly one of the parameters is sent.
    ExactlyOne(Vec<String>),
    /// At most one of the parameters is sent.
    AtMostOne(Vec<String>),
    /// Either `one` is sent and none of `all`, or every one of `all` and not `one` (a card's token,
    /// or its details).
    OneOrAll { one: String, all: Vec<String> },
    /// `parameter` is sent only where `other` is `value`.
    OnlyWhere { parameter: String, other: String, value: String },
    /// `parameter` is sent where `other` is `value`, and only there.
    ExactlyWhere { parameter: String, other: String, value: String },
}

impl Rule {
    /// The rule as JSON Schema: a parameter is sent when it is there and neither `null` nor `""`,
    /// which the service reads as absent.
    fn schema(&self) -> serde_json::Value {
        use serde_json::json;
        let absent = json!({"anyOf": [{"type": "null"}, {"const": ""}]});
        // A boolean's `true` is every spelling of it that `boolean()` documents.
        let equals = |value: &str| {
            if value == "true" {
                json!({"anyOf": [{"const": true}, {"const": 1}, {"type": "string", "pattern": "^(true|True|1)$"}]})
            } else {
                json!({"const": value})
            }
        };
        match self {
            Self::ExactlyOne(parameters) => json!({"oneOf": parameters.iter().map(|parameter| json!({
                "required": [parameter],
                "properties": {parameter: {"not": absent}},
            })).collect::<Vec<_>>()}),
            Self::AtMostOne(parameters) => {
                let mut pairs = Vec::new();
                for (position, first) in parameters.iter().enumerate() {
                    for second in &parameters[position + 1..] {
                        pairs.push(json!({
                            "required": [first, second],
                            "properties": {first: {"not": absent}, second: {"not": absent}},
                        }));
                    }
                }
                json!({"not": {"anyOf": pairs}})
            }
            Self::OneOrAll { one, all } => {
                let mut alone = serde_json::Map::from_iter([(one.clone(), json!({"not": absent}))]);
                let mut together = serde_json::Map::from_iter([(one.clone(), absent.clone())]);
                for parameter in all {
                    alone.insert(parameter.clone(), absent.clone());
                    together.insert(parameter.clone(), json!({"not": absent}));
                }
                json!({"oneOf": [
                    {"required": [one], "properties": alone},
                    {"required": all, "properties": together},
                ]})
            }
            Self::OnlyWhere { parameter, other, value } => json!({"anyOf": [
                {"required": [other], "properties": {other: equals(value)}},
                {"properties": {parameter: absent}},
            ]}),
            Self::ExactlyWhere { parameter, other, value } => json!({"anyOf": [
                {"required": [other, parameter], "properties": {other: equals(value), parameter: {"not": absent}}},
                {"properties": {other: {"not": equals(value)}, parameter: absent}},
            ]}),
        }
    }
}

impl std::fmt::Debug for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.properties.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("Shape").field("properties", &names).field("required", &self.required).finish()
    }
}

impl Shape {
    /// Records a parameter. The first description of a parameter wins: a reader that refines
    /// another (an amount is an integer with bounds) records before calling the one it refines.
    pub(super) fn add(&mut self, key: &str, schema: impl FnOnce() -> Schema) {
        if !self.properties.iter().any(|(name, _)| name == key) {
            self.properties.push((key.to_owned(), schema()));
        }
    }

    /// Marks a parameter as required. An empty string counts as absent, so a required string has
    /// at least one character.
    pub(super) fn require(&mut self, key: &str) {
        if !self.required.iter().any(|name| name == key) {
            self.required.push(key.to_owned());
        }
        if let Some(Schema::Object(object)) = self.schema_of(key) {
            if object.min_length.is_none() && object.enum_values.is_none() && accepts_strings(&object.schema_type) {
                object.min_length = Some(1);
            }
        }
    }

    /// States a rule of the caller's own check on a parameter already recorded (on each item of a
    /// list): strings match `pattern` (in place of the no-NUL one, which it must imply), numbers
    /// lie within `bounds`.
    pub(super) fn constrain(&mut self, key: &str, pattern: Option<&str>, bounds: Option<(i64, i64)>) {
        let schema = match self.schema_of(key) {
            Some(Schema::Array(array)) => match &mut array.items {
                utoipa::openapi::schema::ArrayItems::RefOrSchema(item) => match item.as_mut() {
                    RefOr::T(schema) => Some(schema),
                    RefOr::Ref(_) => None,
                },
                utoipa::openapi::schema::ArrayItems::False => None,
            },
            schema => schema,
        };
        if let Some(Schema::Object(object)) = schema {
            if let Some(pattern) = pattern {
                object.pattern = Some(pattern.to_owned());
            }
            if let Some((minimum, maximum)) = bounds {
                object.minimum = Some(minimum.into());
                object.maximum = Some(maximum.into());
            }
        }
    }

    /// States a rule between parameters.
    pub(super) fn rule(&mut self, rule: Rule) {
        self.rules.push(rule);
    }

    /// Marks a parameter as holding a secret.
    pub(super) fn mark_secret(&mut self, key: &str) {
        if !self.secrets.iter().any(|name| name == key) {
            self.secrets.push(key.to_owned());
        }
    }

    /// Takes in the secrets of an object or list read inside this one.
    pub(super) fn absorb_secrets(&mut self, nested: &Shape) {
        for name in &nested.secrets {
            self.mark_secret(name);
        }
    }

    /// The names of the parameters that hold a secret, at any depth (as the field's own name:
    /// `cvc`, not `payment_method[card][cvc]`).
    #[must_use]
    pub fn secret_names(&self) -> &[String] {
        &self.secrets
    }

    /// Marks a list parameter as holding at least one item.
    pub(super) fn non_empty(&mut self, key: &str) {
        if let Some(Schema::Array(array)) = self.schema_of(key) {
            array.min_items = Some(1);
        }
    }

    /// States that the list `key` (read just before) names each item once.
    pub(super) fn unique(&mut self, key: &str) {
        if let Some(Schema::Array(array)) = self.schema_of(key) {
            array.unique_items = true;
        }
    }

    fn schema_of(&mut self, key: &str) -> Option<&mut Schema> {
        self.properties.iter_mut().find(|(name, _)| name == key).map(|(_, schema)| schema)
    }

    /// The parameters and whether each is required, in reading order, each as a client may send
    /// it in a body (see [`as_sent`]).
    pub fn parameters(&self) -> Vec<(String, Schema, bool)> {
        self.parameters_as(as_sent)
    }

    /// As [`Shape::parameters`], for a query string (see [`as_sent_in_query`]). A query's
    /// parameters are each their own, so no rule between them can be stated.
    pub fn query_parameters(&self) -> Vec<(String, Schema, bool)> {
        self.parameters_as(as_sent_in_query)
    }

    fn parameters_as(&self, sent: fn(Schema, bool) -> Schema) -> Vec<(String, Schema, bool)> {
        self.properties
            .iter()
            .map(|(name, schema)| {
                let is_required = self.required.contains(name);
                (name.clone(), sent(schema.clone(), is_required), is_required)
            })
            .collect()
    }

    /// Whether a request must send some parameter: one is required, or one of several is.
    pub fn requires_a_parameter(&self) -> bool {
        !self.required.is_empty()
            || self.rules.iter().any(|rule| matches!(rule, Rule::ExactlyOne(_) | Rule::OneOrAll { .. }))
    }

    /// The parameters as one object schema, with the rules between them; unknown parameters are
    /// refused.
    pub fn into_schema(self) -> Schema {
        let mut object = ObjectBuilder::new()
            .schema_type(Type::Object)
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        for (name, schema, required) in self.parameters() {
            object = object.property(&name, schema);
            if required {
                object = object.required(name);
            }
        }
        if !self.rules.is_empty() {
            // utoipa's object schema has no `allOf` of its own beside its properties: its map of
            // further keywords carries it.
            let rules = self.rules.iter().map(Rule::schema).collect::<Vec<_>>();
            object = object.extensions(Some([("allOf", serde_json::Value::Array(rules))].into_iter().collect()));
        }
        Schema::Object(object.build())
    }
}

/// What a client may send for a parameter of `schema`: a list of strings also as its one item
/// (`a=x` in a form), and an optional parameter also as `null` or `""`, which the service reads as
/// absent.
fn as_sent(schema: Schema, required: bool) -> Schema {
    // Only a list of strings takes one string for a list of one.
    let single_item = match &schema {
        Schema::Array(array) => match &array.items {
            utoipa::openapi::schema::ArrayItems::RefOrSchema(item) => match item.as_ref() {
                RefOr::T(Schema::Object(object)) if accepts_strings(&object.schema_type) => Some(item.as_ref().clone()),
                _ => None,
            },
            utoipa::openapi::schema::ArrayItems::False => None,
        },
        _ => None,
    };
    if required && single_item.is_none() {
        return schema;
    }
    let mut any = AnyOfBuilder::new().item(schema);
    if let Some(item) = single_item {
        any = any.item(item);
    }
    if !required {
        let null = ObjectBuilder::new().schema_type(Type::Null);
        let empty = ObjectBuilder::new().schema_type(Type::String).max_length(Some(0));
        any = any.item(null).item(empty);
    }
    Schema::AnyOf(any.build())
}

/// What a client may send for a query parameter of `schema`: every value is text there, so no
/// `null`; an optional one may be empty (absent), which a choice lists among its values and a
/// pattern allows beside its own; a map is as it is; other kinds are as in a body.
fn as_sent_in_query(schema: Schema, required: bool) -> Schema {
    match schema {
        Schema::Object(mut object) if !required && accepts_strings(&object.schema_type) => {
            if let Some(values) = &mut object.enum_values {
                values.push(serde_json::Value::String(String::new()));
            }
            if let Some(pattern) = &mut object.pattern {
                *pattern = format!("^$|{pattern}");
            }
            Schema::Object(object)
        }
        // A map (`metadata[key]=value`, `created[gte]=…`) is sent by its keys, or not at all; each
        // key's value is text, so never `null`.
        Schema::Object(mut object) if object.schema_type == SchemaType::Type(Type::Object) => {
            for property in object.properties.values_mut() {
                if let RefOr::T(Schema::AnyOf(any)) = property {
                    without_null(any);
                }
            }
            Schema::Object(object)
        }
        // Other kinds as in a body, but never `null`, which no query string can carry (a client
        // leaves such a parameter out).
        other => match as_sent(other, required) {
            Schema::AnyOf(mut any) => {
                without_null(&mut any);
                Schema::AnyOf(any)
            }
            sent => sent,
        },
    }
}

/// `any` without its `null` branch.
fn without_null(any: &mut utoipa::openapi::schema::AnyOf) {
    any.items.retain(
        |item| !matches!(item, RefOr::T(Schema::Object(kind)) if kind.schema_type == SchemaType::Type(Type::Null)),
    );
}

fn accepts_strings(schema_type: &SchemaType) -> bool {
    match schema_type {
        SchemaType::Type(kind) => *kind == Type::String,
        SchemaType::Array(kinds) => kinds.contains(&Type::String),
        SchemaType::AnyValue => false,
    }
}

/// A string of at most `max_chars` characters.
pub(super) fn string(max_chars: usize) -> Schema {
    Schema::Object(
        ObjectBuilder::new().schema_type(Type::String).max_length(Some(max_chars)).pattern(Some(WITHOUT_NUL)).build(),
    )
}

/// One of the strings `names`.
pub(super) fn choice(names: Vec<&'static str>) -> Schema {
    Schema::Object(ObjectBuilder::new().schema_type(Type::String).enum_values(Some(names)).build())
}

/// A string of a given format (`uri`, …) and length.
pub(super) fn formatted_string(max_chars: usize, format: &str) -> Schema {
    let format = utoipa::openapi::SchemaFormat::Custom(format.to_owned());
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .max_length(Some(max_chars))
            .format(Some(format))
            .pattern(Some(WITHOUT_NUL))
            .build(),
    )
}

/// A string, or a whole number sent for it.
pub(super) fn string_or_integer(max_chars: usize) -> Schema {
    let types = SchemaType::from_iter([Type::String, Type::Integer]);
    Schema::Object(
        ObjectBuilder::new().schema_type(types).max_length(Some(max_chars)).pattern(Some(WITHOUT_NUL)).build(),
    )
}

/// A whole number from 1 up to `max_digits` digits, as a number or written in digits (leading
/// zeros allowed).
pub(super) fn positive_whole_number(max_digits: u32) -> Schema {
    let types = SchemaType::from_iter([Type::String, Type::Integer]);
    let maximum = 10_i64.pow(max_digits) - 1;
    let digits = format!("^0*[1-9][0-9]{{0,{}}}$", max_digits - 1);
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(types)
            .minimum(Some(1))
            .maximum(Some(maximum))
            .pattern(Some(digits))
            .max_length(Some(payments_domain::limits::CHOICE_LENGTH))
            .build(),
    )
}

/// A whole number within `minimum..=maximum`, each end a 64-bit integer's when not given.
pub(super) fn integer(minimum: Option<i64>, maximum: Option<i64>) -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Int64)))
            .minimum(Some(minimum.unwrap_or(i64::MIN)))
            .maximum(Some(maximum.unwrap_or(i64::MAX)))
            .build(),
    )
}

/// A whole number within one of `ranges` (each `minimum..=maximum`).
pub(super) fn integer_in_ranges(ranges: &[(i64, i64)]) -> Schema {
    let any = ranges.iter().fold(utoipa::openapi::schema::AnyOfBuilder::new(), |any, &(minimum, maximum)| {
        any.item(integer(Some(minimum), Some(maximum)))
    });
    Schema::AnyOf(any.build())
}

/// `true` or `false`, also as a form writes them (`"true"`, `"True"`, `"1"`, `"false"`, `"False"`,
/// `"0"`) and as `1` or `0`: every spelling [`Params::boolean`](super::Params::boolean) reads.
pub(super) fn boolean() -> Schema {
    // A pattern rather than an enum: client generators make one constant of `true` and `True`.
    let spelled = "^(true|True|1|false|False|0)$";
    Schema::AnyOf(
        AnyOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Boolean))
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some(spelled)))
            .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(1)))
            .build(),
    )
}

/// A list of at most `max_items` items.
pub(super) fn list(item: Schema, max_items: usize) -> Schema {
    Schema::Array(ArrayBuilder::new().items(RefOr::T(item)).max_items(Some(max_items)).build())
}

/// A filter by a map's pairs (`m[key]=value`) or by its keys alone (`m=key`, `m[]=key`): at most
/// `max_keys` of them, keys of 1 to `max_key_chars` characters, values of at most `max_value_chars`.
pub(super) fn key_filter(max_keys: usize, max_key_chars: usize, max_value_chars: usize) -> Schema {
    let key = || {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(Some(1))
            .max_length(Some(max_key_chars))
            .pattern(Some(KEY_CHARACTERS))
    };
    let pairs = string_map(Some(max_keys), Some(max_key_chars), Some(max_value_chars));
    let keys = ArrayBuilder::new().items(RefOr::T(Schema::Object(key().build()))).max_items(Some(max_keys));
    Schema::AnyOf(AnyOfBuilder::new().item(pairs).item(keys).item(key()).build())
}

/// An object of string values: at most `max_keys` keys of at most `max_key_chars` characters each,
/// values of at most `max_value_chars`.
pub(super) fn string_map(
    max_keys: Option<usize>,
    max_key_chars: Option<usize>,
    max_value_chars: Option<usize>,
) -> Schema {
    let value =
        ObjectBuilder::new().schema_type(Type::String).max_length(max_value_chars).pattern(Some(WITHOUT_NUL)).build();
    let names = ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(max_key_chars)
        .pattern(Some(KEY_CHARACTERS))
        .build();
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .additional_properties(Some(AdditionalProperties::RefOr(RefOr::T(Schema::Object(value)))))
            .property_names(Some(Schema::Object(names)))
            .max_properties(max_keys)
            .build(),
    )
}
