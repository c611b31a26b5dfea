//! Budgets for one check — states, time, memory — and the honest partial verdicts they lead to.
//!
//! A check explores the whole state graph unless a [`Budget`] stops it first. A budget is
//! enforced in the models themselves through a shared [`Halt`]:
//!
//! - *states*: the initial states plus every successor
//!   [`Model::next_state`](stateright::Model::next_state) produces (states reached again
//!   included: stateright's "state count") may not exceed the cap; past it `next_state` produces
//!   nothing. The unique states a check reports are at most the cap, often fewer (about half in
//!   the timed model with crashes at any instant). With one checker thread the breadth-first
//!   order is fixed, so a state budget gives the same partial result on every run.
//! - *memory*: `--memory-limit SIZE` becomes the state cap `SIZE / bytes per state`
//!   ([`TIMED_BYTES_PER_STATE`], [`ASYNC_BYTES_PER_STATE`], measured); the process's resident
//!   memory is also sampled while the check runs and stops it at `SIZE − SIZE/32` if it gets
//!   there first (shapes the constants do not cover: many initial states, all queued at once).
//! - *time*: a deadline, checked every 10 ms.
//!
//! A check whose initial states alone exceed the state budget, or need more than the memory
//! budget ([`initial_bytes`]), fails before anything is allocated.
//!
//! Once halted, a model offers no more actions: the checker evaluates every property on the
//! states already generated (every one of them is checked) and stops. A property with a
//! counterexample is definitely violated; for the others the verdict is only "no violation
//! found within N states", never "holds".

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Resident memory per state the timed model generates, in bytes: the largest slope of peak RSS
/// against generated states measured over the configurations in docs/performance.md
/// ("Memory admission of a check"; two runs with different `--max-states`, so the difference
/// leaves the fixed cost out), rounded up. A queued state is a whole simulation; with
/// `--timing pre` every crash set is an initial state, all queued at once, which the
/// resident-memory check covers.
pub const TIMED_BYTES_PER_STATE: u64 = 4096;

/// [`TIMED_BYTES_PER_STATE`] for the layered search ([`Search::Layered`]), which holds only the
/// layers in progress, as compressed bytes ([`Budget::pack_from`]): the largest slope measured
/// the same way, rounded up to a power of two. Holding whole states (`pack_from` above the
/// states held) takes up to ten times that; the resident-memory check covers it.
pub const LAYERED_BYTES_PER_STATE: u64 = 256;

/// [`TIMED_BYTES_PER_STATE`] for the asynchronous model, measured the same way.
pub const ASYNC_BYTES_PER_STATE: u64 = 1024;

/// Resident memory per initial state of the timed model and per process, in bytes: with
/// `--timing pre` every crash set of at most `f` ranks is an initial state, built before the
/// search starts (P = 16, f = 15: 32 768 of them). Measured with `--max-states` equal to the
/// initial states (the search stops before its first step): peak RSS less that of a P = 2 run,
/// over the initial states; 640 B × P covers every size measured (docs/performance.md, "Memory
/// admission of a check").
pub const TIMED_INITIAL_BYTES_PER_PROCESS: u64 = 640;

/// Held states from which the layered search packs new ones ([`Budget::pack_from`]'s
/// default): every one. Whole states are faster to explore (nothing is written and read
/// back) but take far more memory, and memory is what stops large searches
/// (docs/performance.md, "The layered search: held states as bytes").
pub const PACK_FROM: usize = 0;

/// The memory the initial states of a model need before the search starts, in bytes: what
/// decides that a check cannot fit its memory budget at all.
pub fn initial_bytes(model: crate::ModelKind, procs: u32, initial: u64) -> u64 {
    let each = match model {
        crate::ModelKind::Timed => TIMED_INITIAL_BYTES_PER_PROCESS * u64::from(procs),
        crate::ModelKind::Async => ASYNC_BYTES_PER_STATE,
    };
    initial.saturating_mul(each)
}

