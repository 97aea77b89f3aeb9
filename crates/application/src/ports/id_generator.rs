//! The id generator port: the only source of randomness for the use cases.

/// Draws random alphanumeric strings for ids, client secrets and keys.
pub trait IdGenerator: Send + Sync {
    /// `length` random characters from `[A-Za-z0-9]`, from a cryptographically secure source.
    fn alphanumeric(&self, length: usize) -> String;

    /// A number drawn uniformly from `[0, 1)`, for jitter.
    fn fraction(&self) -> f64;
}
