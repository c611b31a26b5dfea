//! A sweep spread over MPI ranks: the points of one `ftcoll sweep` command line, cut into
//! pieces (a range of one point's runs), dealt to ranks as they ask for work, and put back
//! together on rank 0, which writes exactly the bytes the single-process `ftcoll sweep` writes.
//!
//! Every rank parses the same flags into the same [`SweepPlan`] (so bad input is refused by
//! every rank, with the same line), runs its pieces on its own threads (`--threads` per rank),
//! and sends each piece's [`Tally`] to rank 0. A point's runs are exact histograms, merged in
//! any order, so how the runs were cut and who ran them never shows in a row. Rank 0 deals the
//! pieces in point order (a slow piece holds up no other rank: the next free one takes the next
//! piece), runs pieces itself on a second thread while it deals, and writes each point's row as
//! soon as the point and every point before it are complete. Waiting ranks poll with short
//! sleeps rather than block inside MPI, whose blocking receives spin and would take a core from
//! the ranks still computing on an oversubscribed machine.
//!
//! Two differences from `ftcoll sweep`: a closed stdout is an error here (exit code 1; the
//! single process ends quietly), since rank 0 must tell the other ranks how the sweep ended;
//! and `--memory-limit` (or the memory available) is checked by each rank for itself, so ranks
//! sharing a node should share it out (`--memory-limit` per rank).

use std::io::Write;
use std::ops::Range;
use std::sync::mpsc;
use std::time::Duration;

use ftcoll_lab::cli::sweep::{SweepPlan, Tally};
use ftcoll_lab::cli::Failure;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use serde::{Deserialize, Serialize};

/// The tag of rank 0's messages to a worker rank.
const TO_WORKER: i32 = 1;
/// The tag of a worker rank's messages to rank 0.
const TO_DEALER: i32 = 2;
/// How long a rank with nothing to do sleeps between polls.
pub(crate) const POLL: Duration = Duration::from_micros(200);

/// A piece of work: a range of one point's runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Piece {
    point: usize,
    runs: Range<u64>,
}

/// What rank 0 sends a worker.
#[derive(Debug, Serialize, Deserialize)]
enum Order {
    /// Run a piece and report it.
    Run(Piece),
    /// The sweep is over: exit with this code (0 for success; rank 0 prints any error).
    End(u8),
}

/// What a worker sends rank 0.
#[derive(Debug, Serialize, Deserialize)]
enum Report {
    /// Ready for a first piece.
    Ready,
    /// A piece's runs.
    Done(Piece, Box<Tally>),
    /// A piece that failed (the error `ftcoll sweep` would print).
    Failed(Piece, Failure),
}

/// The pieces of points `from..` of a plan, in point order, made as they are dealt (a grid's
/// pieces are never all held: they would outweigh the memory its admission counted per
/// point): each point's runs cut into pieces of `ceil(runs / 4R)` runs, but at least 64 per
/// thread of the dealing rank (a piece's runs are parallel over a rank's threads in chunks of
/// 64) and at most the point, so that R ranks share even a sweep of one point.
struct Pieces {
    point: usize,
    start: u64,
    points: usize,
    runs: u64,
    size: u64,
}

impl Pieces {
    fn new(plan: &SweepPlan, from: usize, ranks: usize, threads: usize) -> Self {
        let runs = plan.runs();
        let least = 64 * threads.max(1) as u64;
        Self {
            point: from,
            start: 0,
            points: plan.points(),
            runs,
            size: runs.div_ceil(4 * ranks as u64).max(least).min(runs.max(1)),
        }
    }

    /// Whether every piece has been dealt.
    fn is_empty(&self) -> bool {
        self.point >= self.points || self.runs == 0
    }
}

impl Iterator for Pieces {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        if self.is_empty() {
            return None;
        }
        let end = (self.start + self.size).min(self.runs);
        let piece = Piece {
            point: self.point,
            runs: self.start..end,
        };
        self.start = end;
        if end == self.runs {
            self.point += 1;
            self.start = 0;
        }
        Some(piece)
    }
}

