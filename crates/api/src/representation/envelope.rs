//! The envelopes around resources: a page of a list, and the answer to a delete.

use payments_application::pagination::Page;
use serde::Serialize;
use utoipa::ToSchema;

/// The contract's list envelope.
#[derive(Serialize)]
pub(crate) struct List<T> {
    resource: &'static str,
    data: Vec<T>,
    has_more: bool,
}

impl<T> List<T> {
    /// The envelope of a page, each item rendered by `render`.
    pub(crate) fn of<'a, S>(page: &'a Page<S>, render: impl FnMut(&'a S) -> T) -> Self {
        Self { resource: "list", data: page.data.iter().map(render).collect(), has_more: page.has_more }
    }

    /// The envelope of items already rendered.
    pub(crate) fn from_items(data: Vec<T>, has_more: bool) -> Self {
        Self { resource: "list", data, has_more }
    }
}

/// The contract's answer to a delete.
#[derive(Serialize, ToSchema)]
#[schema(as = Deleted)]
pub(crate) struct Deleted<'a> {
    id: &'a str,
    resource: &'static str,
    deleted: bool,
}

impl<'a> Deleted<'a> {
    pub(crate) fn new(id: &'a str, resource: &'static str) -> Self {
        Self { id, resource, deleted: true }
    }
}
