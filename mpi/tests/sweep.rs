//! `ftcoll-mpi sweep` under `mpirun --oversubscribe` on 1, 2 and 3 ranks against the
//! single-process `ftcoll sweep` (its library entry point, `ftcoll_lab::cli::run_to`, the code
//! the `ftcoll` binary runs): the same bytes for the three families in both formats, a shard,
//! a resumed `--output`, a point that fails, and bad input refused by every rank.
//!
//! Needs `mpirun` (Open MPI) on the `PATH`; as root, set `OMPI_ALLOW_RUN_AS_ROOT=1` and
//! `OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1` (CI does).

use std::process::{Command, ExitCode, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `ftcoll-mpi sweep FLAGS` on `ranks` ranks; kills it after two minutes (a hang fails the
/// test).
fn mpi_sweep(ranks: u32, flags: &[&str]) -> Output {
    let mut child = Command::new("mpirun")
        .args(["-n", &ranks.to_string(), "--oversubscribe"])
        .arg(env!("CARGO_BIN_EXE_ftcoll-mpi"))
        .arg("sweep")
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun runs (Open MPI installed?)");
    // Drain stdout while waiting: a sweep's output can outgrow the pipe's buffer.
    let stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut stdout = stdout;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut bytes).expect("reads stdout");
        bytes
    });
    let started = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("mpirun -n {ranks} ftcoll-mpi sweep {flags:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = child.wait_with_output().expect("output");
    out.stdout = reader.join().expect("reader");
    out
}

/// What the single-process `ftcoll sweep FLAGS` writes on stdout, and its exit code.
fn single_sweep(flags: &[&str]) -> (Vec<u8>, ExitCode) {
    let mut args: Vec<std::ffi::OsString> = vec!["ftcoll".into(), "sweep".into()];
    args.extend(flags.iter().map(Into::into));
    let mut out = Vec::new();
    let code = ftcoll_lab::cli::run_to(args, &mut out);
    (out, code)
}

fn words(flags: &str) -> Vec<&str> {
    flags.split(' ').collect()
}

/// A distributed sweep equals the single-process one byte for byte: rank 0 writes
/// the rows of points whose runs were cut into pieces and run on other ranks, merged in
/// whatever order they came back.
#[test]
fn a_sweep_on_one_two_and_three_ranks_writes_the_single_process_bytes() {
    for flags in [
        // Corrected Trees: the fast path (checked, sync) and the driver, failures drawn per run;
        // 200 runs are cut into 64-run pieces on 2 and 3 ranks.
        "--runs 200 --seed 5 --threads 1 --procs 60,120 --tree lame:2,binomial --correction checked,opportunistic:2 --fault-rate 0.02",
        // FTCO's three collectives, inactive ranks.
        "--runs 70 --seed 11 --threads 1 --procs 20 --collective bcast,reduce,allreduce --topology kary:2 --fault-count 0,2",
        // Corrected Gossip and its baselines, JSON lines.
        "--runs 40 --seed 3 --format json --threads 1 --procs 64 --gossip gos,ocg,ccg,fcg:1,big,bfb --fault-count 2",
        // A shard of a sweep (what `merge` takes).
        "--runs 30 --seed 9 --threads 1 --procs 50,60,70 --tree kary:3 --correction checked --fault-count 3 --shard 1/2 --engine full",
    ] {
        let flags = words(flags);
        let (expected, code) = single_sweep(&flags);
        assert_eq!(code, ExitCode::SUCCESS, "{flags:?}");
        assert!(expected.len() > 500, "{flags:?}: rows written");
        for ranks in [1, 2, 3] {
            let out = mpi_sweep(ranks, &flags);
            assert!(
                out.status.success(),
                "{ranks} ranks, {flags:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                out.stdout == expected,
                "{ranks} ranks, {flags:?}: the output differs from ftcoll sweep's:\n{}\n---\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&expected)
            );
        }
    }
}

/// An interrupted `--output` (rows, then a partial line) resumed on two ranks ends as the whole
/// single-process output; a second resume has nothing left to run and changes nothing.
#[test]
fn a_resumed_output_is_completed_on_two_ranks() {
    let dir = std::env::temp_dir().join(format!("ftcoll-mpi-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sweep.csv");
    let path = file.to_str().unwrap();
    let flags = "--runs 100 --seed 2 --threads 1 --procs 30,40,50 --tree lame:2 --correction checked --fault-count 0,2";
    let (whole, _) = single_sweep(&words(flags));
    // The identity line, the header, two rows and half of the third.
    let text = String::from_utf8(whole.clone()).unwrap();
    let cut: usize = text
        .split_inclusive('\n')
        .take(4)
        .map(str::len)
        .sum::<usize>()
        + 10;
    std::fs::write(&file, &whole[..cut]).unwrap();
    let with_output = format!("{flags} --output {path}");
    for _ in 0..2 {
        let out = mpi_sweep(2, &words(&with_output));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "rows go to the file");
        assert!(
            std::fs::read(&file).unwrap() == whole,
            "the file is the whole sweep"
        );
    }
    // A file of another sweep is refused before any work, the file untouched.
    let other = format!("{} --output {path}", flags.replace("--seed 2", "--seed 3"));
    let out = mpi_sweep(2, &words(&other));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("holds a different sweep"), "{stderr}");
    assert!(std::fs::read(&file).unwrap() == whole);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A point that fails (FTCO without Alg. 5 under an arrival spread: a run that never ends)
