//! `--config FILE` for `simulate`, `ftco-simulate` and `sweep`: a JSON object (or a TOML table
//! when the file name ends in `.toml`) holding the same parameters as the flags, keyed by the
//! flag's long name without `--` (`"procs"`, `"fault-rate"`) or its short letter (`"L"`, `"o"`).
//! Values are strings, numbers, booleans (a switch: `true` gives it, `false` leaves it out) or
//! lists (joined with commas, as the flags spell lists).
//!
//! **Flags on the command line override the file**: the file's value of a parameter is used
//! only when the command line does not give that flag. The file becomes flags placed before the
//! command line's, so every value goes through the flags' own validation and messages.
//! A file that cannot be read or parsed, an unknown key and a value of the wrong shape are
//! one-line errors naming the file and the key (exit code 2).

use std::ffi::OsString;

use clap::{ArgAction, CommandFactory};
use serde_json::Value;

/// The subcommands that take `--config`.
const WITH_CONFIG: [&str; 3] = ["simulate", "ftco-simulate", "sweep"];

/// Replaces `--config FILE` in `args` (the whole command line, program name first) by the
/// file's parameters as flags. Command lines without `--config`, and other subcommands, are
/// returned unchanged.
pub(super) fn expand(args: Vec<OsString>) -> Result<(Vec<OsString>, Option<FromFile>), String> {
    let Some(sub_at) = subcommand_index(&args) else {
        return Ok((args, None));
    };
    let sub = args[sub_at].to_string_lossy().into_owned();
    if !WITH_CONFIG.contains(&sub.as_str()) {
        return Ok((args, None));
    }
    let mut rest = Vec::new();
    let mut path = None;
    let mut tokens = args[sub_at + 1..].iter();
    while let Some(token) = tokens.next() {
        let text = token.to_string_lossy();
        let file = if text == "--config" {
            Some(
                tokens
                    .next()
                    .ok_or("--config: a file name is required")?
                    .clone(),
            )
        } else {
            text.strip_prefix("--config=").map(OsString::from)
        };
        match file {
            Some(_) if path.is_some() => return Err("--config: given twice".into()),
            Some(f) => path = Some(f),
            None => rest.push(token.clone()),
        }
    }
    let Some(path) = path else {
        return Ok((args, None));
    };
    let flags = flags_from_file(&sub, &path, &rest)?;
    let from_file = FromFile {
        path: path.to_string_lossy().into_owned(),
        flags: flags
            .iter()
            .map(|f| f.to_string_lossy().into_owned())
            .filter(|f| f.starts_with('-'))
            .collect(),
    };
    let mut out = args[..=sub_at].to_vec();
    out.extend(flags);
    out.extend(rest);
    Ok((out, Some(from_file)))
}

/// The flags a `--config` file supplied, and its path.
#[derive(Debug)]
pub(super) struct FromFile {
    path: String,
    flags: Vec<String>,
}

/// ` (from FILE)` when `flag` (as an error names it: `--procs`, `-L`) was the file's, so that
/// a bad value points at where it was written; empty otherwise.
pub(super) fn origin(from_file: Option<&FromFile>, flag: Option<&str>) -> String {
    match (from_file, flag) {
        (Some(file), Some(flag)) if file.flags.iter().any(|f| f == flag) => {
            format!(" (from --config {})", file.path)
        }
        _ => String::new(),
    }
}

/// The index of the subcommand: the first token that is neither an option nor the value of
/// the global `--memory-limit`.
fn subcommand_index(args: &[OsString]) -> Option<usize> {
    let mut i = 1;
    while let Some(token) = args.get(i) {
        let text = token.to_string_lossy();
        if text == "--memory-limit" {
            i += 2;
        } else if text.starts_with('-') {
            i += 1;
        } else {
            return Some(i);
        }
    }
    None
}

/// One flag of the subcommand: long name, short letter, whether it is a switch.
struct Flag {
    long: Option<String>,
    short: Option<char>,
    switch: bool,
}

