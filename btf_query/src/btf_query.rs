//! BTF parsing and indexed queries (no_std, no alloc).

/// Placeholder until the parser lands.
pub const BTF_MAGIC: u16 = 0xeb9f;

#[cfg(test)]
mod tests {
    #[test]
    fn magic() {
        assert_eq!(super::BTF_MAGIC, 0xeb9f);
    }
}
