//! Helpers shared by the `reproduce` tests (CG, FTCO, PAP): a fresh temporary directory, the CLI
//! run in a directory, and CSV cells by column name.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh, empty temporary directory path for this test process.
pub fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ftcoll-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `ftcoll args` in `cwd` (created), asserts success, returns stdout.
pub fn run(cwd: &Path, args: &[&str]) -> String {
    std::fs::create_dir_all(cwd).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ftcoll"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A file's text, or a panic naming it.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The cells of the CSV row whose first cells are `prefix`, by column name.
pub fn row(csv: &str, prefix: &str) -> Vec<(String, String)> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let line = lines
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no row {prefix:?} in\n{csv}"));
    header
        .iter()
        .zip(line.split(','))
        .map(|(h, v)| (h.to_string(), v.to_string()))
        .collect()
}

/// The cell of `row` in column `name`.
pub fn cell<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    &row.iter()
        .find(|c| c.0 == name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .1
}