/// The bytes per generated state of a model, for turning a memory budget into a state cap.
pub fn bytes_per_state(model: crate::ModelKind) -> u64 {
    match model {
        crate::ModelKind::Timed => TIMED_BYTES_PER_STATE,
        crate::ModelKind::Async => ASYNC_BYTES_PER_STATE,
    }
}

/// Smallest `--memory-limit`: the checker binary alone is a few megabytes.
pub const MIN_MEMORY: u64 = 16 << 20;

/// Largest `--timeout`, in seconds (a year).
pub const MAX_TIMEOUT_SECONDS: f64 = 31_536_000.0;

/// Smallest `--timeout`, in seconds.
pub const MIN_TIMEOUT_SECONDS: f64 = 0.001;

/// The default memory budget when `/proc/meminfo` cannot be read: 2 GiB.
pub const FALLBACK_MEMORY: u64 = 2 << 30;

/// Which budget stopped a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stop {
    /// The state cap of `--max-states`.
    States,
    /// The deadline of `--timeout`.
    Time,
    /// The state cap of `--memory-limit`, or the resident memory passing it.
    Memory,
}

impl Stop {
    /// The word used in the outputs: `states`, `time` or `memory`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::States => "states",
            Self::Time => "time",
            Self::Memory => "memory",
        }
    }

    fn code(self) -> u8 {
        match self {
            Self::States => 1,
            Self::Time => 2,
            Self::Memory => 3,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(Self::States),
            2 => Some(Self::Time),
            3 => Some(Self::Memory),
            _ => None,
        }
    }
}

impl core::fmt::Display for Stop {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The limits of one check (`None` is unlimited) and the threads it may use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    /// At most this many unique states.
    pub max_states: Option<u64>,
    /// Stop after this long.
    pub timeout: Option<Duration>,
    /// Bytes: the state cap `memory / bytes per state` ([`bytes_per_state`]), and the resident
    /// memory the process may reach while the check runs.
    pub memory: Option<u64>,
    /// Worker threads of the search; 0 and 1 mean one. The depth-first and the layered search
    /// give the same result on any number (the depth-first search's count excepted when it
    /// stops because every property has a discovery). With stateright's BFS one thread is deterministic; with more, a
    /// search that runs to its end still finds the same unique states and the same verdicts,
    /// but which shortest path first reaches a violation is a race between the threads, so a
    /// counterexample's trace (minimized the same way afterwards) can differ from run to run,
    /// and a search every property has a discovery for ends at a count that depends on the race.
    pub threads: u32,
    /// How the timed model is searched ([`Search::Auto`] by default); the asynchronous model
    /// always uses stateright's breadth-first search.
    pub search: Search,
    /// Sets [`crate::timed::TimedModel::crashes_at_events_only`] on the timed model: crashes
    /// only before instants at which the process has an event (default `false`).
    pub crashes_at_events_only: bool,
    /// Sets [`crate::timed::TimedModel::crashes_before_sends_only`] on the timed model: crashes
    /// only before instants at which the process sends (default `false`).
    pub crashes_before_sends_only: bool,
    /// The layered search holds the states waiting in its layers as bytes once this many are
    /// held ([`PACK_FROM`] by default; 0: from the first, `usize::MAX`: never).
    /// Results do not depend on it; time and memory do.
    pub pack_from: usize,
}

