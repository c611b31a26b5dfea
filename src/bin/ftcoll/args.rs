//! Value parsers shared by the subcommands: each error names what is allowed (clap adds the flag).

use ftcoll::topology::{Order, TreeKind, MAX_LOGP_PARAMETER, MAX_PROCS};

fn integer(s: &str, min: u64, max: u64) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!("expected an integer in {min}..={max}")),
    }
}

/// `--procs`: `1..=2^32 - 1`.
pub fn procs(s: &str) -> Result<u64, String> {
    integer(s, 1, MAX_PROCS)
}

/// `-L`: `0..=65535`.
pub fn latency(s: &str) -> Result<u64, String> {
    integer(s, 0, MAX_LOGP_PARAMETER)
}

/// `-o`: `1..=65535`.
pub fn overhead(s: &str) -> Result<u64, String> {
    integer(s, 1, MAX_LOGP_PARAMETER)
}

/// `--tree`: `kary:K`, `binomial`, `lame:K`, `optimal`.
pub fn tree(s: &str) -> Result<TreeKind, String> {
    s.parse::<TreeKind>().map_err(|e| e.to_string())
}

/// `--order`: `interleaved` or `in-order`.
pub fn order(s: &str) -> Result<Order, String> {
    s.parse::<Order>().map_err(|e| e.to_string())
}

/// A list of ranks: comma-separated (`3,17,42`), or `@FILE` to read them from a file (one rank
/// per line or comma-separated; blank lines are fine). An empty string is the empty list; an
/// empty item (`3,,4`), a repeated rank or a non-rank is an error naming it.
pub fn rank_list(s: &str) -> Result<RankList, String> {
    let ranks = match s.strip_prefix('@') {
        Some(path) => {
            let bytes =
                std::fs::read(path).map_err(|e| format!("cannot read rank file '{path}': {e}"))?;
            let text = String::from_utf8(bytes)
                .map_err(|_| format!("rank file '{path}' is not text (UTF-8)"))?;
            let mut ranks = Vec::new();
            for (n, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                ranks.extend(
                    items(line).map_err(|e| format!("rank file '{path}' line {}: {e}", n + 1))?,
                );
            }
            ranks
        }
        None if s.trim().is_empty() => Vec::new(),
        None => items(s)?,
    };
    let mut sorted = ranks.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("rank {} is listed twice", w[0]));
    }
    Ok(RankList(ranks))
}

/// The ranks of one comma-separated line.
fn items(line: &str) -> Result<Vec<u32>, String> {
    line.split(',')
        .map(str::trim)
        .map(|item| {
            if item.is_empty() {
                return Err("empty item in the list (two commas, or one at an end)".to_string());
            }
            item.parse::<u32>().map_err(|_| {
                format!(
                    "'{item}' is not a rank: expected comma-separated integers in 0..=4294967294"
                )
            })
        })
        .collect()
}

/// A parsed rank list (a newtype so clap does not treat it as repeated values).
#[derive(Clone, Debug, Default)]
pub struct RankList(pub Vec<u32>);
