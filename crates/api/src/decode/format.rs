//! How a request's body is written, as the API reads it: what the decoders and the redaction of
//! what is kept of a body both go by. It depends on nothing of the API, so both can name it.

/// How a body is written, as the API reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFormat {
    Json,
    Form,
}
