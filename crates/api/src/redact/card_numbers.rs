//! Card numbers found in any text: runs of digits of any script, with separators between them, of
//! which the whole or a stretch of whole groups is 12 to 19 digits that pass the Luhn check (or
//! longer runs, which may hold several), but for ids the service minted and its own limits.

use payments_domain::ids::{MINTED_PREFIXES, RANDOM_PART_LENGTH};
use payments_domain::payment_method::CardNumber;
use payments_domain::payout::is_blank_alone;
use std::borrow::Cow;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// What stands for a card number found in a text.
pub(super) const CARD_NUMBER_REMOVED: &str = "[card number removed]";

/// Whether a JSON number may be a card number: a whole number whose digits may be one, or one with
/// a fraction or an exponent of [`CARD_NUMBER_DIGITS`] digits or more in all (parsed as a float,
/// its digits may not be the ones sent, so they are not judged one by one).
pub(super) fn number_may_be_a_card_number(number: &serde_json::Number) -> bool {
    match (number.as_u64(), number.as_i64()) {
        (Some(whole), _) => looks_like_card_numbers(&whole.to_string(), &[]),
        (None, Some(whole)) => looks_like_card_numbers(&whole.unsigned_abs().to_string(), &[]),
        (None, None) => {
            let written = number.to_string();
            let mantissa = written.split(['e', 'E']).next().unwrap_or(&written);
            let digits = mantissa.trim_start_matches(['-', '0', '.']).chars().filter(char::is_ascii_digit).count();
            digits >= CARD_NUMBER_DIGITS
        }
    }
}

/// Digits in a run that is taken for a card number, at least.
pub(super) const CARD_NUMBER_DIGITS: usize = 12;

/// `text` with every run of digits that may be a card number replaced: digits of any script, with
/// up to [`MAX_SEPARATORS`] separators between them (any character that is no letter or digit but
/// `:`, letters that show nothing, and `%20`; invisible format characters such as U+200B are
/// passed over uncounted; a `+` after white space starts another number), so a card number sent in
/// the wrong place is not echoed in an error or a log line. The service's own limits in its messages stay readable, and so do the ids it
/// minted and times (`01:25:27.123456 +0800`). A run of up
/// to 15 digits written after `+` is taken for a telephone number (E.164's longest), and a run of
/// one digit repeated (`000000000000`) for none.
#[must_use]
pub fn without_card_numbers(text: &str) -> Cow<'_, str> {
    card_numbers_replaced(text, |_| CARD_NUMBER_REMOVED.to_owned())
}

/// `text` as an answer or a log may show it when it must be short: card numbers taken out first,
/// then cut to `max_chars` characters with `…` (a card number cut first could keep most of its
/// digits and pass no check).
#[must_use]
pub fn shortened(text: &str, max_chars: usize) -> String {
    let clean = without_card_numbers(text);
    if clean.chars().count() <= max_chars {
        return clean.into_owned();
    }
    clean.chars().take(max_chars).chain(['…']).collect()
}

/// `text` with every run of digits that may be a card number (as [`without_card_numbers`] finds
/// them) reduced to its first six and last four digits, which the service keeps of a card anyway.
#[must_use]
pub fn card_numbers_masked(text: &str) -> Cow<'_, str> {
    card_numbers_replaced(text, masked)
}

/// The first six and the last four of `digits` (ASCII), the rest masked: `424242…4242`.
pub(super) fn masked(digits: &str) -> String {
    let shown = |range: std::ops::Range<usize>| digits.get(range).unwrap_or_default().to_owned();
    format!("{}…{}", shown(0..6), shown(digits.len().saturating_sub(4)..digits.len()))
}

/// `text` with every run of digits that may be a card number replaced by what `replacement` makes of
/// its digits (in ASCII).
fn card_numbers_replaced(text: &str, replacement: impl Fn(&str) -> String) -> Cow<'_, str> {
    if !may_hold_a_card_number(text) {
        return Cow::Borrowed(text);
    }
    let mut cleaned = String::with_capacity(text.len());
    let (mut copied_to, mut at) = (0, 0);
    while let Some(c) = text[at..].chars().next() {
        if digit_of(c).is_none() {
            at += c.len_utf8();
            continue;
        }
        if let Some(id_end) = end_of_minted_id_around(text, at) {
            at = id_end;
            continue;
        }
        let run = digit_run(text, at);
        let (digits, run_end) = (&run.digits, run.end);
        let telephone = text[..at].ends_with('+') && digits.len() <= MAX_TELEPHONE_DIGITS;
        if looks_like_card_numbers(digits, &run.group_starts) && !telephone {
            cleaned.push_str(&text[copied_to..at]);
            cleaned.push_str(&replacement(digits));
            copied_to = run_end;
        }
        at = run_end;
    }
    if copied_to == 0 {
        return Cow::Borrowed(text);
    }
    cleaned.push_str(&text[copied_to..]);
    Cow::Owned(cleaned)
}

/// The most separators between two digits of one card number.
const MAX_SEPARATORS: usize = 5;
/// The most digits of a telephone number (E.164).
const MAX_TELEPHONE_DIGITS: usize = 15;

