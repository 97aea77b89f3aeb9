//! The longest text and the most items a request parameter may carry, where no value type of its
//! own (`CustomerName`, `Email`, `StatementDescriptor`, `Metadata`, …) sets them. The README's API
//! conventions list every limit.

/// Free text that describes something: descriptions, refund remarks.
pub const DESCRIPTION_LENGTH: usize = 1_000;
/// Absolute URLs: return, success, cancel and webhook URLs, images.
pub const URL_LENGTH: usize = 2_048;
/// Ids, list cursors, client secrets and other tokens a client sends back.
pub const IDENTIFIER_LENGTH: usize = 128;
/// One short value of a fixed form: a currency, a status, a reason, a method, a country code, a
/// number written as text.
pub const CHOICE_LENGTH: usize = 64;
/// Items of a list of values of a fixed vocabulary (payment methods, fundings, event types).
pub const CHOICES: usize = 100;
/// Card number prefixes in `allowed_bins`.
pub const ALLOWED_BINS: usize = 100;
/// Characters of a card number as sent (digits, and spaces between groups).
pub const CARD_NUMBER_LENGTH: usize = 32;
/// Characters of a CVC as sent.
pub const CVC_LENGTH: usize = 4;
