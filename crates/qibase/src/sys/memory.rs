//! Peak memory of this process, for solve summaries, and the machine's
//! memory, for the plans that must fit it.

/// Peak resident set size (VmHWM) in bytes, if the OS tells us.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The machine's memory, as the OS tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemInfo {
    /// Bytes of memory in all.
    pub total: u64,
    /// Bytes available to a new process without swapping, about.
    pub available: u64,
}

/// The machine's memory (`/proc/meminfo`), if the OS tells it: the one
/// reader of it in the library.
pub fn meminfo() -> Option<MemInfo> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |key: &str| -> Option<u64> {
        let line = s.lines().find(|l| l.starts_with(key))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    };
    Some(MemInfo {
        total: field("MemTotal:")?,
        available: field("MemAvailable:")?,
    })
}