/// The search engine of a timed check. All three explore the same states and reach the same
/// verdicts (`verify/tests/engines/layered.rs`, `verify/tests/engines/depth.rs`); they differ in memory, speed
/// and which of several counterexamples they report first (each is minimized afterwards).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Search {
    /// [`Self::Depth`] for a model that leaves no choice to the checker; [`Self::Bfs`] for
    /// one that does (gossip targets), whose counterexamples are then the shortest over every
    /// choice sequence as the gossip cells promise (the other engines report the first in
    /// their own order, which can take more choices).
    #[default]
    Auto,
    /// `layered.rs`: layer by layer in the order of (next instant, crashes), keeping only
    /// the layers in progress; the same result on any number of threads.
    Layered,
    /// stateright's breadth-first search, which keeps every state's fingerprint and queues
    /// whole states; with more than one thread, which counterexample it reports is a race.
    Bfs,
    /// `depth.rs`: depth first over the crash schedules, holding only the current path
    /// (no fingerprints: without choices left to the checker the state graph is a tree once
    /// the crashes before one instant are taken in rank order); the same result on any number
    /// of threads, but for the count of a search stopped early because every property has a
    /// discovery. For models with choices it still explores every path, but a state reached
    /// by several is explored once per path.
    Depth,
    /// [`crate::dpor`], the asynchronous model only (the timed model takes [`Self::Auto`]'s
    /// engine): one run per Mazurkiewicz trace (dynamic partial-order reduction), holding only
    /// the current run. Its count is events executed, not unique states; its counterexamples
    /// are the first runs found, not the shortest.
    Dpor,
    /// [`crate::fingerprints`], the asynchronous model only: depth first, each reachable
    /// state explored once, holding per state seen only its 64-bit fingerprint (10–21 B) and
    /// otherwise the current path. Its count is unique states, as the breadth-first search's;
    /// its counterexamples are the first runs found, not the shortest; with more than one
    /// thread, which one is a race.
    Fingerprints,
    /// [`crate::transactions`], the asynchronous model only: the search by fingerprints over
    /// the runs in which each process's receptions come right before its next send slot or
    /// crash (a reduction that keeps every verdict). Its count is the reduced model's unique
    /// states; its counterexamples are runs of the asynchronous model.
    Transactions,
}

impl Search {
    /// `auto`, `layered`, `bfs`, `depth`, `dpor`, `fingerprints` or `transactions`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Layered => "layered",
            Self::Bfs => "bfs",
            Self::Depth => "depth",
            Self::Dpor => "dpor",
            Self::Fingerprints => "fingerprints",
            Self::Transactions => "transactions",
        }
    }
}

impl Budget {
    /// No limit at all, one thread, the engine chosen by the model (the matrix).
    pub const UNLIMITED: Self = Self {
        max_states: None,
        timeout: None,
        memory: None,
        threads: 1,
        search: Search::Auto,
        crashes_at_events_only: false,
        crashes_before_sends_only: false,
        pack_from: PACK_FROM,
    };

    /// The effective state cap and the budget it comes from: the smaller of `max_states` and
    /// `memory / bytes_per_state` (the state budget wins a tie).
    pub fn state_cap(&self, bytes_per_state: u64) -> Option<(u64, Stop)> {
        let states = self.max_states.map(|n| (n, Stop::States));
        let memory = self
            .memory
            .map(|m| (m / bytes_per_state.max(1), Stop::Memory));
        match (states, memory) {
            (Some(s), Some(m)) => Some(if m.0 < s.0 { m } else { s }),
            (s, m) => s.or(m),
        }
    }

    /// Whether any limit is set.
    pub fn is_limited(&self) -> bool {
        self.max_states.is_some() || self.timeout.is_some() || self.memory.is_some()
    }
}

#[derive(Debug)]
struct HaltState {
    /// 0 while running, else the [`Stop`] code of the first budget that stopped the check.
    reason: AtomicU8,
    /// Successors produced so far.
    successors: AtomicU64,
    /// At most this many successors (`u64::MAX`: no cap).
    cap: AtomicU64,
    /// The [`Stop`] code reported when the cap is reached.
    cap_reason: AtomicU8,
}

/// The stop switch a budgeted check shares with its model (cloning shares it).
///
/// The default never halts and costs two relaxed atomic loads per successor.
#[derive(Clone, Debug)]
pub struct Halt(Arc<HaltState>);

impl Default for Halt {
    fn default() -> Self {
        Self(Arc::new(HaltState {
            reason: AtomicU8::new(0),
            successors: AtomicU64::new(0),
            cap: AtomicU64::new(u64::MAX),
            cap_reason: AtomicU8::new(0),
        }))
    }
}

