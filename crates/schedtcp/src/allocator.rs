//! The process's one tuning of the C allocator: the data path's buffers are reused, not mapped
//! afresh for every read, and what a burst needed goes back to the system afterwards.
//!
//! glibc serves allocations at or above its mmap threshold (128 KiB by default) with their
//! own `mmap` and unmaps them on free; after the first such free it raises that threshold
//! (up to 32 MiB) to the size just freed, and the heap top is trimmed only when more than
//! twice that is free. Neither default fits a relay whose data path allocates a 256 KiB read
//! buffer every 192 KiB relayed (`tunnel::engine`), and frees it when the bytes are
//! acknowledged:
//!
//! * glibc's dynamic threshold: the server keeps the high-water mark of every burst it ever
//!   served (churn test below: client 37.0 → 45.7 MB, server 27.6 → 36.0 MB).
//! * Threshold fixed at 128 KiB: every read buffer is a fresh mapping, and
//!   every page of it faults on first touch. In the one-flow download profile
//!   (`perf record -g`, results/throughput-history/README.md) page faults were 28% of the
//!   relays' CPU.
//! * Threshold fixed at 512 KiB and the heap top trimmed only beyond [`TRIM_THRESHOLD`]
//!   (8 MiB free): read buffers come from the heap and are reused. CPU per GB
//!   relayed × 0.64–0.73 (one flow down 2.79 → 2.05 s; `schedtcp throughput --baseline-exe`,
//!   one run on a quiet machine, results/throughput-history/README.md). Page faults were still
//!   3–5% of the relays' CPU: a flow's reassembly buffer (`gtcp::flow::recv`, up to its credit,
//!   1 MiB by default) grew past 512 KiB and was then mapped afresh on every refill.
//! * Threshold fixed at [`MMAP_THRESHOLD`] (4 MiB): the reassembly buffers came
//!   from the heap too; page faults 3.1% → 0.03% of the relays' CPU in the same profile. Then
//!   the reassembly buffer became a list of blocks of at most 64 KiB
//!   (`gtcp::flow::recv::READY_BLOCK`), so no buffer of the data path is above 512 KiB any
//!   more with the default chunk; the threshold stayed at 4 MiB, the setting the blocks were
//!   measured with (results/throughput-history/README.md). Resident size in the churn test
//!   (`CHURN_FLOWS=30000 cargo test --release -p schedtcp --test liveness churn -- --ignored
//!   --nocapture`): flat, client 27.1 → 24.5 MB, server 23.1 → 24.2 MB, wandering by up to
//!   ±3 MB from round to round. The cost of the trim threshold: up to 8 MiB kept free per
//!   malloc arena instead of about 10 MB resident in all.
//! * One arena ([`ARENA_MAX`]; glibc's default is up to 8 per core, one per thread that
//!   allocates while the others' are busy: the tokio workers). With an arena per worker, the
//!   memory of 4 000 idle flows that ended stayed resident in the workers' arenas for more
//!   than 60 s in release builds (client 11.3–11.6 MB, server 13.0–14.1 MB against baselines
//!   of 8.1–8.6 MB); with one, both processes were back within 10% (+2 MiB) of their baseline
//!   within one trim interval, 0.3–10.1 s in four runs (`IDLE_FLOWS=4000 SCHEDTCP_EXE=<release exe> cargo test -p schedtcp --test
//!   liveness idle_flows -- --ignored --nocapture`, docs/RELIABILITY.md, *Memory*). Two
//!   arenas (the number of workers on the 2-core machine measured) were not measured on their
//!   own; one already costs nothing measurable. The cost, `schedtcp throughput --baseline-exe` against the
//!   build with glibc's arenas, 5 repeats on a loaded machine: every throughput and CPU-per-GB
//!   ratio within its 95% interval of 1 but one (one upload flow under `srpt`, CPU per GB
//!   1.09 ± 0.07).
//!
//! What a burst needed is given back by [`start_trimming`]: glibc returns free memory to the
//! system only from the top of a heap (beyond [`TRIM_THRESHOLD`]), so after thousands of flows
//! end, the free chunks below the last live allocation stay resident. Every [`TRIM_INTERVAL`]
//! a thread calls `malloc_trim(0)`, which also hands the free pages inside every arena back
//! (`madvise(MADV_DONTNEED)`). Measured with 4 000 idle flows that then all end
//! (`cargo test --release -p schedtcp --test liveness idle_flows -- --ignored --nocapture`,
//! docs/RELIABILITY.md, *Memory*): without it both processes stayed at their peak for more
//! than 60 s; with it they are back near their baseline within one interval. The cost is a
//! walk of the free lists under each arena's lock once per interval, and the next buffers
//! faulting their pages in again (at most the freed memory, once per interval).
//!
//! Trimming cannot reach the chunks that glibc's per-thread caches (tcache: up to 7 free
//! chunks of each size up to 1 032 bytes, per thread) hold: to the arena they are in use. A
//! burst's last frees fill the tokio workers' caches with chunks from all over the heap, and each
//! keeps its page resident until its worker allocates that size again, which an idle daemon does
//! not. Measured with 4 000 idle flows that then all end (release, `IDLE_FLOWS=4000
//! SCHEDTCP_EXE=<release exe> cargo test -p schedtcp --test liveness idle_flows -- --ignored
//! --nocapture`, docs/RELIABILITY.md, *Memory*): with the caches on, the client was above its
//! bound 60 s later in four runs of four (10.6–10.9 MB, baselines 7.5–7.6 MB), its heap 3.3 MB
//! resident of which glibc counted 1.1 MB in use and heaptrack 0.57 MB live (0.46 MB after 8
//! flows); with the caches off, both daemons were back within 80 KiB of their baselines after
//! 2.0–7.9 s in three runs. The caches are read from the environment (`GLIBC_TUNABLES`) by the
//! dynamic loader only, before `main`, so the daemons start themselves again in place (the same
//! process, program name and arguments) with the setting added
//! ([`restart_without_thread_caches`]). Each small allocation then takes the arena's lock (one
//! arena, shared by the workers): measured quiet against the build with the caches, 64 flows
//! each way under `tcp` and `srpt`, five repeats, no difference beyond the noise in any cell
//! (0.95–1.02 × the Gbit/s; an earlier run of three repeats had 0.85 ± 0.09 × in one cell,
//! not reproduced), nor against a cache of one or two chunks per size
//! (results/core-ab/throughput-tcache-counts.txt). `GLIBC_TUNABLES=glibc.malloc.tcache_count=7`
//! keeps the caches.
//!
//! Each setting is left alone when the user set its environment variable
//! (`MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`, `MALLOC_ARENA_MAX`, a `tcache_count` in
//! `GLIBC_TUNABLES`), and nothing is done on other C libraries. (mimalloc as the global allocator was measured too: 1.70 s/GB, but 70–100 MB
//! resident in the churn test.)

