//! Value parsers shared by the subcommands: each error names what is allowed (clap adds the flag).

use ftcoll::topology::{Order, TreeKind, MAX_LOGP_PARAMETER, MAX_PROCS};

fn integer(s: &str, min: u64, max: u64) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!("expected an integer in {min}..={max}")),
    }
}

/// `--procs`: `1..=2^32 - 1`, the `u32` every process count of the library takes.
pub(super) fn procs(s: &str) -> Result<u32, String> {
    let procs = integer(s, 1, u64::from(MAX_PROCS))?;
    // In range, so the narrowing cannot fail.
    Ok(u32::try_from(procs).unwrap_or(MAX_PROCS))
}

/// `--seed`: any `u64` (the range is said, where clap's own parser only says a number is too
/// large).
pub(super) fn seed(s: &str) -> Result<u64, String> {
    integer(s, 0, u64::MAX)
}

/// `--fault-count`: `0..=2^32 - 1` (the command then checks it against `P`).
pub(super) fn fault_count(s: &str) -> Result<u32, String> {
    let count = integer(s, 0, u64::from(u32::MAX))?;
    Ok(u32::try_from(count).unwrap_or(u32::MAX))
}

/// The most runs `simulate`, `sweep` and `pap-simulate` take.
pub(super) const MAX_RUNS: u64 = 100_000_000;

/// `--runs`: `1..=10^8`.
pub(super) fn runs(s: &str) -> Result<u64, String> {
    integer(s, 1, MAX_RUNS)
}

/// `--threads`: `1..=1024`.
pub(super) fn threads(s: &str) -> Result<u64, String> {
    integer(s, 1, 1024)
}

/// `-L`: `0..=65535`.
pub(super) fn latency(s: &str) -> Result<u64, String> {
    integer(s, 0, MAX_LOGP_PARAMETER)
}

/// `-o`: `1..=65535`.
pub(super) fn overhead(s: &str) -> Result<u64, String> {
    integer(s, 1, MAX_LOGP_PARAMETER)
}

/// `--tree`: `kary:K`, `binomial`, `lame:K`, `optimal`.
pub(super) fn tree(s: &str) -> Result<TreeKind, String> {
    s.parse::<TreeKind>().map_err(|e| e.to_string())
}

/// `--order`: `interleaved` or `in-order`.
pub(super) fn order(s: &str) -> Result<Order, String> {
    s.parse::<Order>().map_err(|e| e.to_string())
}

/// A list of ranks: comma-separated (`3,17,42`), or `@FILE` to read them from a file (one rank
/// per line or comma-separated; blank lines are fine). An empty string is the empty list; an
/// empty item (`3,,4`), a repeated rank or a non-rank is an error naming it.
pub(super) fn rank_list(s: &str) -> Result<RankList, String> {
    let ranks = match s.strip_prefix('@') {
        Some(path) => read_list_file(path, "rank", usize::MAX, items)?,
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

/// The items of a list file (`--faults @FILE`, `--arrival @FILE`): one per line or
/// comma-separated, blank lines skipped, each line parsed by `line_items`. Streamed: at most
/// `max_items` items are kept, and a file holding more is refused as soon as one more is read
/// (`more than MAX`), so a huge file costs neither its size in memory nor a full read; a line
/// longer than `max_items` items could be (32 bytes each) is refused the same way. Errors:
/// `cannot read WHAT file 'PATH': …`, `WHAT file 'PATH' line N: …`.
pub(super) fn read_list_file<T>(
    path: &str,
    what: &str,
    max_items: usize,
    line_items: impl Fn(&str) -> Result<Vec<T>, String>,
) -> Result<Vec<T>, String> {
    use std::io::{BufRead, Read};
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {what} file '{path}': {e}"))?;
    let mut reader = std::io::BufReader::new(file);
    let line_cap = (max_items as u64).saturating_mul(32).saturating_add(64);
    let mut values = Vec::new();
    let mut buf = Vec::new();
    for n in 1u64.. {
        buf.clear();
        let read = (&mut reader)
            .take(line_cap)
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("cannot read {what} file '{path}': {e}"))?;
        if read == 0 {
            break;
        }
        let too_many = || format!("{what} file '{path}' line {n}: more than {max_items} items");
        if read as u64 == line_cap && buf.last() != Some(&b'\n') {
            return Err(too_many());
        }
        let line = std::str::from_utf8(&buf)
            .map_err(|_| format!("{what} file '{path}' is not text (UTF-8)"))?;
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let parsed = line_items(line).map_err(|e| format!("{what} file '{path}' line {n}: {e}"))?;
        if parsed.len() > max_items - values.len() {
            return Err(too_many());
        }
        values.extend(parsed);
    }
    Ok(values)
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
pub(super) struct RankList(pub Vec<u32>);

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> String {
        let path = std::env::temp_dir().join(format!("ftcoll-args-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }

    #[test]
    fn list_files_stream_lines_and_commas_up_to_the_cap() {
        let path = write("ok", "1,2\r\n\n 3 \n4");
        assert_eq!(
            read_list_file(&path, "rank", 4, items),
            Ok(vec![1, 2, 3, 4])
        );
        let err = read_list_file(&path, "rank", 3, items).unwrap_err();
        assert_eq!(err, format!("rank file '{path}' line 4: more than 3 items"));
        let err = read_list_file(&path, "rank", 1, items).unwrap_err();
        assert_eq!(err, format!("rank file '{path}' line 1: more than 1 items"));
        // A line longer than the cap's 32 bytes per item is refused before it is read whole.
        let long = write("long", &"7".repeat(1000));
        let err = read_list_file(&long, "arrival", 2, items).unwrap_err();
        assert!(err.contains("line 1: more than 2 items"), "{err}");
        let bad = write("bad", "1\n2,x\n");
        let err = read_list_file(&bad, "rank", 10, items).unwrap_err();
        assert!(
            err.starts_with(&format!("rank file '{bad}' line 2: 'x' is not a rank")),
            "{err}"
        );
        let err = read_list_file("/nonexistent/ftcoll", "arrival", 10, items).unwrap_err();
        assert!(
            err.starts_with("cannot read arrival file '/nonexistent/ftcoll'"),
            "{err}"
        );
        for p in [path, long, bad] {
            let _ = std::fs::remove_file(p);
        }
    }
}
