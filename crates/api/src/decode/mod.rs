//! Request decoding shared by every resource: the body (JSON, wrapped JSON or Rack-style forms) and
//! the query string become one parameter map, read through [`Params`].

mod body;
pub(crate) mod form;
mod json;
pub mod limits;
mod params;
#[cfg(test)]
mod properties;
mod shape;

pub use body::{body_format, read_body, spool_body, BodyFormat, BodyParams, BodyRules, QueryParams};
pub use params::{names, Params, HTTPS_URL, NOT_BLANK, WEB_URL};
pub use shape::Shape;
