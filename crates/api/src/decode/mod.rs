//! Request decoding shared by every resource: the body (JSON, wrapped JSON or Rack-style forms) and
//! the query string become one parameter map, read through [`Params`].

mod body;
mod form;
mod params;

pub use body::{read_body, BodyLimit, BodyParams, QueryParams};
pub use params::Params;
