//! Admission before allocation: every command estimates the memory a request needs and refuses
//! one that does not fit, with the one-line usage error, before allocating anything large.
//!
//! The limit is `--memory-limit` when given, else the memory the kernel reports available
//! (`MemAvailable` in `/proc/meminfo`) when the command starts. The estimates are upper bounds
//! measured on the driver (docs/reference/drivers.md, "Memory admission and streaming", has the
//! commands); they are
//! deliberately generous, since an estimate that is too low ends in an allocator abort, one that
//! is too high only in a clear refusal that `--memory-limit` can override.

use std::io::IsTerminal;
use std::sync::OnceLock;

use crate::cli::UsageError;

/// Bytes of driver and automaton state per simulated process, any Corrected Tree variant, with
/// what is in flight at the peak: measured at most 904 B (failproof:1, P = 2^20, max RSS / P),
/// rounded up with a margin.
pub(super) const DRIVER_BYTES_PER_PROC: u64 = 1_280;
/// Bytes of driver and automaton state per simulated FTCO process (`FtcoNode`: `Up`, `Down`
/// with partials, ACK bookkeeping, the suspected set), with what is in flight at the peak:
/// measured 621–632 B (Allreduce, kary:2, --fault-rate 0.01, P = 2^20, max RSS / P; the
/// command is in docs/reference/drivers.md ("Memory admission and streaming")),
/// rounded up with a wide margin since the suspected sets grow with the faults.
pub(super) const FTCO_BYTES_PER_PROC: u64 = 2_048;
/// Extra bytes per process when a Chrome trace of the run is recorded (events and their JSON).
pub(super) const TRACE_BYTES_PER_PROC: u64 = 4_096;
/// The process itself: code, buffers, thread stacks.
pub(super) const BASELINE_BYTES: u64 = 64 << 20;

static LIMIT: OnceLock<Option<u64>> = OnceLock::new();

/// Records `--memory-limit` (called once by `main`).
pub(super) fn set_limit(limit: Option<u64>) {
    let _ = LIMIT.set(limit);
}

/// The memory a request may use, and where that figure comes from.
pub(super) fn limit() -> (u64, &'static str) {
    match LIMIT.get().copied().flatten() {
        Some(l) => (l, "--memory-limit"),
        None => match available() {
            Some(a) => (
                a,
                "the memory available on this machine; raise it with --memory-limit",
            ),
            // Without /proc/meminfo nothing is known: admit what a 64-bit address space holds.
            None => (u64::MAX, "no limit known"),
        },
    }
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Refuses a request of `need` bytes above the limit: `flag: WHAT needs about X of memory, above
/// the limit Y (SOURCE)`.
pub(super) fn admit(flag: &str, what: &str, need: u64) -> Result<(), UsageError> {
    let (limit, source) = limit();
    if need > limit {
        return Err(UsageError(format!(
            "{flag}: {what} needs about {} of memory, above the limit of {} ({source})",
            human(need),
            human(limit)
        )));
    }
    Ok(())
}

/// The memory one full-driver run of `procs` processes needs.
pub(super) fn driver_need(procs: u32, trace: bool) -> u64 {
    let per = DRIVER_BYTES_PER_PROC + if trace { TRACE_BYTES_PER_PROC } else { 0 };
    BASELINE_BYTES.saturating_add(u64::from(procs).saturating_mul(per))
}

/// The memory the fast path needs for points of `procs` processes on `threads` threads: its
/// shared tables and a workspace per thread (measured: 25 B per process fault-free, 50 B at 4 %
/// failed, one thread, docs/performance.md; peak while building the tables ≈ 32 B).
pub(super) fn fastpath_need(procs: u32, threads: u64) -> u64 {
    BASELINE_BYTES.saturating_add(u64::from(procs).saturating_mul(fastpath_bytes_per_proc(threads)))
}

/// Bytes per process of the fast path on `threads` threads (see [`fastpath_need`]).
pub(super) fn fastpath_bytes_per_proc(threads: u64) -> u64 {
    48 + 64 * threads
}

/// The memory one FTCO run of `procs` processes needs.
pub(super) fn ftco_need(procs: u32, trace: bool) -> u64 {
    let per = FTCO_BYTES_PER_PROC + if trace { TRACE_BYTES_PER_PROC } else { 0 };
    BASELINE_BYTES.saturating_add(u64::from(procs).saturating_mul(per))
}

/// `1.5 GiB`, `300 MiB`, `12 KiB`, `17 B`.
pub(super) fn human(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Parses `--memory-limit`: bytes, or a number with a suffix `K`, `M`, `G`, `T` (powers of 1024,
/// an optional `iB`/`B`), e.g. `512M`, `8G`, `1.5GiB`.
pub(super) fn size(s: &str) -> Result<u64, String> {
    // Below the process's own floor no request could be admitted, so such a limit is refused
    // as input rather than accepted and never applied.
    let allowed = "expected a size such as 512M, 8G or 1.5GiB (64M..=16E bytes: the process \
                   itself takes up to 64 MiB)";
    let t = s.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, suffix) = t.split_at(digits);
    let number: f64 = number.parse().map_err(|_| allowed.to_string())?;
    let shift = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => return Err(allowed.into()),
    };
    let bytes = number * (1u64 << shift) as f64;
    if !bytes.is_finite()
        || !(BASELINE_BYTES as f64..=18_446_744_073_709_551_615.0).contains(&bytes)
    {
        return Err(allowed.into());
    }
    Ok(bytes as u64)
}

/// A spinner or bar on stderr when it is a terminal, hidden otherwise (so pipes and tests see
/// nothing); `total` `None` gives a spinner with a steady tick.
pub(super) fn progress(
    total: Option<u64>,
    template: &str,
    message: &str,
) -> indicatif::ProgressBar {
    let bar = if std::io::stderr().is_terminal() {
        let target = indicatif::ProgressDrawTarget::stderr();
        let bar = indicatif::ProgressBar::with_draw_target(total, target);
        if total.is_none() {
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(message.to_string());
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(size("512M"), Ok(512 << 20));
        assert_eq!(size("8G"), Ok(8 << 30));
        assert_eq!(size("1.5GiB"), Ok(3 << 29));
        assert_eq!(size("67108864"), Ok(64 << 20));
        for bad in [
            "",
            "G",
            "12Q",
            "-1G",
            "0",
            "1K",
            "1M",
            "63M",
            "nan",
            "1e3G",
            "99999999999T",
        ] {
            assert!(size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn human_sizes_read_naturally() {
        assert_eq!(human(17), "17 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(3 << 30), "3.0 GiB");
    }
}