/// Allocations of this size and more are mapped on their own (glibc's default is 128 KiB,
/// adjusted at run time): well above the data path's buffers (256 KiB read buffers, 64 KiB
/// receive blocks), so they come from the heap and are reused.
pub const MMAP_THRESHOLD: usize = 4 * 1024 * 1024;

/// Free memory at the top of a heap beyond which it is returned to the system (glibc's
/// default is 128 KiB, adjusted at run time to twice the mmap threshold).
pub const TRIM_THRESHOLD: usize = 8 * 1024 * 1024;

/// Malloc arenas at most (glibc's default is 8 per core, one per thread that allocates while
/// the others' are busy: here the tokio workers and the blocking threads). Each arena keeps
/// its own free memory, and after a burst the chunks freed by a worker stay in that worker's
/// arena below its live allocations, where trimming the heap top cannot reach them.
pub const ARENA_MAX: usize = 1;

/// Fixes glibc's mmap and trim thresholds at [`MMAP_THRESHOLD`] and [`TRIM_THRESHOLD`] and its
/// arenas at [`ARENA_MAX`], each unless its environment variable is set. Returns how many it
/// set.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn tune() -> usize {
    let mut set = 0;
    for (var, param, value) in [
        (
            "MALLOC_MMAP_THRESHOLD_",
            libc::M_MMAP_THRESHOLD,
            MMAP_THRESHOLD,
        ),
        (
            "MALLOC_TRIM_THRESHOLD_",
            libc::M_TRIM_THRESHOLD,
            TRIM_THRESHOLD,
        ),
        ("MALLOC_ARENA_MAX", libc::M_ARENA_MAX, ARENA_MAX),
    ] {
        if std::env::var_os(var).is_some() {
            continue;
        }
        let value = libc::c_int::try_from(value).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt takes two integers and changes a setting of the allocator; it is
        // called before this process starts any thread.
        if unsafe { libc::mallopt(param, value) } == 1 {
            set += 1;
        }
    }
    set
}

/// Other C libraries: nothing to do.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune() -> usize {
    0
}

/// How often free memory is handed back to the system ([`start_trimming`]).
pub const TRIM_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

