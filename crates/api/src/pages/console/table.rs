//! The pages every other resource of the console is shown with: a list (filters, a table, pages)
//! and an object (facts, actions, related tables, its JSON), built from cells that know how to link
//! an id and colour a status.

use super::badge::Badge;
use super::json::href;
use super::{page, Chrome, ListQuery, Pager};
use crate::formatting::pesos;
use actix_web::HttpResponse;
use askama::Template;
use std::borrow::Cow;

/// One cell of a table or one fact: text, perhaps a link, perhaps a status.
pub(super) struct Cell {
    pub text: String,
    pub link: Option<String>,
    /// A status badge's tone (`good`, `bad`, `wait` or ``) when the cell is a status.
    pub tone: Option<&'static str>,
    /// Shown as code (ids).
    pub code: bool,
}

impl Cell {
    pub(super) fn text(text: impl Into<String>) -> Self {
        Self { text: text.into(), link: None, tone: None, code: false }
    }

    /// An object's id, linked to its page when the console has one.
    pub(super) fn id(id: impl Into<String>) -> Self {
        let id = id.into();
        Self { link: href(&id), text: id, tone: None, code: true }
    }

    pub(super) fn status(status: impl Badge) -> Self {
        Self { text: status.name().to_owned(), link: None, tone: Some(status.tone().class()), code: false }
    }

    pub(super) fn pesos(centavos: i64) -> Self {
        Self::text(pesos(centavos))
    }

    /// Text linked to `link`.
    pub(super) fn linked(text: impl Into<String>, link: impl Into<String>) -> Self {
        Self { text: text.into(), link: Some(link.into()), tone: None, code: false }
    }
}

/// A table: its headers and rows.
pub(super) struct Table {
    pub headers: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
}

/// A filter of a list page.
pub(super) struct Filter {
    pub name: &'static str,
    pub label: &'static str,
    pub value: String,
    /// The choices of a select; a text input without.
    pub options: Option<Vec<&'static str>>,
}

impl Filter {
    pub(super) fn text(query: &ListQuery, name: &'static str, label: &'static str) -> Self {
        Self { name, label, value: query.filter(name).to_owned(), options: None }
    }

    pub(super) fn choice(
        query: &ListQuery,
        name: &'static str,
        label: &'static str,
        options: Vec<&'static str>,
    ) -> Self {
        Self { name, label, value: query.filter(name).to_owned(), options: Some(options) }
    }
}

#[derive(Template)]
#[template(path = "console/objects.html")]
struct ObjectsPage<'a> {
    chrome: Chrome,
    title: &'a str,
    path: &'a str,
    filters: Vec<Filter>,
    table: Table,
    pager: Pager,
}

/// A list page at `path`.
pub(super) fn list_page(
    chrome: Chrome,
    title: &str,
    path: &str,
    filters: Vec<Filter>,
    table: Table,
    pager: Pager,
) -> HttpResponse {
    page(ObjectsPage { chrome, title, path, filters, table, pager }.render())
}

/// An input of an action's form.
pub(super) struct Field {
    pub name: &'static str,
    /// A visible input's label; a hidden one has none.
    pub label: Option<&'static str>,
    pub value: String,
}

/// A form that acts on the object.
pub(super) struct ActionForm {
    pub title: &'static str,
    pub path: String,
    pub button: &'static str,
    /// The button's class: `primary`, `secondary` or `danger`.
    pub class: &'static str,
    pub note: Cow<'static, str>,
    pub fields: Vec<Field>,
}

/// What an object's page shows.
pub(super) struct Object {
    pub back: (&'static str, String),
    pub heading: String,
    pub status: Option<Cell>,
    pub id: String,
    pub notice: Option<&'static str>,
    pub facts: Vec<(&'static str, Cell)>,
    pub actions: Vec<ActionForm>,
    /// Related objects, each a titled table.
    pub sections: Vec<(&'static str, Table)>,
    pub json: String,
}

#[derive(Template)]
#[template(path = "console/object.html")]
struct ObjectPage {
    chrome: Chrome,
    object: Object,
}

/// An object's page.
pub(super) fn object_page(chrome: Chrome, object: Object) -> HttpResponse {
    page(ObjectPage { chrome, object }.render())
}