/// stops the sweep as `ftcoll sweep` stops: the rows before it, then its one error line, exit
/// code 2 on every rank; bad input is refused by every rank before any work, rank 0 printing
/// the one line.
#[test]
fn failures_end_every_rank_with_the_single_process_error() {
    let flags = words(
        "--runs 4 --seed 11 --threads 1 --procs 30 --collective allreduce --topology kary:2 --arrival none,uniform:50",
    );
    let (expected, code) = single_sweep(&flags);
    assert_eq!(code, ExitCode::from(2));
    for ranks in [1, 3] {
        let out = mpi_sweep(ranks, &flags);
        assert_eq!(out.status.code(), Some(2), "{ranks} ranks");
        assert!(
            out.stdout == expected,
            "{ranks} ranks: the rows before the failing point"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].starts_with("error: point 1: "), "{stderr}");
    }
    // `--help` prints the flags once and every rank exits with 0.
    let help = mpi_sweep(3, &["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("--procs"), "{text}");
    assert_eq!(text.matches("Usage").count(), 1, "{text}");
    for (flags, flag) in [
        (
            "--runs 4 --procs 0 --tree lame:2 --correction checked",
            "--procs",
        ),
        (
            "--runs 0 --procs 10 --tree lame:2 --correction checked",
            "--runs",
        ),
        ("--runs 4 --procs 10 --tree lame:2", "--correction"),
        (
            "--runs 4 --procs 10 --tree lame:2 --correction checked --fault-count 10",
            "--fault-count",
        ),
    ] {
        let out = mpi_sweep(3, &words(flags));
        assert_eq!(out.status.code(), Some(2), "{flags}");
        assert!(out.stdout.is_empty(), "{flags}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{flags}: {stderr}");
        assert!(errors[0].contains(flag), "{flags}: {stderr}");
    }
}

/// Every file of `dir`, relative path → bytes.
fn files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut all = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                all.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    all
}

/// A report without its last line (the run time, and what ran it).
fn without_run_time(bytes: &[u8]) -> String {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let body = text.trim_end_matches('\n');
    body[..body.rfind('\n').unwrap()].to_string()
}

/// `ftcoll-mpi reproduce` runs a paper's batches of points on every rank and writes the files
/// `ftcoll reproduce` writes: every CSV and SVG byte for byte, the report but for its last line
/// (the run time and what ran it). CG and FTCO at the test scale, on 1 and 3 ranks.
#[test]
fn a_reproduction_on_ranks_writes_the_single_process_files() {
    let root = std::env::temp_dir().join(format!("ftcoll-mpi-reproduce-{}", std::process::id()));
    for paper in ["cg", "ftco"] {
        let single = root.join(format!("{paper}-single"));
        let args: Vec<std::ffi::OsString> = ["ftcoll", "reproduce", paper, "--smoke", "--output"]
            .into_iter()
            .map(Into::into)
            .chain([single.clone().into_os_string()])
            .collect();
        let code = ftcoll_lab::cli::run_to(args, &mut Vec::new());
        assert_eq!(code, ExitCode::SUCCESS, "ftcoll reproduce {paper} --smoke");
        let expected = files(&single);
        assert!(expected.len() > 3, "{paper}: {:?}", expected.keys());
        for ranks in [1, 3] {
            let dir = root.join(format!("{paper}-{ranks}"));
            let mut child = Command::new("mpirun")
                .args(["-n", &ranks.to_string(), "--oversubscribe"])
                .arg(env!("CARGO_BIN_EXE_ftcoll-mpi"))
                .args(["reproduce", paper, "--smoke", "--output"])
                .arg(&dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("mpirun runs");
            let started = Instant::now();
            while child.try_wait().unwrap().is_none() {
                if started.elapsed() > Duration::from_secs(180) {
                    let _ = child.kill();
                    panic!("reproduce {paper} on {ranks} ranks hung");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{paper}, {ranks} ranks: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let got = files(&dir);
            assert_eq!(
                got.keys().collect::<Vec<_>>(),
                expected.keys().collect::<Vec<_>>(),
                "{paper}, {ranks} ranks"
            );
            for (name, bytes) in &expected {
                if name.ends_with(".md") {
                    assert_eq!(
                        without_run_time(&got[name]),
                        without_run_time(bytes),
                        "{paper}, {ranks} ranks: {name}"
                    );
                    let last = String::from_utf8_lossy(&got[name])
                        .lines()
                        .last()
                        .unwrap()
                        .to_string();
                    assert!(
                        last.ends_with(&format!(
                            "on {ranks} MPI ranks (one chunk of runs at a time each)."
                        )),
                        "{last}"
                    );
                } else {
                    assert!(
                        got[name] == *bytes,
                        "{paper}, {ranks} ranks: {name} differs"
                    );
                }
            }
        }
    }
    // An unknown paper is refused by every rank before any work.
    let out = mpi_reproduce_refused(&["nope", "--smoke"]);
    assert!(out.contains("nope"), "{out}");
    std::fs::remove_dir_all(&root).unwrap();
}

/// Runs `ftcoll-mpi reproduce ARGS` on 2 ranks, expecting exit code 2 and one error line;
/// returns the line.
fn mpi_reproduce_refused(args: &[&str]) -> String {
    let out = Command::new("mpirun")
        .args(["-n", "2", "--oversubscribe"])
        .arg(env!("CARGO_BIN_EXE_ftcoll-mpi"))
        .arg("reproduce")
        .args(args)
        .output()
        .expect("mpirun runs");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    errors[0].to_string()
}