impl Halt {
    /// A switch that is not halted and has no cap.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a budget stopped the check: the model then offers no more actions.
    pub fn is_halted(&self) -> bool {
        self.0.reason.load(Ordering::Relaxed) != 0
    }

    /// Stops the check; the first reason given is the one reported.
    pub fn halt(&self, why: Stop) {
        let _ = self
            .0
            .reason
            .compare_exchange(0, why.code(), Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The budget that stopped the check, if one did.
    pub fn reason(&self) -> Option<Stop> {
        Stop::from_code(self.0.reason.load(Ordering::Relaxed))
    }

    /// Caps the successors the model produces at `successors`; reaching the cap halts with `why`.
    pub fn cap(&self, successors: u64, why: Stop) {
        self.0.successors.store(0, Ordering::Relaxed);
        self.0.cap_reason.store(why.code(), Ordering::Relaxed);
        self.0.cap.store(successors, Ordering::Relaxed);
    }

    /// Called by `next_state`: whether the model may produce one more successor. Counts it.
    pub fn admit(&self) -> bool {
        if self.is_halted() {
            return false;
        }
        let cap = self.0.cap.load(Ordering::Relaxed);
        if cap == u64::MAX {
            return true;
        }
        if self.0.successors.fetch_add(1, Ordering::Relaxed) < cap {
            return true;
        }
        if let Some(why) = Stop::from_code(self.0.cap_reason.load(Ordering::Relaxed)) {
            self.halt(why);
        }
        false
    }

    /// Lifts the halt and the cap once the checker's threads are done, so that counterexample
    /// paths can be rebuilt from the model's actions. [`Self::reason`] is cleared too.
    pub fn release(&self) {
        self.0.cap.store(u64::MAX, Ordering::Relaxed);
        self.0.reason.store(0, Ordering::Relaxed);
    }
}

/// The time and memory budgets of a running search and its progress line, looked at between
/// pieces of work by every engine (stateright's BFS and the depth-first search every 10 ms, the
/// layered search after each round).
pub(crate) struct Watch<'a> {
    start: std::time::Instant,
    deadline: Option<std::time::Instant>,
    memory: Option<u64>,
    progress: Option<crate::Progress<'a>>,
    last_report: std::time::Instant,
}

impl<'a> Watch<'a> {
    pub(crate) fn new(
        budget: &Budget,
        start: std::time::Instant,
        progress: Option<crate::Progress<'a>>,
    ) -> Self {
        Self {
            start,
            deadline: budget.timeout.map(|t| start + t),
            memory: budget.memory,
            progress,
            last_report: start,
        }
    }

    /// Halts `halt` if the deadline passed or the resident memory is within 1/32 of the budget
    /// (it still grows until the next look), and reports `unique` states at most once a second.
    pub(crate) fn look(&mut self, halt: &Halt, unique: impl FnOnce() -> usize) {
        let now = std::time::Instant::now();
        if self.deadline.is_some_and(|d| now >= d) {
            halt.halt(Stop::Time);
        }
        if let Some(limit) = self.memory {
            if resident_bytes().is_some_and(|rss| rss > limit - limit / 32) {
                halt.halt(Stop::Memory);
            }
        }
        if let Some(report) = self.progress.as_mut() {
            if now.duration_since(self.last_report) >= Duration::from_secs(1) {
                self.last_report = now;
                report(unique(), now.duration_since(self.start));
            }
        }
    }
}

/// Parses `--search`: `auto`, `layered`, `bfs`, `depth`, `dpor`, `fingerprints` or
/// `transactions`.
pub fn parse_search(text: &str) -> Result<Search, String> {
    match text {
        "auto" => Ok(Search::Auto),
        "layered" => Ok(Search::Layered),
        "bfs" => Ok(Search::Bfs),
        "depth" => Ok(Search::Depth),
        "dpor" => Ok(Search::Dpor),
        "fingerprints" => Ok(Search::Fingerprints),
        "transactions" => Ok(Search::Transactions),
        _ => Err(format!(
            "'{text}' is not a search engine: allowed auto, layered, bfs, depth, dpor, \
             fingerprints, transactions"
        )),
    }
}

/// Parses a size: an integer with an optional unit `K`, `M`, `G` or `T` (powers of 1024,
/// optionally followed by `B` or `iB`, any case), e.g. `512M`, `8G`, `1048576`.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let body = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (digits, shift) = match body.chars().last() {
        Some('k') => (&body[..body.len() - 1], 10),
        Some('m') => (&body[..body.len() - 1], 20),
        Some('g') => (&body[..body.len() - 1], 30),
        Some('t') => (&body[..body.len() - 1], 40),
        _ => (body, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    n.checked_mul(1u64 << shift)
}

/// A size for humans: `512M`, `11.2G`, `900K`, `12B` (powers of 1024, one decimal at most).
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(u32, &str); 4] = [(40, "T"), (30, "G"), (20, "M"), (10, "K")];
    for (shift, unit) in UNITS {
        let scale = 1u64 << shift;
        if bytes >= scale {
            let tenths = (u128::from(bytes) * 10 / u128::from(scale)) as u64;
            return if tenths % 10 == 0 {
                format!("{}{unit}", tenths / 10)
            } else {
                format!("{}.{}{unit}", tenths / 10, tenths % 10)
            };
        }
    }
    format!("{bytes}B")
}