/// A decimal digit of any script (Unicode's `Nd`: ASCII, full-width, Arabic-Indic, Devanagari …),
/// as its ASCII digit.
pub(super) fn digit_of(c: char) -> Option<char> {
    if c.is_ascii_digit() {
        return Some(c);
    }
    if c.is_ascii() || c.general_category() != GeneralCategory::DecimalNumber {
        return None;
    }
    // Every script's digits are encoded as runs of ten, zero to nine, one after another (a Unicode
    // stability policy): the digit is the count of digits before it in its run, modulo ten.
    let before = (1..=u32::from(c))
        .map_while(|back| char::from_u32(u32::from(c) - back))
        .take_while(|earlier| earlier.general_category() == GeneralCategory::DecimalNumber)
        .count();
    char::from_digit(u32::try_from(before % 10).ok()?, 10)
}

/// Whether `c` may stand between the digits of a card number: anything that is no letter or digit
/// but `:`, which writes times; and letters that show nothing (Hangul fillers).
fn is_separator(c: char) -> bool {
    // Every text is scanned through here, so an ASCII letter is settled before the ranges are read.
    digit_of(c).is_none() && c != ':' && (!c.is_alphanumeric() || (!c.is_ascii() && is_blank_alone(c)))
}

/// Whether a `+` after `before` starts a number of its own: after white space it writes a telephone
/// number or a time's offset (`01:25:27.123456 +0800`).
fn starts_a_number(before: Option<char>) -> bool {
    before.is_some_and(char::is_whitespace)
}

/// Whether `c` is an invisible format character (Unicode's `Cf`: U+200B, U+2060, U+FEFF …).
pub(super) fn is_format_character(c: char) -> bool {
    c.general_category() == GeneralCategory::Format
}

/// A run of digits with separators between them.
struct DigitRun {
    /// Its digits, in ASCII.
    digits: String,
    /// Where in `digits` each group after the first starts (a group: digits with no separator
    /// between them).
    group_starts: Vec<usize>,
    /// Where the run ends in the text (after its last digit).
    end: usize,
}

/// The run of digits that starts at `start`.
fn digit_run(text: &str, start: usize) -> DigitRun {
    let mut run = DigitRun { digits: String::new(), group_starts: Vec::new(), end: start };
    let mut at = start;
    while let Some(c) = text[at..].chars().next() {
        if let Some(digit) = digit_of(c) {
            run.digits.push(digit);
            at += c.len_utf8();
            run.end = at;
            continue;
        }
        // Separators, then a digit: the run goes on. Invisible format characters are passed over
        // however many there are: they only hide what they stand between.
        let (mut gap, mut separators) = (at, 0);
        loop {
            let rest = &text[gap..];
            let length = match rest.chars().next() {
                Some(c) if is_format_character(c) => {
                    gap += c.len_utf8();
                    continue;
                }
                Some(_) if separators == MAX_SEPARATORS => break,
                Some('+') if starts_a_number(text[..gap].chars().next_back()) => break,
                Some(_) if rest.starts_with("%20") => 3,
                Some(c) if is_separator(c) => c.len_utf8(),
                _ => break,
            };
            gap += length;
            separators += 1;
        }
        match text[gap..].chars().next() {
            Some(c) if gap > at && digit_of(c).is_some() => {
                run.group_starts.push(run.digits.len());
                at = gap;
            }
            _ => break,
        }
    }
    run
}

/// Where the id ends, when the byte at `at` is in the random part of an id the service minted (a
/// prefix of [`MINTED_PREFIXES`], then [`RANDOM_PART_LENGTH`] alphanumerics).
fn end_of_minted_id_around(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let start = bytes[..at].iter().rposition(|b| !b.is_ascii_alphanumeric()).map_or(0, |before| before + 1);
    let end = bytes[at..].iter().position(|b| !b.is_ascii_alphanumeric()).map_or(bytes.len(), |after| at + after);
    let minted =
        end - start == RANDOM_PART_LENGTH && MINTED_PREFIXES.iter().any(|prefix| text[..start].ends_with(prefix));
    minted.then_some(end)
}

/// Whether `text` has [`CARD_NUMBER_DIGITS`] digits among characters a card number may be written
/// with (counted generously): a quick look that spares the full scan to the many texts without one.
fn may_hold_a_card_number(text: &str) -> bool {
    let mut digits = 0;
    for c in text.chars() {
        if digit_of(c).is_some() {
            digits += 1;
            if digits >= CARD_NUMBER_DIGITS {
                return true;
            }
        } else if !(is_separator(c) || c == '%') {
            digits = 0;
        }
    }
    false
}

/// Card numbers have 12 to 19 digits and pass the Luhn check; the service's own limits that show in
/// its messages (amounts, sequence numbers, times) are at most 19 digits and fail it. A longer run
/// may hold several numbers written together, so it is taken for card numbers whatever it is. A run
/// of groups (`1) 4242 4242 4242 4242`, `4242424242424242-1`) holds one when some of its whole
/// groups in a row make one. A digit repeated is no card's.
fn looks_like_card_numbers(digits: &str, group_starts: &[usize]) -> bool {
    let repeated = |digits: &str| digits.chars().all(|c| digits.starts_with(c));
    if repeated(digits) {
        return false;
    }
    if digits.len() > 19 {
        return true;
    }
    let starts = || std::iter::once(0).chain(group_starts.iter().copied());
    let ends = || group_starts.iter().copied().chain(std::iter::once(digits.len()));
    starts().any(|start| {
        ends().filter(|&end| end > start).any(|end| {
            let stretch = &digits[start..end];
            CardNumber::could_be(stretch) && !repeated(stretch)
        })
    })
}
