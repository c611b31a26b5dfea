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
//! soon as the point and every point before it are complete (the dealing itself is
//! `mpi/src/deal.rs`'s, shared with the rank executor).
//!
//! Two differences from `ftcoll sweep`: a closed stdout is an error here (exit code 1; the
//! single process ends quietly), since rank 0 must tell the other ranks how the sweep ended;
//! and `--memory-limit` (or the memory available) is checked by each rank for itself, so ranks
//! sharing a node should share it out (`--memory-limit` per rank).

use std::io::Write;
use std::ops::Range;

use ftcoll_lab::cli::sweep::{SweepOutput, SweepPlan, Tally};
use ftcoll_lab::cli::Failure;
use mpi::topology::{Communicator, SimpleCommunicator};
use serde::{Deserialize, Serialize};

use crate::deal::{deal, end, serve, Filing, Tags};

/// The MPI tags of a sweep's dealing.
const TAGS: Tags = Tags {
    to_worker: 1,
    to_dealer: 2,
};

/// A piece of work: a range of one point's runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Piece {
    point: usize,
    runs: Range<u64>,
}

/// A piece's result: its runs' tally, or the failure `ftcoll sweep` would print.
type PieceDone = (Piece, Result<Box<Tally>, Failure>);

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
    if world.rank() != 0 {
        let run = &mut |piece: Piece| {
            let tally = plan.run(piece.point, piece.runs.clone()).map(Box::new);
            (piece, tally)
        };
        // The last word is the exit code; rank 0 prints the error.
        return match serve::<Piece, PieceDone>(world, TAGS, run).first() {
            Some(0) => Ok(()),
            code => Err(Failure {
                line: String::new(),
                code: code.copied().unwrap_or(1),
            }),
        };
    }
    let result = assemble(world, plan, out);
    let code = result.as_ref().err().map_or(0, |f| f.code.max(1));
    end(world, TAGS, &[code]);
    result
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

/// Rank 0's filing: each piece's tally into its point, each complete row written in order.
struct Rows<'a, W> {
    assembly: Assembly,
    plan: &'a SweepPlan,
    output: &'a mut SweepOutput,
    out: &'a mut W,
}

impl<W: Write> Filing<PieceDone> for Rows<'_, W> {
    fn file(&mut self, done: Result<PieceDone, String>) -> bool {
        match done {
            Ok((piece, Ok(tally))) => {
                if let Err(failure) = self.assembly.add(&piece, *tally) {
                    self.assembly.fatal(failure);
                }
            }
            Ok((piece, Err(failure))) => self.assembly.fail(&piece, failure),
            Err(e) => self.assembly.fatal(Failure {
                line: format!("error: {e}"),
                code: 1,
            }),
        }
        // After a failure no new piece starts: every point before it is already dealt.
        self.assembly.failure.is_none()
    }

    fn progress(&mut self) -> bool {
        if let Err(failure) = self.assembly.write_ready(self.plan, self.output, self.out) {
            self.assembly.fatal(failure);
        }
        self.assembly.failure.is_none()
    }
}

/// Rank 0: deals the pieces (to the other ranks and to its own second thread) and writes the
/// rows in point order. After a failure (a point's, or rank 0's output) no new piece starts,
/// but running ones are still collected, so that no rank is left blocked in a send.
fn assemble(
    world: &SimpleCommunicator,
    plan: &SweepPlan,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let ranks = world.size() as usize;
    let points = plan.points();
    let mut assembly = Assembly {
        tallies: vec![None; points],
        missing: vec![plan.runs(); points],
        next: 0,
        failure: None,
    };
    let run = |piece: Piece| {
        let tally = plan.run(piece.point, piece.runs.clone()).map(Box::new);
        (piece, tally)
    };
    let mut output = match plan.open(out) {
        Ok(output) => output,
        Err(failure) => {
            // Nothing to deal: every worker's request is answered before the end.
            deal(world, TAGS, &mut std::iter::empty(), &run, &mut Ended);
            return Err(failure);
        }
    };
    let done = output.done();
    assembly.next = done;
    assembly.missing[..done].fill(0);
    let mut pieces = Pieces::new(plan, done, ranks, plan.threads());
    let mut rows = Rows {
        assembly,
        plan,
        output: &mut output,
        out,
    };
    deal(world, TAGS, &mut pieces, &run, &mut rows);
    let assembly = rows.assembly;
    match assembly.failure {
        Some((_, failure)) => Err(failure),
        // Every piece was dealt and none failed, so every row must be out: say so if not,
        // rather than end with a short output.
        None if output.done() < points => Err(Failure {
            line: format!(
                "error: the sweep ended with {} of its {points} rows written",
                output.done()
            ),
            code: 1,
        }),
        None => Ok(()),
    }
}

/// The filing of a sweep that ended before its first piece (no piece is dealt).
struct Ended;

impl Filing<PieceDone> for Ended {
    fn file(&mut self, _: Result<PieceDone, String>) -> bool {
        false
    }
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
