//! The CSV files the console sends (a payout's transactions, a page's payments): rows written by the
//! `csv` crate, cells a spreadsheet shows rather than runs, and a file streamed a read at a time, so
//! a file of any length costs the service one read's memory.

use crate::error::ApiError;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::HttpResponse;
use futures_util::StreamExt;
use payments_application::ApplicationError;
use std::future::Future;

/// Writes CSV rows, CRLF-terminated as RFC 4180 has them.
pub(super) struct Rows(csv::Writer<Vec<u8>>);

impl Rows {
    pub(super) fn new() -> Self {
        Self(csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new()))
    }

    /// Writes one row.
    ///
    /// # Errors
    /// When the row cannot be written (never for rows in memory; kept rather than hidden).
    pub(super) fn write<I, T>(&mut self, row: I) -> Result<(), ApplicationError>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        self.0.write_record(row).map_err(failed)
    }

    /// The rows written, as bytes to send.
    ///
    /// # Errors
    /// As [`Self::write`].
    pub(super) fn into_bytes(self) -> Result<Bytes, ApplicationError> {
        self.0.into_inner().map(Bytes::from).map_err(|error| failed(error.into_error().into()))
    }
}

fn failed(error: csv::Error) -> ApplicationError {
    ApplicationError::internal(&format!("a CSV row could not be written: {error}"))
}

/// Text a merchant or a customer wrote, as a spreadsheet cell that shows it rather than runs it: one
/// that starts as a formula does (`=`, `+`, `-`, `@`, a tab, a carriage return) is kept behind a `'`,
/// as OWASP advises against CSV injection.
pub(super) fn spreadsheet_safe(text: Option<String>) -> String {
    let text = text.unwrap_or_default();
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text
    }
}

/// The file `file_name`: `first` (the header and the first read's rows), then what `next` reads
/// after each cursor it answers, until it answers none.
pub(super) fn download<C, F, Fut>(file_name: &str, first: Bytes, after: Option<C>, next: F) -> HttpResponse
where
    C: 'static,
    F: Fn(C) -> Fut + 'static,
    Fut: Future<Output = Result<(Bytes, Option<C>), ApiError>> + 'static,
{
    let rest = futures_util::stream::unfold(after, move |after| {
        let read = after.map(&next);
        async move {
            match read?.await {
                Ok((rows, after)) => Some((Ok(rows), after)),
                Err(error) => Some((Err(error), None)),
            }
        }
    });
    let body = futures_util::stream::once(async move { Ok::<Bytes, ApiError>(first) }).chain(rest);
    HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((header::CONTENT_DISPOSITION, format!("attachment; filename=\"{file_name}\"")))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .streaming(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_a_spreadsheet_would_run_is_shown_instead() {
        for formula in ["=HYPERLINK(\"x\")", "+1", "-1+1", "@SUM(A1)", "\tx"] {
            assert_eq!(spreadsheet_safe(Some(formula.to_owned())), format!("'{formula}"));
        }
        assert_eq!(spreadsheet_safe(Some("Order 7".to_owned())), "Order 7");
        assert_eq!(spreadsheet_safe(None), "");
    }
}