/// A field of `/proc/meminfo` (`MemAvailable`, `MemTotal`), in bytes.
pub fn meminfo(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        let kb: u64 = rest.trim().strip_suffix("kB")?.trim().parse().ok()?;
        kb.checked_mul(1024)
    })
}

/// The default memory budget: half of `MemAvailable` (the machine is shared), or
/// [`FALLBACK_MEMORY`] if `/proc/meminfo` cannot be read; never below [`MIN_MEMORY`].
pub fn default_memory() -> u64 {
    meminfo("MemAvailable")
        .map_or(FALLBACK_MEMORY, |m| m / 2)
        .max(MIN_MEMORY)
}

/// The largest `--memory-limit` accepted: the machine's `MemTotal` (or unlimited if unknown).
pub fn max_memory() -> u64 {
    meminfo("MemTotal").unwrap_or(u64::MAX).max(MIN_MEMORY)
}

/// The process's resident memory (`VmRSS` of `/proc/self/status`), in bytes, if readable.
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    text.lines().find_map(|line| {
        let kb: u64 = line
            .strip_prefix("VmRSS:")?
            .trim()
            .strip_suffix("kB")?
            .trim()
            .parse()
            .ok()?;
        kb.checked_mul(1024)
    })
}

/// Parses a `--memory-limit` value: a size in `MIN_MEMORY..=max`, or the one-line reason why
/// not (naming the allowed range).
pub fn parse_memory_limit(text: &str, max: u64) -> Result<u64, String> {
    let range = format!(
        "allowed {}..={} (K, M, G, T: powers of 1024)",
        format_size(MIN_MEMORY),
        format_size(max)
    );
    match parse_size(text) {
        None => Err(format!("'{text}' is not a size: {range}")),
        Some(n) if n < MIN_MEMORY || n > max => Err(format!("{text} is out of range: {range}")),
        Some(n) => Ok(n),
    }
}

/// Parses a `--timeout` value: seconds, decimals allowed, in
/// `MIN_TIMEOUT_SECONDS..=MAX_TIMEOUT_SECONDS`.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let range = format!("allowed {MIN_TIMEOUT_SECONDS}..={MAX_TIMEOUT_SECONDS} seconds");
    match text.trim().parse::<f64>() {
        Ok(s) if (MIN_TIMEOUT_SECONDS..=MAX_TIMEOUT_SECONDS).contains(&s) => {
            Ok(Duration::from_secs_f64(s))
        }
        Ok(_) => Err(format!("{text} is out of range: {range}")),
        Err(_) => Err(format!("'{text}' is not a number of seconds: {range}")),
    }
}

