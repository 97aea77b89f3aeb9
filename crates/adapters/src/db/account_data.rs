//! An account's rows across every table, taken as a whole: deleting one mode's or the whole
//! account's, and a test mode's objects as rows, exported and imported into another account.
//!
//! The statements are written per backend in SQL: the tables are walked by name, and an exported
//! row carries the columns the database has, so an export reads back into any database at the same
//! migration. Rows go out without `seq` (each database numbers its own), `txid` (the importing
//! transaction's), `account_id` and `livemode` (those of the importing account's test mode).

use super::connection::AnyConnection;
use super::error::{is_unavailable, store_error};
use super::tables;
use diesel::result::{DatabaseErrorKind, Error};
use diesel::sql_types::{Bool, Text};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl, SqliteConnection};
use payments_application::ports::{ArchivedRow, ArchivedRows, DeletedCounts, StoreError};
use serde_json::{Map, Value};

/// A statement about an account's rows in some modes, written with PostgreSQL's placeholders: `$1`
/// the account, `$2` and `$3` the modes (`livemode IN ($2, $3)`).
macro_rules! in_modes {
    ($sql:expr, $account:expr, $modes:expr) => {
        diesel::sql_query($sql).bind::<Text, _>($account).bind::<Bool, _>($modes.0).bind::<Bool, _>($modes.1)
    };
}

/// Columns an exported row leaves out: the importing database and account supply them.
const SUPPLIED_ON_IMPORT: [&str; 4] = ["seq", "txid", "account_id", "livemode"];

#[derive(QueryableByName)]
struct JsonText {
    #[diesel(sql_type = Text)]
    json: String,
}

#[derive(QueryableByName)]
struct Column {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    declared: String,
    /// Whether a row may leave it out: it is nullable or has a default.
    #[diesel(sql_type = Bool)]
    optional: bool,
}

/// Has Citus run the rest of the transaction over one connection per node, as a transaction that
/// reads or writes several shards and then changes a reference table (`accounts`: an import moves
/// the test clock) must; said before the transaction's first statement on a distributed table.
/// Plain PostgreSQL takes the setting as a placeholder and ignores it; SQLite has none.
fn one_connection_per_node(connection: &mut AnyConnection) -> Result<(), StoreError> {
    match connection {
        AnyConnection::Postgresql(pg) => diesel::connection::SimpleConnection::batch_execute(
            pg,
            "SET LOCAL citus.multi_shard_modify_mode TO 'sequential'",
        )
        .map_err(store_error),
        AnyConnection::Sqlite(_) => Ok(()),
    }
}

/// Holds the account's row to the end of the transaction, on PostgreSQL: a request of the account
/// writing meanwhile (its rows name the account) finishes first, and one that starts waits and then
/// finds the rows it names gone, so no row is written between two of the deletes. SQLite runs one
/// writing transaction at a time already.
pub(super) fn lock(connection: &mut AnyConnection, account: &str) -> Result<(), StoreError> {
    one_connection_per_node(connection)?;
    match connection {
        AnyConnection::Postgresql(pg) => diesel::sql_query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE")
            .bind::<Text, _>(account)
            .execute(pg)
            .map(drop)
            .map_err(store_error),
        AnyConnection::Sqlite(_) => Ok(()),
    }
}

/// Deletes the account's rows of the test mode (`test_only`) or of both modes, console sign-ins
/// kept with the test mode's; answers how many rows of each table went.
pub(super) fn delete(
    connection: &mut AnyConnection,
    account: &str,
    test_only: bool,
) -> Result<DeletedCounts, StoreError> {
    let mut deleted = Vec::new();
    for table in tables::deleted_children_first() {
        if test_only && table == "console_sessions" {
            continue;
        }
        // Test mode alone, or both modes.
        let modes = (false, !test_only);
        let sql = format!("DELETE FROM {table} WHERE account_id = $1 AND livemode IN ($2, $3)");
        let count = match connection {
            AnyConnection::Postgresql(pg) => in_modes!(sql, account, modes).execute(pg),
            AnyConnection::Sqlite(sqlite) => in_modes!(sqlite_placeholders(&sql), account, modes).execute(sqlite),
        }
        .map_err(store_error)?;
        deleted.push((table, count as u64));
    }
    Ok(deleted)
}

