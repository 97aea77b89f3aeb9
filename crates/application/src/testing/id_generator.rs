//! Ids that count up.

use crate::ports::IdGenerator;
use std::sync::atomic::{AtomicU64, Ordering};

/// Deterministic "random" strings: a counter, zero-padded, so every draw differs.
#[derive(Debug, Default)]
pub struct SequentialIds {
    next: AtomicU64,
}

impl IdGenerator for SequentialIds {
    fn alphanumeric(&self, length: usize) -> String {
        let n = self.next.fetch_add(1, Ordering::SeqCst);
        let digits = format!("{n:0>length$}");
        let letters: String = digits.chars().map(|d| char::from(b'a' + (d as u8 - b'0'))).collect();
        letters.chars().rev().collect()
    }

    fn fraction(&self) -> f64 {
        0.5
    }
}
