//! The slices shipped with pentagrid (0–6 stones), embedded in the binary at compile time.

/// The embedded files.
pub(crate) struct Shipped {
    /// Per stone count 0–6: the slice file and its counts file.
    pub slices: [(&'static [u8], &'static [u8]); 7],
    /// Irving's `sha1s` list (slices and counts 0–18).
    pub sha1s: &'static str,
}

macro_rules! shipped_slice {
    ($n:literal) => {
        (
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/irving/slice-",
                $n,
                ".pentago"
            )),
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/irving/counts-",
                $n,
                ".npy"
            )),
        )
    };
}

/// Slices 0–6 and the known SHA-1 sums.
pub(crate) const SHIPPED: Shipped = Shipped {
    slices: [
        shipped_slice!("0"),
        shipped_slice!("1"),
        shipped_slice!("2"),
        shipped_slice!("3"),
        shipped_slice!("4"),
        shipped_slice!("5"),
        shipped_slice!("6"),
    ],
    sha1s: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/data/irving/sha1s")),
};

impl Shipped {
    /// The SHA-1 Irving publishes for file `name` (e.g. `slice-12.pentago`), if listed.
    pub(crate) fn sha1(&self, name: &str) -> Option<String> {
        // Read once: every opening of a slice asks.
        static SUMS: std::sync::OnceLock<std::collections::BTreeMap<String, String>> =
            std::sync::OnceLock::new();
        SUMS.get_or_init(|| crate::counts::parse_sha1s(self.sha1s))
            .get(name)
            .cloned()
    }
}