/// Whether the account's test mode holds a row of any exported table.
pub(super) fn has_test_data(connection: &mut AnyConnection, account: &str) -> Result<bool, StoreError> {
    for (table, _) in tables::exported_parents_first() {
        let sql = format!("SELECT '' AS json FROM {table} WHERE account_id = $1 AND livemode IN ($2, $3) LIMIT 1");
        if !load_in_modes(connection, &sql, account, (false, false))?.is_empty() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The test mode's rows of every exported table, parents first; [`StoreError::TooMany`] past
/// `limit` rows.
pub(super) fn export(
    connection: &mut AnyConnection,
    account: &str,
    limit: usize,
) -> Result<Vec<ArchivedRow>, StoreError> {
    // One snapshot for every table, so that no row names a parent written after its table was read.
    let texts = match connection {
        AnyConnection::Postgresql(pg) => pg
            .build_transaction()
            .read_only()
            .repeatable_read()
            .run(|pg| read_rows(pg, account, limit, postgres_export)),
        AnyConnection::Sqlite(sqlite) => sqlite.transaction(|sqlite| read_rows(sqlite, account, limit, sqlite_export)),
    }
    .map_err(store_error)?;
    let mut rows = Vec::new();
    for (table, text) in texts {
        if rows.len() == limit {
            return Err(StoreError::TooMany(limit));
        }
        let Value::Object(mut fields) = serde_json::from_str(&text).map_err(|e| StoreError::Other(e.into()))? else {
            return Err(StoreError::Other(format!("a row of {table} did not read as a JSON object").into()));
        };
        fields.retain(|name, _| !SUPPLIED_ON_IMPORT.contains(&name.as_str()));
        rows.push(ArchivedRow { collection: table.to_owned(), fields });
    }
    Ok(rows)
}

/// The test mode's rows of every exported table as JSON texts, one more than `limit` at most.
fn read_rows<C>(
    connection: &mut C,
    account: &str,
    limit: usize,
    read_table: fn(&mut C, &str, &str, &str, usize) -> diesel::QueryResult<Vec<JsonText>>,
) -> diesel::QueryResult<Vec<(&'static str, String)>> {
    let mut texts = Vec::new();
    for (table, order) in tables::exported_parents_first() {
        let left = (limit + 1).saturating_sub(texts.len());
        if left == 0 {
            break;
        }
        texts.extend(read_table(connection, table, order, account, left)?.into_iter().map(|row| (table, row.json)));
    }
    Ok(texts)
}

fn postgres_export(
    connection: &mut PgConnection,
    table: &str,
    order: &str,
    account: &str,
    limit: usize,
) -> diesel::QueryResult<Vec<JsonText>> {
    diesel::sql_query(format!(
        "SELECT row_to_json(t)::text AS json FROM {table} AS t \
         WHERE account_id = $1 AND livemode = $2 ORDER BY {order} LIMIT {limit}"
    ))
    .bind::<Text, _>(account)
    .bind::<Bool, _>(false)
    .load(connection)
}

fn sqlite_export(
    connection: &mut SqliteConnection,
    table: &str,
    order: &str,
    account: &str,
    limit: usize,
) -> diesel::QueryResult<Vec<JsonText>> {
    let fields = sqlite_columns(connection, table)?
        .iter()
        .map(|column| {
            let value = if column.declared.eq_ignore_ascii_case("BOOLEAN") {
                // Written as JSON booleans, as PostgreSQL writes them.
                format!(
                    "CASE WHEN \"{0}\" IS NULL THEN NULL ELSE json(CASE WHEN \"{0}\" THEN 'true' ELSE 'false' END) END",
                    column.name
                )
            } else {
                format!("\"{}\"", column.name)
            };
            format!("'{}', {value}", column.name)
        })
        .collect::<Vec<_>>()
        .join(", ");
    diesel::sql_query(format!(
        "SELECT json_object({fields}) AS json FROM {table} \
         WHERE account_id = ?1 AND livemode = ?2 ORDER BY {order} LIMIT {limit}"
    ))
    .bind::<Text, _>(account)
    .bind::<Bool, _>(false)
    .load(connection)
}

/// Stores exported rows in the account's test mode, in the order given; a row that cannot be
/// stored is refused with its index and why.
pub(super) fn import(
    connection: &mut AnyConnection,
    account: &str,
    rows: &dyn ArchivedRows,
    from_an_older_schema: bool,
) -> Result<usize, StoreError> {
    one_connection_per_node(connection)?;
    let mut columns_of: Vec<(&str, Vec<Column>)> = Vec::new();
    let mut stored = 0;
    for (index, row) in rows.records().enumerate() {
        let row = row.map_err(|reason| StoreError::RowRefused { index, reason })?;
        let refuse = |reason: String| StoreError::RowRefused { index, reason };
        let Some(table) =
            tables::exported_parents_first().into_iter().map(|(table, _)| table).find(|t| *t == row.collection)
        else {
            return Err(refuse(format!("\"{}\" is not a collection an export holds.", row.collection)));
        };
        if !columns_of.iter().any(|(known, _)| *known == table) {
            let columns = table_columns(connection, table)?;
            columns_of.push((table, columns));
        }
        let columns = columns_of
            .iter()
            .find(|(known, _)| *known == table)
            .map(|(_, columns)| columns.as_slice())
            .unwrap_or_default();
        check_fields(&row.fields, columns, from_an_older_schema)
            .map_err(|reason| refuse(format!("The {table} row {reason}")))?;
        if let Some(id) = row.fields.get("id").and_then(Value::as_str) {
            if id_is_taken(connection, table, id)? {
                return Err(refuse(clash(table, id, "its id")));
            }
        }
        let mut fields = row.fields.clone();
        fields.insert("account_id".to_owned(), Value::String(account.to_owned()));
        fields.insert("livemode".to_owned(), Value::Bool(false));
        let json = Value::Object(fields).to_string();
        // A column an older export lacks is left to its default.
        let mut names: Vec<String> =
            columns.iter().filter(|column| row.fields.contains_key(&column.name)).map(|c| c.name.clone()).collect();
        names.extend(["account_id".to_owned(), "livemode".to_owned()]);
        let quoted = names.iter().map(|name| format!("\"{name}\"")).collect::<Vec<_>>().join(", ");
        let stored_row = match connection {
            AnyConnection::Postgresql(pg) => diesel::sql_query(format!(
                "INSERT INTO {table} ({quoted}) SELECT {quoted} FROM json_populate_record(NULL::{table}, $1::json)"
            ))
            .bind::<Text, _>(&json)
            .execute(pg),
            AnyConnection::Sqlite(sqlite) => {
                let values =
                    names.iter().map(|name| format!("json_extract(?1, '$.\"{name}\"')")).collect::<Vec<_>>().join(", ");
                diesel::sql_query(format!("INSERT INTO {table} ({quoted}) VALUES ({values})"))
                    .bind::<Text, _>(&json)
                    .execute(sqlite)
            }
        };
        stored_row.map_err(|error| refused(index, table, &row, error))?;
        stored += 1;
    }
    refuse_foreign_references(connection, account, rows)?;
    if from_an_older_schema {
        // An export from before the ledger holds payments and refunds without their entries.
        let sql = match connection {
            AnyConnection::Postgresql(_) => LEDGER_OF_EARLIER_PAYMENTS.0,
            AnyConnection::Sqlite(_) => LEDGER_OF_EARLIER_PAYMENTS.1,
        };
        diesel::connection::SimpleConnection::batch_execute(connection, sql).map_err(store_error)?;
    }
    Ok(stored)
}

/// Whether `table` holds a row with `id` in any account. PostgreSQL keys a row by its id and its
/// account (so that it can be distributed by account), so an id stored in one account would not stop
/// an insert of the same id in another; ids are drawn at random, so only an import can repeat one.
fn id_is_taken(connection: &mut AnyConnection, table: &str, id: &str) -> Result<bool, StoreError> {
    #[derive(QueryableByName)]
    struct Taken {
        #[diesel(sql_type = Bool)]
        taken: bool,
    }
    let sql = |placeholder: &str| format!("SELECT EXISTS (SELECT 1 FROM {table} WHERE id = {placeholder}) AS taken");
    let taken: Taken = match connection {
        AnyConnection::Postgresql(pg) => diesel::sql_query(sql("$1")).bind::<Text, _>(id).get_result(pg),
        AnyConnection::Sqlite(sqlite) => diesel::sql_query(sql("?1")).bind::<Text, _>(id).get_result(sqlite),
    }
    .map_err(store_error)?;
    Ok(taken.taken)
}

/// The migration that gives earlier payments and refunds their ledger entries (PostgreSQL's, then
/// SQLite's): it adds only what is missing, so an import from an older schema runs it again.
const LEDGER_OF_EARLIER_PAYMENTS: (&str, &str) = (
    include_str!("../../../../migrations/postgres/2026-12-03-000028_ledger_of_earlier_payments/up.sql"),
    include_str!("../../../../migrations/sqlite/2026-12-03-000028_ledger_of_earlier_payments/up.sql"),
);

/// The migrations applied to the database, oldest first: the versions of its schema.
pub(super) fn schema_versions(connection: &mut AnyConnection) -> Result<Vec<String>, StoreError> {
    let sql = "SELECT version AS json FROM __diesel_schema_migrations ORDER BY version";
    let versions: Vec<JsonText> = match connection {
        AnyConnection::Postgresql(pg) => diesel::sql_query(sql).load(pg),
        AnyConnection::Sqlite(sqlite) => diesel::sql_query(sql).load(sqlite),
    }
    .map_err(store_error)?;
    Ok(versions.into_iter().map(|version| version.json).collect())
}

/// Refuses the first imported row that names an object of another account or mode: of the ids the
/// account's rows name that it does not hold (an object since deleted, or another's), one stored
/// anywhere. The first query keeps to the account (on Citus, to its worker); the second asks every
/// account, once for each such id.
fn refuse_foreign_references(
    connection: &mut AnyConnection,
    account: &str,
    rows: &dyn ArchivedRows,
) -> Result<(), StoreError> {
    for (table, column, parent) in tables::references() {
        let sql = format!(
            "SELECT DISTINCT c.{column} AS json FROM {table} AS c \
             WHERE c.account_id = $1 AND c.livemode IN ($2, $3) AND c.{column} IS NOT NULL \
             AND NOT EXISTS (SELECT 1 FROM {parent} AS p WHERE p.account_id = c.account_id \
             AND p.livemode IN ($2, $3) AND p.id = c.{column})"
        );
        for missing in load_in_modes(connection, &sql, account, (false, false))? {
            if !id_is_taken(connection, parent, &missing.json)? {
                continue;
            }
            // The rows are read again to find the line that names it.
            let index = rows
                .records()
                .position(|row| {
                    row.is_ok_and(|row| {
                        row.collection == table && row.fields.get(column).and_then(Value::as_str) == Some(&missing.json)
                    })
                })
                .unwrap_or_default();
            return Err(StoreError::RowRefused {
                index,
                reason: format!(
                    "The {table} row's {column} names {}, an object of another account or mode.",
                    missing.json
                ),
            });
        }
    }
    Ok(())
}

/// The rows an [`in_modes!`] statement selects.
fn load_in_modes(
    connection: &mut AnyConnection,
    sql: &str,
    account: &str,
    modes: (bool, bool),
) -> Result<Vec<JsonText>, StoreError> {
    match connection {
        AnyConnection::Postgresql(pg) => in_modes!(sql, account, modes).load(pg),
        AnyConnection::Sqlite(sqlite) => in_modes!(sqlite_placeholders(sql), account, modes).load(sqlite),
    }
    .map_err(store_error)
}

/// PostgreSQL's `$1` placeholders as SQLite's `?1`.
fn sqlite_placeholders(sql: &str) -> String {
    let mut text = String::with_capacity(sql.len());
    let mut characters = sql.chars().peekable();
    while let Some(character) = characters.next() {
        let numbered = character == '$' && characters.peek().is_some_and(char::is_ascii_digit);
        text.push(if numbered { '?' } else { character });
    }
    text
}

/// Why a row's fields are not the table's columns with values of their types, if they are not.
/// (SQLite would store a text in an integer column and read it back as 0.) A row exported
/// `from_an_older_schema` may lack the columns a later migration added with a default or nullable.
fn check_fields(fields: &Map<String, Value>, columns: &[Column], from_an_older_schema: bool) -> Result<(), String> {
    let unknown: Vec<&str> =
        fields.keys().filter(|name| !columns.iter().any(|c| &c.name == *name)).map(String::as_str).collect();
    if !unknown.is_empty() {
        return Err(format!("has fields this version does not store: {}.", unknown.join(", ")));
    }
    let missing: Vec<&str> = columns
        .iter()
        .filter(|c| {
            let may_lack = from_an_older_schema && c.optional;
            !fields.contains_key(&c.name) && !may_lack
        })
        .map(|c| c.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!("lacks fields this version stores: {}.", missing.join(", ")));
    }
    for column in columns {
        let declared = column.declared.to_ascii_lowercase();
        let Some(value) = fields.get(&column.name) else { continue };
        let (fits, expected) = match value {
            Value::Null => (true, ""),
            // The API never stores one, and PostgreSQL refuses it where SQLite would keep it; nor one
            // written as a JSON escape in a column that holds JSON (metadata), which becomes one when read.
            Value::String(text) if text.contains('\0') || holds_an_escaped_nul(text) => {
                (false, "text without the NUL character")
            }
            value if declared.contains("int") => (value.is_i64(), "a whole number"),
            value if declared.starts_with("bool") => (value.is_boolean(), "true or false"),
            value => (value.is_string(), "a string"),
        };
        if !fits {
            return Err(format!("has {} where {expected} is stored.", column.name));
        }
    }
    Ok(())
}

/// Whether `text` holds the JSON escape of the NUL character (`\u0000`, in any case), not itself
/// escaped.
fn holds_an_escaped_nul(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        let escape = &rest[at + 1..];
        if escape.get(..5).is_some_and(|code| code.eq_ignore_ascii_case("u0000")) {
            return true;
        }
        // Whatever the backslash escapes (another backslash too) is not the start of an escape.
        rest = escape.chars().next().map_or("", |escaped| &escape[escaped.len_utf8()..]);
    }
    false
}