/// Starts a thread that hands free memory back to the system every [`TRIM_INTERVAL`]
/// (`malloc_trim(0)`), unless `MALLOC_TRIM_THRESHOLD_` is set (the user tunes trimming).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn start_trimming() -> std::io::Result<()> {
    if std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_some() {
        return Ok(());
    }
    std::thread::Builder::new()
        .name("malloc-trim".into())
        .spawn(|| loop {
            std::thread::sleep(TRIM_INTERVAL);
            // SAFETY: malloc_trim takes a size and returns free memory of the allocator's
            // arenas to the system; it takes each arena's lock and is safe from any thread.
            unsafe { libc::malloc_trim(0) };
        })
        .map(drop)
}

/// Other C libraries: nothing to do.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn start_trimming() -> std::io::Result<()> {
    Ok(())
}

/// The glibc tunable that turns the per-thread caches off (see the module's documentation).
pub const NO_THREAD_CACHE: &str = "glibc.malloc.tcache_count=0";

/// Set (to 1) in the environment of a daemon started again by
/// [`restart_without_thread_caches`], so that it is started again at most once: the dynamic
/// loader drops `GLIBC_TUNABLES` for programs with file capabilities or set-user-id.
pub const RESTARTED_VAR: &str = "SCHEDTCP_ALLOCATOR_RESTARTED";

/// `GLIBC_TUNABLES` with the per-thread caches off, given its value now: `None` when it already
/// sets `glibc.malloc.tcache_count` (the user's choice is kept); other tunables are kept.
pub fn tunables_without_thread_cache(
    current: Option<&std::ffi::OsStr>,
) -> Option<std::ffi::OsString> {
    let Some(current) = current.filter(|c| !c.is_empty()) else {
        return Some(NO_THREAD_CACHE.into());
    };
    if current
        .to_string_lossy()
        .split(':')
        .any(|t| t.starts_with("glibc.malloc.tcache_count="))
    {
        return None;
    }
    let mut tunables = current.to_owned();
    tunables.push(":");
    tunables.push(NO_THREAD_CACHE);
    Some(tunables)
}

/// Starts this program again in place (`execve` of `/proc/self/exe`: the same process id,
/// program name and arguments) with glibc's per-thread caches off ([`NO_THREAD_CACHE`] added to
/// `GLIBC_TUNABLES`), unless they are off already, the user set `tcache_count`, or this process is
/// such a restart ([`RESTARTED_VAR`]). Call it before any thread starts. Returns only when there
/// is nothing to do (`Ok`) or the restart failed (the error; the process goes on with the caches).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn restart_without_thread_caches() -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    if std::env::var_os(RESTARTED_VAR).is_some() {
        name_after_program();
        return Ok(());
    }
    let Some(tunables) =
        tunables_without_thread_cache(std::env::var_os("GLIBC_TUNABLES").as_deref())
    else {
        return Ok(());
    };
    let mut args = std::env::args_os();
    let name = args.next().unwrap_or_else(|| "schedtcp".into());
    Err(std::process::Command::new("/proc/self/exe")
        .arg0(name)
        .args(args)
        .env("GLIBC_TUNABLES", tunables)
        .env(RESTARTED_VAR, "1")
        .exec())
}

/// Gives the restarted process its program's name again. The kernel names a process after the
/// file it executes, `exe` for `/proc/self/exe`; `ps`, `pgrep` and `top` should still show the
/// program's file name (at most 15 bytes, as the kernel keeps it). Best effort: the process
/// runs the same under either name.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn name_after_program() {
    let Some(name) = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.as_encoded_bytes().to_vec()))
        .and_then(|n| std::ffi::CString::new(n).ok())
    else {
        return;
    };
    let _ = nix::sys::prctl::set_name(&name);
}

/// Other C libraries: nothing to do.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn restart_without_thread_caches() -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_caches_are_turned_off_beside_other_tunables_unless_the_user_set_them() {
        let t = |v: Option<&str>| {
            tunables_without_thread_cache(v.map(std::ffi::OsStr::new))
                .map(|s| s.into_string().unwrap())
        };
        assert_eq!(t(None).as_deref(), Some(NO_THREAD_CACHE));
        assert_eq!(t(Some("")).as_deref(), Some(NO_THREAD_CACHE));
        assert_eq!(
            t(Some("glibc.malloc.check=3")),
            Some(format!("glibc.malloc.check=3:{NO_THREAD_CACHE}"))
        );
        assert_eq!(t(Some("glibc.malloc.tcache_count=7")), None);
        assert_eq!(
            t(Some("glibc.malloc.check=3:glibc.malloc.tcache_count=2")),
            None
        );
        // Another tunable whose name merely contains it is not the user's choice.
        assert_eq!(
            t(Some("glibc.malloc.tcache_max=64")),
            Some(format!("glibc.malloc.tcache_max=64:{NO_THREAD_CACHE}"))
        );
    }
}