/// Runs `plan` on every rank of `world`; rank 0 writes its output to `out` (or to `--output`).
/// Returns rank 0's failure, whose exit code every rank ends with: the first failing point's, as
/// `ftcoll sweep` prints it after the rows before that point, or rank 0's own (its output); on
/// the other ranks the line is empty (rank 0 prints it).
pub fn distributed_sweep(
    world: &SimpleCommunicator,
    plan: &SweepPlan,
    out: &mut impl Write,
) -> Result<(), Failure> {
    if world.rank() == 0 {
        deal(world, plan, out)
    } else {
        work(world, plan)
    }
}

/// Polls (sleeping between tries) for a message from rank 0 with `tag`.
fn wait_for(world: &SimpleCommunicator, tag: i32) -> Vec<u8> {
    loop {
        if let Some(matched) = world
            .process_at_rank(0)
            .immediate_matched_probe_with_tag(tag)
        {
            return matched.matched_receive_vec::<u8>().0;
        }
        std::thread::sleep(POLL);
    }
}

/// A worker rank: asks for pieces, runs them and reports their tallies until rank 0 ends the
/// sweep; its result is rank 0's.
fn work(world: &SimpleCommunicator, plan: &SweepPlan) -> Result<(), Failure> {
    let dealer = world.process_at_rank(0);
    let send = |report: &Report| {
        // Encoding an enum of plain data into a vector cannot fail; if it did, the empty
        // message still answers rank 0, which records it as an undecodable report.
        let bytes = postcard::to_allocvec(report).unwrap_or_default();
        dealer.send_with_tag(&bytes[..], TO_DEALER);
    };
    send(&Report::Ready);
    loop {
        let bytes = wait_for(world, TO_WORKER);
        match postcard::from_bytes::<Order>(&bytes) {
            Ok(Order::End(0)) => return Ok(()),
            Ok(Order::End(code)) => {
                return Err(Failure {
                    line: String::new(),
                    code,
                })
            }
            Ok(Order::Run(piece)) => match plan.run(piece.point, piece.runs.clone()) {
                Ok(tally) => send(&Report::Done(piece, Box::new(tally))),
                Err(failure) => send(&Report::Failed(piece, failure)),
            },
            // Rank 0 sends only orders; an undecodable one would be a bug, reported as a
            // failed piece rather than a hang.
            Err(e) => send(&Report::Failed(
                Piece {
                    point: 0,
                    runs: 0..0,
                },
                Failure {
                    line: format!("error: rank {}: an undecodable order: {e}", world.rank()),
                    code: 1,
                },
            )),
        }
    }
}

/// The points' tallies as pieces come in, and the rows written so far.
struct Assembly {
    tallies: Vec<Option<Tally>>,
    /// Runs still missing per point.
    missing: Vec<u64>,
    /// The next point whose row is to be written.
    next: usize,
    /// The failure of the lowest failing point so far.
    failure: Option<(usize, Failure)>,
}

impl Assembly {
    /// Adds a finished piece.
    fn add(&mut self, piece: &Piece, tally: Tally) -> Result<(), Failure> {
        let Some(slot) = self.tallies.get_mut(piece.point) else {
            return Err(Failure {
                line: format!(
                    "error: a report for point {}, which the sweep does not have",
                    piece.point
                ),
                code: 1,
            });
        };
        match slot.as_mut() {
            Some(t) => t.merge(&tally)?,
            None => *slot = Some(tally),
        }
        let runs = piece.runs.end - piece.runs.start;
        match self.missing.get_mut(piece.point) {
            Some(missing) if *missing >= runs => *missing -= runs,
            _ => {
                return Err(Failure {
                    line: format!(
                        "error: point {}: more runs reported than it has",
                        piece.point
                    ),
                    code: 1,
                })
            }
        }
        Ok(())
    }