/// The database's refusal of a row, said for the operator; a lost connection stays a store error.
fn refused(index: usize, table: &str, row: &ArchivedRow, error: Error) -> StoreError {
    let Error::DatabaseError(kind, info) = &error else { return store_error(error) };
    if is_unavailable(info.message()) || matches!(kind, DatabaseErrorKind::ClosedConnection) {
        return store_error(error);
    }
    let id = row.fields.get("id").and_then(Value::as_str).unwrap_or("without an id");
    let reason = match kind {
        DatabaseErrorKind::UniqueViolation => clash(table, id, info.constraint_name().unwrap_or("a unique key")),
        DatabaseErrorKind::ForeignKeyViolation => {
            format!("The {table} row {id} names an object that no earlier line holds.")
        }
        _ => format!("The {table} row {id} cannot be stored: {}", info.message()),
    };
    StoreError::RowRefused { index, reason }
}

/// Why a row that clashes with a stored one on `key` is refused.
fn clash(table: &str, id: &str, key: &str) -> String {
    format!(
        "The {table} row {id} clashes with a stored row ({key}): ids are unique across all the accounts of a \
         database, so an export imports into one account of each database."
    )
}

/// The table's columns an exported row carries.
fn table_columns(connection: &mut AnyConnection, table: &str) -> Result<Vec<Column>, StoreError> {
    let columns = match connection {
        AnyConnection::Postgresql(pg) => postgres_columns(pg, table),
        AnyConnection::Sqlite(sqlite) => sqlite_columns(sqlite, table),
    }
    .map_err(store_error)?;
    Ok(columns.into_iter().filter(|column| !SUPPLIED_ON_IMPORT.contains(&column.name.as_str())).collect())
}

