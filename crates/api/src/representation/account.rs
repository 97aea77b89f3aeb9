//! An account as its operator sees it (with its keys, once), and an account's exported test data
//! as JSON lines: a header line, then one stored row per line.

use payments_application::ports::{ArchivedRow, ArchivedRows};
use payments_application::services::account::{TestDataExport, TestDataImport, EXPORT_FORMAT};
use payments_domain::account::{Account, AccountKeys};
use payments_domain::ids::AccountId;
use payments_domain::test_clock::MAX_SECONDS_AHEAD;
use payments_domain::time::Timestamp;
use payments_domain::validation::FieldError;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

/// The account without its keys, as lists show it.
#[must_use]
pub(crate) fn account_json(account: &Account) -> Value {
    json!({
        "id": account.id.as_str(),
        "resource": "account",
        "name": account.name,
        "created_at": account.created_at.unix_seconds(),
    })
}

/// A new account with its keys: the test keys, and the live keys when asked for. Keys are stored
/// as digests, so this is the only time they can be shown.
#[must_use]
pub(crate) fn new_account_json(account: &Account, keys: &AccountKeys, with_live: bool) -> Value {
    let mut value = account_json(account);
    value["test"] = json!({"secret_key": keys.secret_test.reveal(), "public_key": keys.public_test.reveal()});
    if with_live {
        value["live"] = json!({"secret_key": keys.secret_live.reveal(), "public_key": keys.public_live.reveal()});
    }
    value
}

/// An account deleted.
#[must_use]
pub(crate) fn deleted_account_json(id: &AccountId) -> Value {
    json!({"id": id.as_str(), "resource": "account", "deleted": true})
}

/// An import done: how many rows it stored.
#[must_use]
pub(crate) fn imported_json(id: &AccountId, rows: usize) -> Value {
    json!({"id": id.as_str(), "resource": "account", "imported_rows": rows})
}

/// How many rows of each collection deleting an account's data removed.
#[must_use]
pub(crate) fn deleted_json(id: &AccountId, deleted: &[(&'static str, u64)]) -> Value {
    let counts: Map<String, Value> = deleted.iter().map(|(name, count)| ((*name).to_owned(), json!(count))).collect();
    json!({"id": id.as_str(), "resource": "account", "deleted_test_data": counts})
}

/// The first line of an export.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: String,
    /// The schema version the rows have the fields of; absent from exports made before it was
    /// written (`docs/operations.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema: Option<String>,
    account: String,
    exported_at: i64,
    test_clock_offset_ms: i64,
    rows: usize,
}

/// A row's line.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    collection: String,
    fields: Map<String, Value>,
}

/// The export as JSON lines, each ending with a newline.
#[must_use]
pub(crate) fn export_lines(export: &TestDataExport, exported_at: Timestamp) -> String {
    let header = Header {
        format: EXPORT_FORMAT.to_owned(),
        schema: Some(export.schema.clone()),
        account: export.account_id.to_string(),
        exported_at: exported_at.unix_seconds(),
        test_clock_offset_ms: export.test_clock_offset_ms,
        rows: export.rows.len(),
    };
    let mut text = json!(header).to_string();
    text.push('\n');
    for row in &export.rows {
        text.push_str(&json!(Line { collection: row.collection.clone(), fields: row.fields.clone() }).to_string());
        text.push('\n');
    }
    text
}

/// Opens an export for import: reads its header, and leaves its rows in `file`, read as they are
/// stored ([`ExportFile`]). Every problem names its line.
///
/// # Errors
/// `parameter_invalid` on `line 1` (or on `body`) for a file that does not start as an export.
pub(crate) fn open_export(file: File) -> Result<TestDataImport, FieldError> {
    (&file).seek(SeekFrom::Start(0)).map_err(|_| FieldError::invalid("body", "The export cannot be read."))?;
    let first = match (Lines { reader: BufReader::new(&file) }).next() {
        None => return Err(FieldError::invalid("body", "The export is empty.")),
        Some(Err(reason)) => return Err(FieldError::invalid("line 1", reason)),
        Some(Ok(first)) => first,
    };
    let header: Header =
        serde_json::from_str(&first).ok().filter(|header: &Header| header.format == EXPORT_FORMAT).ok_or_else(
            || FieldError::invalid("line 1", format!("The first line is not the header of a {EXPORT_FORMAT} export.")),
        )?;
    if !(0..=MAX_SECONDS_AHEAD * 1_000).contains(&header.test_clock_offset_ms) {
        return Err(FieldError::invalid(
            "line 1",
            format!("The test clock stands 0 to {MAX_SECONDS_AHEAD} seconds ahead of real time, never more."),
        ));
    }
    Ok(TestDataImport {
        schema: header.schema,
        test_clock_offset_ms: header.test_clock_offset_ms,
        declared_rows: header.rows,
        rows: Box::new(ExportFile { file }),
    })
}

/// An export's rows in a file, read from the file each time the store goes through them (the
/// store reads them again to check what it stored), never all held in memory.
struct ExportFile {
    file: File,
}

impl ArchivedRows for ExportFile {
    fn records(&self) -> Box<dyn Iterator<Item = Result<ArchivedRow, String>> + '_> {
        let mut file = &self.file;
        if let Err(error) = file.seek(SeekFrom::Start(0)) {
            return Box::new(std::iter::once(Err(format!("The export cannot be read again: {error}."))));
        }
        // The header is line 1; the store counts rows from 0, which the service names line 2.
        let lines = Lines { reader: BufReader::new(file) }.skip(1);
        Box::new(lines.map(|line| {
            let Line { collection, fields } =
                serde_json::from_str(&line?).map_err(|error| format!("The line is not an exported row: {error}."))?;
            Ok(ArchivedRow { collection, fields })
        }))
    }
}

/// The longest line an export may hold: no stored row comes near it, and a longer one is refused
/// before it is held whole in memory.
const MAX_LINE_BYTES: usize = 1 << 20;

/// The lines of a file (without their `\n` or `\r\n`), each at most [`MAX_LINE_BYTES`] long.
struct Lines<R> {
    reader: R,
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = Result<String, String>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut line = Vec::new();
        let limit = u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX) + 1;
        match (&mut self.reader).take(limit).read_until(b'\n', &mut line) {
            Ok(0) => None,
            Err(_) => Some(Err("The line cannot be read.".to_owned())),
            Ok(_) if line.last() != Some(&b'\n') && line.len() > MAX_LINE_BYTES => {
                Some(Err(format!("The line is longer than {MAX_LINE_BYTES} bytes.")))
            }
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Some(String::from_utf8(line).map_err(|_| "The line is not UTF-8 text.".to_owned()))
            }
        }
    }
}