    /// Files a report.
    fn take(&mut self, report: Report) {
        match report {
            Report::Ready => {}
            Report::Done(piece, tally) => {
                if let Err(failure) = self.add(&piece, *tally) {
                    self.fatal(failure);
                }
            }
            Report::Failed(piece, failure) => self.fail(&piece, failure),
        }
    }

    /// Records a failure of the sweep itself (rank 0's output, a garbled report): it ends the
    /// sweep before any further row.
    fn fatal(&mut self, failure: Failure) {
        let point = self.next;
        if self.failure.as_ref().is_none_or(|(p, _)| point < *p) {
            self.failure = Some((point, failure));
        }
    }

    /// Records a failed piece; the lowest failing point's failure is the sweep's.
    fn fail(&mut self, piece: &Piece, failure: Failure) {
        if self.failure.as_ref().is_none_or(|(p, _)| piece.point < *p) {
            self.failure = Some((piece.point, failure));
        }
    }

    /// Writes the rows of every complete point that follows the last one written (stopping
    /// before a failed point).
    fn write_ready(
        &mut self,
        plan: &SweepPlan,
        output: &mut ftcoll_lab::cli::sweep::SweepOutput,
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        while self.next < self.tallies.len()
            && self.missing[self.next] == 0
            && self.failure.as_ref().is_none_or(|(p, _)| self.next < *p)
        {
            let tally = self.tallies[self.next].take().ok_or_else(|| Failure {
                line: format!("error: point {} has no runs", self.next),
                code: 1,
            })?;
            output.write_row(&plan.row(self.next, &tally)?, out)?;
            self.next += 1;
        }
        Ok(())
    }
}

/// Rank 0: deals the pieces to the worker ranks and to its own computing thread, writes the
/// rows in point order, and ends the sweep on every rank once no piece is running. After a
/// failure (a point's, or rank 0's output) no new piece starts, but running ones are still
/// collected, so that no rank is left blocked in a send.
fn deal(world: &SimpleCommunicator, plan: &SweepPlan, out: &mut impl Write) -> Result<(), Failure> {
    let ranks = world.size() as usize;
    let points = plan.points();
    let mut assembly = Assembly {
        tallies: vec![None; points],
        missing: vec![plan.runs(); points],
        next: 0,
        failure: None,
    };
    let (mut output, mut todo) = match plan.open(out) {
        Ok(output) => {
            let done = output.done();
            assembly.next = done;
            assembly.missing[..done].fill(0);
            (Some(output), Pieces::new(plan, done, ranks, plan.threads()))
        }
        Err(failure) => {
            assembly.failure = Some((0, failure));
            (None, Pieces::new(plan, plan.points(), ranks, 1))
        }
    };
    // Worker ranks that asked for work and got none (they wait for the end).
    let mut waiting = 0;
    std::thread::scope(|scope| {
        // Rank 0's own computing thread: pieces in, reports out.
        let (to_local, local_in) = mpsc::channel::<Piece>();
        let (local_out, from_local) = mpsc::channel::<Report>();
        scope.spawn(move || {
            for piece in local_in {
                let report = match plan.run(piece.point, piece.runs.clone()) {
                    Ok(tally) => Report::Done(piece, Box::new(tally)),
                    Err(failure) => Report::Failed(piece, failure),
                };
                if local_out.send(report).is_err() {
                    return;
                }
            }
        });
        let mut local_busy = false;
        loop {
            let mut progressed = false;
            if !local_busy && assembly.failure.is_none() {
                if let Some(piece) = todo.next() {
                    progressed = true;
                    match to_local.send(piece) {
                        Ok(()) => local_busy = true,
                        Err(_) => assembly.fatal(Failure {
                            line: "error: rank 0's computing thread stopped".into(),
                            code: 1,
                        }),
                    }
                }
            }
            match from_local.try_recv() {
                Ok(report) => {
                    local_busy = false;
                    progressed = true;
                    assembly.take(report);
                }
                // The thread ended without a report (it panicked: the scope raises it once
                // every rank has been told to end).
                Err(mpsc::TryRecvError::Disconnected) if local_busy => {
                    local_busy = false;
                    assembly.fatal(Failure {
                        line: "error: rank 0's computing thread stopped".into(),
                        code: 1,
                    });
                }
                Err(_) => {}
            }
            if let Some(matched) = world
                .any_process()
                .immediate_matched_probe_with_tag(TO_DEALER)
            {
                let (bytes, status) = matched.matched_receive_vec::<u8>();
                let rank = status.source_rank();
                progressed = true;
                match postcard::from_bytes::<Report>(&bytes) {
                    Ok(report) => assembly.take(report),
                    Err(e) => assembly.fatal(Failure {
                        line: format!("error: an undecodable report from rank {rank}: {e}"),
                        code: 1,
                    }),
                }
                match todo.next().filter(|_| assembly.failure.is_none()) {
                    Some(piece) => send_order(world, rank, &Order::Run(piece)),
                    None => waiting += 1,
                }
            }
            if let Some(output) = output.as_mut() {
                if let Err(failure) = assembly.write_ready(plan, output, out) {
                    assembly.fatal(failure);
                }
            }
            let dealt = assembly.failure.is_some() || todo.is_empty();
            if waiting == ranks - 1 && !local_busy && dealt {
                break;
            }
            if !progressed {
                std::thread::sleep(POLL);
            }
        }
    });
    let result = match assembly.failure {
        Some((_, failure)) => Err(failure),
        // Every piece was dealt and none failed, so every row must be out: say so if not,
        // rather than end with a short output.
        None if output.as_ref().is_some_and(|o| o.done() < points) => Err(Failure {
            line: format!(
                "error: the sweep ended with {} of its {points} rows written",
                output.as_ref().map_or(0, |o| o.done())
            ),
            code: 1,
        }),
        None => Ok(()),
    };
    let code = result.as_ref().err().map_or(0, |f| f.code.max(1));
    for rank in 1..world.size() {
        send_order(world, rank, &Order::End(code));
    }
    result
}