fn postgres_columns(connection: &mut PgConnection, table: &str) -> diesel::QueryResult<Vec<Column>> {
    diesel::sql_query(
        "SELECT column_name::text AS name, data_type::text AS declared, \
         (is_nullable = 'YES' OR column_default IS NOT NULL) AS optional FROM information_schema.columns \
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
    )
    .bind::<Text, _>(table)
    .load(connection)
}

fn sqlite_columns(connection: &mut SqliteConnection, table: &str) -> diesel::QueryResult<Vec<Column>> {
    diesel::sql_query(
        "SELECT name, type AS declared, (\"notnull\" = 0 OR dflt_value IS NOT NULL) AS optional \
         FROM pragma_table_info(?1) ORDER BY cid",
    )
    .bind::<Text, _>(table)
    .load(connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escaped_nul_is_found_and_an_escaped_backslash_is_not_one() {
        for (text, holds) in [
            (r#"{"k":"v\u00001"}"#, true),
            (r#"{"k":"v\U0000"}"#, true),
            (r#"{"k":"v\\u0000"}"#, false),
            (r#"{"k":"é\u0000"}"#, true),
            (r#"{"k":"v\u0001"}"#, false),
            ("plain", false),
        ] {
            assert_eq!(holds_an_escaped_nul(text), holds, "{text}");
        }
    }
}
