//! Random ids, client secrets and keys from the thread-local CSPRNG.

use payments_application::ports::IdGenerator;
use payments_domain::ids::RANDOM_PART_LENGTH;
use rand::distr::{Alphanumeric, SampleString};
use std::time::{SystemTime, UNIX_EPOCH};

/// Draws from `rand`'s thread-local generator, a cryptographically secure one reseeded from the OS.
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

/// Characters of an id's time prefix: the digits of base 62 in ASCII order, so that the prefixes'
/// byte order is their time order.
const BASE62_DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Characters of the time prefix: milliseconds since 1970 in base 62 fit eight digits until the
/// year 8888.
const TIME_PREFIX_LENGTH: usize = 8;

impl IdGenerator for RandomIds {
    fn alphanumeric(&self, length: usize) -> String {
        Alphanumeric.sample_string(&mut rand::rng(), length)
    }

    /// The creation time in milliseconds (eight base-62 digits), then 24 random characters (142
    /// bits). Ids of one table then land at the end of its id index, in pages that a batch of
    /// inserts shares and that stay cached, instead of each in a random page of the index.
    fn id_part(&self) -> String {
        let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_millis());
        let mut part = time_prefix(millis);
        Alphanumeric.append_string(&mut rand::rng(), &mut part, RANDOM_PART_LENGTH - TIME_PREFIX_LENGTH);
        part
    }

    fn fraction(&self) -> f64 {
        rand::random::<f64>()
    }
}

/// `millis` as [`TIME_PREFIX_LENGTH`] base-62 digits, most significant first, in a string with
/// room for the whole id part (the random characters are appended without reallocating).
fn time_prefix(millis: u128) -> String {
    let mut digits = [BASE62_DIGITS[0]; TIME_PREFIX_LENGTH];
    let mut rest = millis;
    for digit in digits.iter_mut().rev() {
        *digit = BASE62_DIGITS[usize::try_from(rest % 62).unwrap_or(0)];
        rest /= 62;
    }
    let mut prefix = String::with_capacity(RANDOM_PART_LENGTH);
    prefix.extend(digits.iter().map(|&digit| char::from(digit)));
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_have_the_asked_length_and_differ() {
        let a = RandomIds.alphanumeric(32);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(a, RandomIds.alphanumeric(32));
    }

    #[test]
    fn time_prefixes_sort_as_their_times() {
        assert_eq!(time_prefix(0), "00000000");
        assert_eq!(time_prefix(61), "0000000z");
        assert_eq!(time_prefix(62), "00000010");
        let times = [0, 9, 10, 35, 36, 61, 62, 3_843, 3_844, 1_764_000_000_000, 1_764_000_000_001, 62u128.pow(8) - 1];
        let prefixes: Vec<String> = times.iter().map(|&millis| time_prefix(millis)).collect();
        assert!(prefixes.windows(2).all(|pair| pair[0] < pair[1]), "{prefixes:?}");
        assert!(prefixes.iter().all(|prefix| prefix.len() == TIME_PREFIX_LENGTH));
    }

    #[test]
    fn id_parts_are_well_formed_unique_and_later_ones_sort_later() {
        let first = RandomIds.id_part();
        let same_millisecond = RandomIds.id_part();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let later = RandomIds.id_part();
        for part in [&first, &same_millisecond, &later] {
            assert!(payments_domain::ids::is_random_part(part), "{part}");
        }
        assert_ne!(first, same_millisecond);
        assert!(first < later && same_millisecond < later, "{first} {same_millisecond} {later}");
    }
}