impl Flag {
    /// The key a file uses for it.
    fn key(&self) -> String {
        match (&self.long, self.short) {
            (Some(long), _) => long.clone(),
            (None, Some(short)) => short.to_string(),
            (None, None) => String::new(),
        }
    }

    /// Whether `token` (of the command line) gives this flag.
    fn given_by(&self, token: &str) -> bool {
        if let Some(long) = &self.long {
            if token == format!("--{long}") || token.starts_with(&format!("--{long}=")) {
                return true;
            }
        }
        match self.short {
            Some(short) => !token.starts_with("--") && token.starts_with(&format!("-{short}")),
            None => false,
        }
    }
}

/// The flags of subcommand `sub` that a file may set.
fn flags_of(sub: &str) -> Vec<Flag> {
    let command = crate::cli::Cli::command();
    let Some(sub) = command.find_subcommand(sub) else {
        return Vec::new();
    };
    sub.get_arguments()
        .filter(|a| a.get_long() != Some("config") && !a.is_positional())
        .filter(|a| a.get_long().is_some() || a.get_short().is_some())
        .filter(|a| !matches!(a.get_action(), ArgAction::Help | ArgAction::Version))
        .map(|a| Flag {
            long: a.get_long().map(str::to_owned),
            short: a.get_short(),
            switch: matches!(a.get_action(), ArgAction::SetTrue),
        })
        .collect()
}

/// The file's parameters as flags, leaving out those the command line (`given`) sets.
fn flags_from_file(
    sub: &str,
    path: &OsString,
    given: &[OsString],
) -> Result<Vec<OsString>, String> {
    let shown = path.to_string_lossy();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--config {shown}: cannot read the file: {e}"))?;
    let table =
        parse(&text, shown.ends_with(".toml")).map_err(|e| format!("--config {shown}: {e}"))?;
    let flags = flags_of(sub);
    let mut out = Vec::new();
    for (key, value) in table {
        let Some(flag) = flags.iter().find(|f| f.key() == key) else {
            let allowed: Vec<String> = flags.iter().map(Flag::key).collect();
            return Err(format!(
                "--config {shown}: unknown field `{key}` for {sub} (allowed: {})",
                allowed.join(", ")
            ));
        };
        if given.iter().any(|t| flag.given_by(&t.to_string_lossy())) {
            continue; // the command line overrides the file
        }
        let spelled = match &flag.long {
            Some(long) => format!("--{long}"),
            None => format!("-{key}"),
        };
        let bad = |what: &str| format!("--config {shown}: field `{key}`: {what}");
        match (&value, flag.switch) {
            (Value::Bool(true), true) => out.push(spelled.into()),
            (Value::Bool(false), true) => {}
            (_, true) => return Err(bad("expected true or false")),
            (Value::Array(items), false) => {
                let items: Option<Vec<String>> = items.iter().map(scalar).collect();
                let items = items.ok_or_else(|| bad("a list holds strings or numbers only"))?;
                out.push(spelled.into());
                out.push(items.join(",").into());
            }
            (v, false) => {
                let v = scalar(v).ok_or_else(|| bad("expected a string, a number or a list"))?;
                out.push(spelled.into());
                out.push(v.into());
            }
        }
    }
    Ok(out)
}

/// A string or number as the flag spells it.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The file's top-level table (keys sorted).
fn parse(text: &str, toml: bool) -> Result<Vec<(String, Value)>, String> {
    let value: Value = if toml {
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let first = e
                .message()
                .lines()
                .next()
                .unwrap_or("invalid TOML")
                .to_owned();
            match e.span() {
                Some(span) => {
                    let line = text[..span.start.min(text.len())].lines().count().max(1);
                    format!("line {line}: {first}")
                }
                None => first,
            }
        })?;
        serde_json::to_value(table).map_err(|e| e.to_string())?
    } else {
        serde_json::from_str(text).map_err(|e| e.to_string())?
    };
    match value {
        Value::Object(map) => Ok(map.into_iter().collect()),
        _ => Err("expected an object of parameters ({\"procs\": 1024, …})".into()),
    }
}
