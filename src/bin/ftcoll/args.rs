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

/// A comma-separated list of ranks (`3,17,42`); an empty string is the empty list.
pub fn rank_list(s: &str) -> Result<RankList, String> {
    let mut ranks = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let rank = item.parse::<u32>().map_err(|_| {
            format!("'{item}' is not a rank: expected comma-separated integers in 0..=4294967294")
        })?;
        ranks.push(rank);
    }
    Ok(RankList(ranks))
}

/// A parsed rank list (a newtype so clap does not treat it as repeated values).
#[derive(Clone, Debug, Default)]
pub struct RankList(pub Vec<u32>);
