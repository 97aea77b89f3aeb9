//! How the pages and the e-mails write amounts, dates and a statement's lines for people.

use payments_domain::billing_statement::BillingStatement;
use payments_domain::time::Timestamp;

/// A date as people read it: `December 1, 2026` (UTC).
pub(crate) fn long_date(at: Timestamp) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let (year, month, day) = at.civil_date();
    let name = MONTHS.get(month.saturating_sub(1) as usize).copied().unwrap_or_default();
    format!("{name} {day}, {year}")
}

/// Centavos as pesos with thousands separators: `123456` is `₱1,234.56`.
pub(crate) fn pesos(centavos: i64) -> String {
    // A refund's line of a payout is negative: the sign goes before the peso sign.
    let sign = if centavos < 0 { "-" } else { "" };
    let centavos = centavos.unsigned_abs();
    let whole = (centavos / 100).to_string();
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{sign}₱{grouped}.{:02}", centavos % 100)
}

/// A line item as the page and the e-mail show it.
pub(crate) struct StatementLine<'a> {
    pub(crate) description: &'a str,
    pub(crate) quantity: i64,
    pub(crate) unit_price: String,
    pub(crate) line_total: String,
}

/// The statement's line items, in order, with their prices in pesos.
pub(crate) fn statement_lines(statement: &BillingStatement) -> Vec<StatementLine<'_>> {
    statement
        .line_items()
        .iter()
        .map(|item| StatementLine {
            description: &item.description,
            quantity: item.quantity,
            unit_price: pesos(item.unit_price),
            line_total: pesos(item.total()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{long_date, pesos};
    use payments_domain::time::Timestamp;

    #[test]
    fn dates_read_as_month_day_year() {
        assert_eq!(long_date(Timestamp::from_unix_seconds(1_798_761_599)), "December 31, 2026");
        assert_eq!(long_date(Timestamp::from_unix_seconds(951_782_400)), "February 29, 2000");
    }

    #[test]
    fn pesos_have_separators_and_two_decimals() {
        assert_eq!(pesos(2_000), "₱20.00");
        assert_eq!(pesos(123_450), "₱1,234.50");
        assert_eq!(pesos(5_999_999_999), "₱59,999,999.99");
        assert_eq!(pesos(-50_000), "-₱500.00", "a refund's line of a payout");
        assert_eq!(pesos(-5), "-₱0.05");
    }
}
