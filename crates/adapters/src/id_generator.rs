//! Random ids, client secrets and keys from the thread-local CSPRNG.

use payments_application::ports::IdGenerator;
use rand::distr::{Alphanumeric, SampleString};

/// Draws from `rand`'s thread-local generator, a cryptographically secure one reseeded from the OS.
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

impl IdGenerator for RandomIds {
    fn alphanumeric(&self, length: usize) -> String {
        Alphanumeric.sample_string(&mut rand::rng(), length)
    }

    fn fraction(&self) -> f64 {
        rand::random::<f64>()
    }
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
}
