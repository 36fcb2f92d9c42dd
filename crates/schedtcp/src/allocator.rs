//! The process's one tuning of the C allocator: freed buffers go back to the system.
//!
//! glibc serves allocations of 128 KiB and more with their own `mmap` and returns them on
//! free, but after the first such free it raises that threshold (up to 32 MiB) to the size just
//! freed, so from then on the tunnel's large buffers (256 KiB reads, send buffers up to the
//! per-flow window) come from the heap, whose top is only trimmed when it is free. A server
//! then keeps the high-water mark of every burst it ever served. Measured with the churn test
//! (`CHURN_FLOWS=30000 cargo test --release -p schedtcp --test liveness churn -- --ignored
//! --nocapture`, 27 000 flows plus 3 000 reset mid-download, 8 at a time): resident memory
//! client 37.0 → 45.7 MB and server 27.6 → 36.0 MB with glibc's dynamic threshold, client
//! 10.8 → 9.3 MB and server 7.3 → 7.5 MB with the threshold fixed at 128 KiB
//! (`MALLOC_MMAP_THRESHOLD_=131072`), at the same throughput within run-to-run noise
//! (`schedtcp throughput`, 4.3–5.3 Gbit/s both ways on a loaded machine).
//!
//! Fixing the threshold (`mallopt(M_MMAP_THRESHOLD)`) turns the dynamic adjustment off. It is
//! left alone when the user set `MALLOC_MMAP_THRESHOLD_` themselves, and does nothing on other
//! C libraries (musl returns large blocks already).

/// glibc's default, and the bound from which blocks are mapped on their own.
pub const MMAP_THRESHOLD: usize = 128 * 1024;

/// Fixes glibc's mmap threshold at [`MMAP_THRESHOLD`] unless `MALLOC_MMAP_THRESHOLD_` is set.
/// Returns whether it did.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn return_freed_buffers() -> bool {
    if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some() {
        return false;
    }
    let threshold = libc::c_int::try_from(MMAP_THRESHOLD).unwrap_or(libc::c_int::MAX);
    // SAFETY: mallopt takes two integers and changes a setting of the allocator; it is called
    // once, before this process starts any thread.
    unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, threshold) == 1 }
}

/// Other C libraries: nothing to do.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn return_freed_buffers() -> bool {
    false
}
