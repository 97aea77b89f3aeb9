//! One operation of the API: its method and path, the handler that serves it, and what the OpenAPI
//! document says of it. Each resource lists its endpoints once; the server registers them and the
//! document describes them from that same list.

use crate::decode::{Params, Shape};
use actix_web::{http::Method, web, FromRequest, Handler, Responder, Route};
use std::borrow::Cow;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;
use utoipa::ToSchema;

/// Who may call an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Auth {
    /// Anyone: health checks.
    Nobody,
    /// A secret key.
    SecretKey,
    /// A secret key, or a public key with the object's `client_secret`.
    AnyKey,
}

/// A decoder of parameters, whatever it decodes them into.
type Decoder = Box<dyn Fn(&mut Params)>;

/// Where an operation's parameters come from, and the decoder that reads them.
pub(crate) enum Input {
    /// The body, JSON or a form.
    Body(Decoder),
    /// The query string.
    Query(Decoder),
}

impl Input {
    /// What the decoder asks for.
    pub(crate) fn shape(&self) -> Shape {
        let mut params = Params::describing();
        match self {
            Self::Body(decode) | Self::Query(decode) => decode(&mut params),
        }
        params.into_shape()
    }

    fn of<T>(decode: impl Fn(&mut Params) -> T + 'static) -> Decoder {
        Box::new(move |params| {
            decode(params);
        })
    }
}

/// A schema of the document's components: its name, and a way to collect it with the schemas it
/// refers to.
#[derive(Clone, Copy)]
pub(crate) struct Component {
    pub(crate) name: fn() -> Cow<'static, str>,
    pub(crate) collect: fn(&mut Vec<(String, RefOr<Schema>)>),
}

impl Component {
    pub(crate) fn of<T: ToSchema>() -> Self {
        Self {
            name: T::name,
            collect: |schemas| {
                schemas.push((T::name().into_owned(), T::schema()));
                T::schemas(schemas);
            },
        }
    }

    /// Adds the schema and those it refers to, each once.
    pub(crate) fn collect_into(&self, schemas: &mut Vec<(String, RefOr<Schema>)>) {
        let mut found = Vec::new();
        (self.collect)(&mut found);
        for (name, schema) in found {
            if !schemas.iter().any(|(known, _)| *known == name) {
                schemas.push((name, schema));
            }
        }
    }
}

/// What a successful call answers.
#[derive(Clone)]
pub(crate) enum Output {
    /// One of these resources (a public key sees fewer fields; a deleted object is a tombstone).
    OneOf(Vec<Component>),
    /// A page of a list of these.
    List(Component),
    /// Server-Sent Events, each the JSON of one of these, for as long as the client reads.
    EventStream(Component),
}

impl Output {
    /// The schemas a successful answer may have (a list's items).
    pub(crate) fn components(&self) -> &[Component] {
        match self {
            Self::OneOf(components) => components,
            Self::List(item) | Self::EventStream(item) => std::slice::from_ref(item),
        }
    }
}

/// One method on one path.
pub(crate) struct Endpoint {
    pub(crate) method: Method,
    pub(crate) path: &'static str,
    /// Set on another spelling of a documented path, which serves the same operation.
    pub(crate) alias_of: Option<&'static str>,
    pub(crate) operation_id: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) tag: &'static str,
    pub(crate) auth: Auth,
    pub(crate) input: Option<Input>,
    pub(crate) output: Output,
    pub(crate) route: Route,
}

impl Endpoint {
    /// An operation served by `route`; say what it answers and the rest with the other builders.
    pub(crate) fn new(method: Method, path: &'static str, route: Route) -> Self {
        Self {
            method,
            path,
            alias_of: None,
            operation_id: "",
            summary: "",
            tag: "",
            auth: Auth::SecretKey,
            input: None,
            output: Output::OneOf(Vec::new()),
            route,
        }
    }

    /// `GET path` (and HEAD, without the body), served by `handler`.
    pub(crate) fn get<F, Args>(path: &'static str, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        Self::new(Method::GET, path, super::get_or_head().to(handler))
    }

    /// `POST path`, served by `handler`.
    pub(crate) fn post<F, Args>(path: &'static str, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        Self::new(Method::POST, path, web::post().to(handler))
    }

    /// `PUT path`, served by `handler`.
    pub(crate) fn put<F, Args>(path: &'static str, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        Self::new(Method::PUT, path, web::put().to(handler))
    }

    /// `DELETE path`, served by `handler`.
    pub(crate) fn delete<F, Args>(path: &'static str, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        Self::new(Method::DELETE, path, web::delete().to(handler))
    }

    /// The operation's id in the document (a generated client's method name) and its summary.
    pub(crate) fn named(mut self, operation_id: &'static str, summary: &'static str) -> Self {
        self.operation_id = operation_id;
        self.summary = summary;
        self
    }

    /// The group the document lists the operation under.
    pub(crate) fn tagged(mut self, tag: &'static str) -> Self {
        self.tag = tag;
        self
    }

    /// Who may call it (a secret key unless said otherwise).
    pub(crate) fn auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }

    /// Its body parameters, as `decode` reads them.
    pub(crate) fn body<T>(mut self, decode: impl Fn(&mut Params) -> T + 'static) -> Self {
        self.input = Some(Input::Body(Input::of(decode)));
        self
    }

    /// Its query parameters, as `decode` reads them.
    pub(crate) fn query<T>(mut self, decode: impl Fn(&mut Params) -> T + 'static) -> Self {
        self.input = Some(Input::Query(Input::of(decode)));
        self
    }

    /// It answers `T` (or one of the types named this way: a public key sees fewer fields, a
    /// deleted object is a tombstone).
    pub(crate) fn answers<T: ToSchema>(mut self) -> Self {
        if let Output::OneOf(components) = &mut self.output {
            components.push(Component::of::<T>());
        }
        self
    }

    /// It answers a stream of Server-Sent Events, each the JSON of what it was declared to answer.
    pub(crate) fn event_stream(mut self) -> Self {
        if let Output::OneOf(components) = &self.output {
            if let Some(item) = components.first() {
                self.output = Output::EventStream(*item);
            }
        }
        self
    }

    /// It answers a page of a list of what it was declared to answer.
    pub(crate) fn list(mut self) -> Self {
        if let Output::OneOf(components) = &self.output {
            if let Some(item) = components.first() {
                self.output = Output::List(*item);
            }
        }
        self
    }

    /// Another spelling of `canonical`, served but not documented as a path of its own.
    pub(crate) fn alias_of(mut self, canonical: &'static str) -> Self {
        self.alias_of = Some(canonical);
        self
    }
}