/// Parses a `--max-states` value: an integer, at least 1.
pub fn parse_max_states(text: &str) -> Result<u64, String> {
    let range = format!("allowed 1..={}", u64::MAX);
    match text.trim().parse::<u64>() {
        Ok(0) => Err(format!("0 is out of range: {range}")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{text}' is not a whole number: {range}")),
    }
}

/// Most worker threads `--threads` accepts.
pub const MAX_THREADS: u32 = 256;

/// Parses `--threads`: a whole number in `1..=MAX_THREADS`.
pub fn parse_threads(text: &str) -> Result<u32, String> {
    let range = format!("allowed 1..={MAX_THREADS}");
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=u64::from(MAX_THREADS)).contains(&n) => Ok(n as u32),
        Ok(n) => Err(format!("{n} is out of range: {range}")),
        Err(_) => Err(format!("'{text}' is not a whole number: {range}")),
    }
}

/// Parses `--pack-from`: a number of held states, 0 up to 2^48 (`usize::MAX` is not a
/// sensible count to type; 2^48 states are far beyond any memory).
pub fn parse_pack_from(text: &str) -> Result<usize, String> {
    const MAX: u64 = 1 << 48;
    let range = format!("allowed 0..={MAX}");
    match text.trim().parse::<u64>() {
        Ok(n) if n <= MAX => Ok(n as usize),
        Ok(n) => Err(format!("{n} is out of range: {range}")),
        Err(_) => Err(format!("'{text}' is not a whole number: {range}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_from_parses_within_range() {
        assert_eq!(parse_pack_from("0"), Ok(0));
        assert_eq!(parse_pack_from("65536"), Ok(65_536));
        for bad in ["-1", "lots", "", "281474976710657"] {
            let err = parse_pack_from(bad).unwrap_err();
            assert!(err.contains("allowed 0..=281474976710656"), "{bad}: {err}");
        }
    }

    #[test]
    fn threads_parse_within_range() {
        assert_eq!(parse_threads("2"), Ok(2));
        assert_eq!(parse_threads("256"), Ok(256));
        for bad in ["0", "257", "-1", "two", ""] {
            let err = parse_threads(bad).unwrap_err();
            assert!(err.contains("allowed 1..=256"), "{bad}: {err}");
        }
    }

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("8G"), Some(8 << 30));
        assert_eq!(parse_size("8gib"), Some(8 << 30));
        assert_eq!(parse_size("3kB"), Some(3 << 10));
        assert_eq!(parse_size("1T"), Some(1 << 40));
        assert_eq!(parse_size("4096"), Some(4096));
        for bad in [
            "",
            "G",
            "-1G",
            "1.5G",
            "12Q",
            "99999999999999999999",
            "20000000T",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
        assert_eq!(format_size(512 << 20), "512M");
        assert_eq!(format_size((11 << 30) + (1 << 29)), "11.5G");
        assert_eq!(format_size(100), "100B");
    }

    #[test]
    fn the_smaller_cap_wins() {
        let b = Budget {
            max_states: Some(1000),
            timeout: None,
            memory: Some(100 * TIMED_BYTES_PER_STATE),
            ..Budget::UNLIMITED
        };
        assert_eq!(
            b.state_cap(TIMED_BYTES_PER_STATE),
            Some((100, Stop::Memory))
        );
        let b = Budget {
            max_states: Some(10),
            ..b
        };
        assert_eq!(b.state_cap(TIMED_BYTES_PER_STATE), Some((10, Stop::States)));
        assert_eq!(Budget::UNLIMITED.state_cap(1), None);
    }

    #[test]
    fn a_capped_halt_admits_exactly_the_cap() {
        let halt = Halt::new();
        assert!((0..100).all(|_| halt.admit()));
        halt.cap(3, Stop::Memory);
        assert_eq!((0..10).filter(|_| halt.admit()).count(), 3);
        assert_eq!(halt.reason(), Some(Stop::Memory));
        halt.halt(Stop::Time);
        assert_eq!(halt.reason(), Some(Stop::Memory), "the first reason stays");
        halt.release();
        assert!(halt.admit() && !halt.is_halted());
    }
}
