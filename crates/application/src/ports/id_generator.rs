//! The id generator port: the only source of randomness for the use cases.

use payments_domain::ids::RANDOM_PART_LENGTH;

/// Draws random alphanumeric strings for ids, client secrets and keys.
pub trait IdGenerator: Send + Sync {
    /// `length` random characters from `[A-Za-z0-9]`, from a cryptographically secure source.
    fn alphanumeric(&self, length: usize) -> String;

    /// The part of a new resource id after its prefix: [`RANDOM_PART_LENGTH`] characters from
    /// `[A-Za-z0-9]`. A generator may start it with the time of creation, so that ids created later
    /// sort later and a table's id index grows at its end instead of at random pages; the rest stays
    /// random. Secrets never use it.
    fn id_part(&self) -> String {
        self.alphanumeric(RANDOM_PART_LENGTH)
    }

    /// A number drawn uniformly from `[0, 1)`, for jitter.
    fn fraction(&self) -> f64;
}