/// Sends an order to worker `rank` (encoding an enum of plain data cannot fail).
fn send_order(world: &SimpleCommunicator, rank: i32, order: &Order) {
    let bytes = postcard::to_allocvec(order).unwrap_or_default();
    world
        .process_at_rank(rank)
        .send_with_tag(&bytes[..], TO_WORKER);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(runs: u64, procs: &str) -> SweepPlan {
        let flags = format!(
            "--runs {runs} --threads 1 --procs {procs} --tree lame:2 --correction checked --engine full"
        );
        ftcoll_lab::cli::sweep_plan(flags.split(' ').map(Into::into).collect()).unwrap()
    }

    #[test]
    fn pieces_cover_every_run_of_every_point_once_in_order() {
        for (runs, procs, ranks) in [
            (1, "10", 1),
            (1000, "10,20", 3),
            (64, "10", 8),
            (1001, "10", 2),
        ] {
            let plan = plan(runs, procs);
            let all: Vec<Piece> = Pieces::new(&plan, 0, ranks, 1).collect();
            for point in 0..plan.points() {
                let mut next = 0;
                for p in all.iter().filter(|p| p.point == point) {
                    assert_eq!(p.runs.start, next);
                    assert!(p.runs.end > p.runs.start);
                    next = p.runs.end;
                }
                assert_eq!(next, runs, "point {point} of {runs} runs on {ranks} ranks");
            }
            assert!(all.windows(2).all(|w| w[0].point <= w[1].point));
        }
        // A point of 10^6 runs is cut for every rank to share it.
        assert!(Pieces::new(&plan(1_000_000, "10"), 0, 2, 1).count() >= 8);
        // At least 64 runs per thread of a rank: 2 threads take 128-run pieces.
        assert!(Pieces::new(&plan(1000, "10"), 0, 4, 2)
            .all(|p| p.runs.end - p.runs.start >= 128 || p.runs.end == 1000));
        // Resuming skips the points already written.
        assert!(Pieces::new(&plan(10, "10,20"), 1, 2, 1).all(|p| p.point == 1));
    }
}
