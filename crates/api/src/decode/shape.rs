//! The shape of a request, recorded by running its decoder on a [`Params`](super::Params) that
//! describes instead of reads: every parameter the decoder asks for, with its type, bounds and
//! whether it is required. The OpenAPI document's request schemas come from here, so they cannot
//! drift from what the service accepts.

use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

/// What every string the service reads must match: no NUL character (PostgreSQL's text cannot hold
/// one, so it is refused everywhere, whatever the backend).
const WITHOUT_NUL: &str = "^[^\\x00]*$";

/// The parameters one decoder reads, in the order it reads them.
#[derive(Default)]
pub struct Shape {
    properties: Vec<(String, Schema)>,
    required: Vec<String>,
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

    /// Marks a list parameter as holding at least one item.
    pub(super) fn non_empty(&mut self, key: &str) {
        if let Some(Schema::Array(array)) = self.schema_of(key) {
            array.min_items = Some(1);
        }
    }

    fn schema_of(&mut self, key: &str) -> Option<&mut Schema> {
        self.properties.iter_mut().find(|(name, _)| name == key).map(|(_, schema)| schema)
    }

    /// The parameters and whether each is required, in reading order.
    pub fn parameters(self) -> Vec<(String, Schema, bool)> {
        let required = self.required;
        self.properties
            .into_iter()
            .map(|(name, schema)| {
                let is_required = required.contains(&name);
                (name, schema, is_required)
            })
            .collect()
    }

    /// The parameters as one object schema; unknown parameters are refused.
    pub fn into_schema(self) -> Schema {
        Self::object_of(self.parameters())
    }

    /// An object schema of `parameters` as [`Shape::parameters`] lists them.
    pub fn object_of(parameters: Vec<(String, Schema, bool)>) -> Schema {
        let mut object = ObjectBuilder::new()
            .schema_type(Type::Object)
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        for (name, schema, required) in parameters {
            object = object.property(&name, schema);
            if required {
                object = object.required(name);
            }
        }
        Schema::Object(object.build())
    }
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

/// A whole number within `minimum..=maximum` when given.
pub(super) fn integer(minimum: Option<i64>, maximum: Option<i64>) -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Int64)))
            .minimum(minimum)
            .maximum(maximum)
            .build(),
    )
}

/// `true` or `false`.
pub(super) fn boolean() -> Schema {
    Schema::Object(ObjectBuilder::new().schema_type(Type::Boolean).build())
}

/// A list of at most `max_items` items.
pub(super) fn list(item: Schema, max_items: usize) -> Schema {
    Schema::Array(ArrayBuilder::new().items(RefOr::T(item)).max_items(Some(max_items)).build())
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
        .pattern(Some(WITHOUT_NUL))
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
