//! Request decoding shared by every resource: the body (JSON, wrapped JSON or Rack-style forms) and
//! the query string become one parameter map, read through [`Params`].

mod body;
pub(crate) mod form;
pub(crate) mod format;
mod json;
pub mod limits;
mod params;
#[cfg(test)]
mod properties;
mod shape;

pub use body::{body_format, read_body, spool_body, BodyParams, BodyRules, QueryParams};
pub use format::BodyFormat;
pub use params::{names, Params, HTTPS_URL, NOT_BLANK, WEB_URL};
pub use shape::Shape;
