//! Cursor pagination of lists: newest first, `after` an id for older items, `before` for newer.

use crate::error::ApplicationError;
use crate::ports::StoreError;
use payments_domain::metadata::Metadata;
use payments_domain::validation::{ErrorCode, FieldError};

/// Where a page starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    /// Items older than the one with this id.
    After(String),
    /// Items newer than the one with this id.
    Before(String),
}

/// One condition of a list's metadata filter: the object's metadata has `key`, with exactly `value`
/// when one is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataMatch {
    pub key: String,
    pub value: Option<String>,
}

impl MetadataMatch {
    /// Whether `metadata` meets this condition.
    #[must_use]
    pub fn matches(&self, metadata: Option<&Metadata>) -> bool {
        let found = metadata.and_then(|metadata| metadata.pairs().get(&self.key));
        match (&self.value, found) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(expected), Some(found)) => expected == found,
        }
    }
}

/// A validated page request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    limit: u32,
    cursor: Option<Cursor>,
}

impl PageRequest {
    pub const DEFAULT_LIMIT: u32 = 10;
    pub const MAX_LIMIT: u32 = 100;

    /// # Errors
    /// A field error on `limit` outside 1..=100, or on `before` when both cursors are given.
    pub fn new(limit: Option<i64>, after: Option<String>, before: Option<String>) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let limit = match limit {
            None => Self::DEFAULT_LIMIT,
            Some(limit) if limit < 1 => {
                errors.push(FieldError::new(
                    "limit",
                    ErrorCode::ParameterBelowMinimum,
                    "The limit must be at least 1.",
                ));
                Self::DEFAULT_LIMIT
            }
            Some(limit) => u32::try_from(limit).ok().filter(|l| *l <= Self::MAX_LIMIT).unwrap_or_else(|| {
                errors.push(FieldError::new(
                    "limit",
                    ErrorCode::ParameterAboveMaximum,
                    format!("The limit must be at most {}.", Self::MAX_LIMIT),
                ));
                Self::DEFAULT_LIMIT
            }),
        };
        let cursor = match (after, before) {
            (Some(_), Some(_)) => {
                errors.push(FieldError::invalid("before", "Give either after or before, not both."));
                None
            }
            (Some(after), None) => Some(Cursor::After(after)),
            (None, Some(before)) => Some(Cursor::Before(before)),
            (None, None) => None,
        };
        if errors.is_empty() {
            Ok(Self { limit, cursor })
        } else {
            Err(errors)
        }
    }

    /// The newest `limit` (at least 1, at most [`Self::MAX_LIMIT`]).
    #[must_use]
    pub fn newest(limit: u32) -> Self {
        Self { limit: limit.clamp(1, Self::MAX_LIMIT), cursor: None }
    }

    #[must_use]
    pub fn limit(&self) -> u32 {
        self.limit
    }

    #[must_use]
    pub fn cursor(&self) -> Option<&Cursor> {
        self.cursor.as_ref()
    }

    /// Turns a repository's "unknown cursor" into a parameter error naming the cursor.
    #[must_use]
    pub fn explain(&self, error: StoreError) -> ApplicationError {
        match (error, &self.cursor) {
            (StoreError::UnknownCursor, Some(cursor)) => {
                let (parameter, id) = match cursor {
                    Cursor::After(id) => ("after", id),
                    Cursor::Before(id) => ("before", id),
                };
                ApplicationError::invalid(FieldError::missing(
                    parameter,
                    format!("No object with id {id} to page from."),
                ))
            }
            (error, _) => error.into(),
        }
    }
}

impl Default for PageRequest {
    fn default() -> Self {
        Self { limit: Self::DEFAULT_LIMIT, cursor: None }
    }
}

/// One page of a list, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub has_more: bool,
}

impl<T> Page<T> {
    /// Builds a page from rows fetched with one extra row beyond `limit`.
    ///
    /// `rows` are in fetch order: newest first for `after` or no cursor, oldest first for `before`
    /// (which fetches upwards from the cursor); the page is always returned newest first.
    #[must_use]
    pub fn from_overfetched(mut rows: Vec<T>, request: &PageRequest) -> Self {
        let limit = request.limit() as usize;
        let has_more = rows.len() > limit;
        rows.truncate(limit);
        if matches!(request.cursor(), Some(Cursor::Before(_))) {
            rows.reverse();
        }
        Self { data: rows, has_more }
    }

    #[must_use]
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page { data: self.data.into_iter().map(f).collect(), has_more: self.has_more }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_defaults_to_10_and_stays_within_1_to_100() {
        assert_eq!(PageRequest::new(None, None, None).unwrap().limit(), 10);
        assert_eq!(PageRequest::new(Some(100), None, None).unwrap().limit(), 100);
        assert_eq!(PageRequest::new(Some(0), None, None).unwrap_err()[0].code, ErrorCode::ParameterBelowMinimum);
        assert_eq!(PageRequest::new(Some(101), None, None).unwrap_err()[0].code, ErrorCode::ParameterAboveMaximum);
        let errors = PageRequest::new(None, Some("a".into()), Some("b".into())).unwrap_err();
        assert_eq!(
            errors.iter().map(|e| (e.parameter.as_str(), e.code)).collect::<Vec<_>>(),
            vec![("before", ErrorCode::ParameterInvalid)]
        );
    }

    #[test]
    fn an_overfetched_page_reports_more_and_is_newest_first() {
        let request = PageRequest::new(Some(2), None, Some("x".into())).unwrap();
        let page = Page::from_overfetched(vec![1, 2, 3], &request);
        assert_eq!(page, Page { data: vec![2, 1], has_more: true });
        let request = PageRequest::new(Some(2), None, None).unwrap();
        assert_eq!(Page::from_overfetched(vec![3, 2], &request), Page { data: vec![3, 2], has_more: false });
    }
}
