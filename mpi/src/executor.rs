//! A paper's reproduction spread over MPI ranks: [`RankExecutor`] is an
//! [`Executor`] of every kind of point, so `ftcoll_lab`'s reproduction modules run on it
//! unchanged.
//!
//! Every rank runs the same reproduction code with the same seed, so every rank reaches the
//! same batches of points in the same order (the code is deterministic, and the statistics of
//! a batch, which the code may look at before choosing the next batch, are the same on every
//! rank: rank 0 sends them to all). In a batch, each point's runs are cut into chunks, as the
//! single-process executor cuts them, and rank 0 deals the chunks, costliest first, to the
//! ranks that ask for work, running chunks itself on a second thread; the chunks' statistics
//! are exact histograms and merge in any order. Only rank 0 writes the files.

use ftcoll_lab::experiment::{BatchPoint, Executor, Job, PointError};
use mpi::topology::{Communicator, SimpleCommunicator};
use serde::Serialize;

use crate::deal::{deal, end, serve, Filing, Tags};

/// The MPI tags of a batch's dealing.
const TAGS: Tags = Tags {
    to_worker: 3,
    to_dealer: 4,
};

/// A task: chunk `index` of batch `batch` (every rank cuts a batch the same way).
type Chunk = (u64, usize);

/// A chunk's result: its statistics (postcard) or its error.
type ChunkDone = (u64, usize, Result<Vec<u8>, String>);

/// An [`Executor`] whose batches run on every rank of a communicator. Every rank must call
/// [`Executor::run`] with the same jobs, as the same reproduction code does.
pub struct RankExecutor<'w> {
    world: &'w SimpleCommunicator,
    /// Batches run so far (a check that the ranks stay in step).
    batch: u64,
}

impl<'w> RankExecutor<'w> {
    /// An executor on every rank of `world`.
    pub fn new(world: &'w SimpleCommunicator) -> Self {
        Self { world, batch: 0 }
    }
}

/// A batch's chunks: `(cost, job, first run, runs)`, costliest first, as the single-process
/// executor orders them.
fn chunks<P: BatchPoint>(jobs: &[Job<'_, P>]) -> Vec<(u64, usize, u64, u64)> {
    let mut chunks = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        let size = job.point.chunk_runs().max(1);
        let mut first = 0;
        while first < job.runs {
            let n = size.min(job.runs - first);
            chunks.push((job.point.cost(), j, first, n));
            first += n;
        }
    }
    chunks.sort_by_key(|c| std::cmp::Reverse(c.0));
    chunks
}

/// Runs chunk `index` and encodes its statistics.
fn run_chunk<P: BatchPoint>(
    seed: u64,
    jobs: &[Job<'_, P>],
    chunks: &[(u64, usize, u64, u64)],
    index: usize,
) -> Result<P::Stats, String> {
    let &(_, j, first, n) = chunks
        .get(index)
        .ok_or_else(|| format!("chunk {index} of {}", chunks.len()))?;
    jobs[j]
        .point
        .run_many(seed, first, n)
        .map_err(|e| format!("{}: {}", jobs[j].label, e.0))
}

fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(value).map_err(|e| format!("encoding: {e}"))
}

fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| format!("decoding: {e}"))
}

/// Rank 0's filing: each chunk's statistics merged into its job's.
struct Merge<'a, P: BatchPoint> {
    batch: u64,
    chunks: &'a [(u64, usize, u64, u64)],
    stats: Vec<P::Stats>,
    merged: usize,
    error: Option<String>,
}

impl<P: BatchPoint> Filing<ChunkDone> for Merge<'_, P> {
    fn file(&mut self, done: Result<ChunkDone, String>) -> bool {
        let merged = done.and_then(|(batch, index, stats)| {
            if batch != self.batch {
                return Err(format!(
                    "batch {}: a chunk of batch {batch}: the ranks are out of step",
                    self.batch
                ));
            }
            let &(_, j, _, _) = self
                .chunks
                .get(index)
                .ok_or_else(|| format!("no chunk {index}"))?;
            let stats: P::Stats = decode(&stats?)?;
            P::merge(&mut self.stats[j], &stats);
            Ok(())
        });
        match merged {
            Ok(()) => self.merged += 1,
            Err(e) => self.error = self.error.take().or(Some(e)),
        }
        self.error.is_none()
    }
}

impl<P: BatchPoint> Executor<P> for RankExecutor<'_> {
    fn run(&mut self, seed: u64, jobs: &[Job<'_, P>]) -> Result<Vec<P::Stats>, PointError> {
        self.batch += 1;
        let batch = self.batch;
        let chunks = chunks(jobs);
        let run = |(b, index): Chunk| -> ChunkDone {
            (
                b,
                index,
                run_chunk(seed, jobs, &chunks, index).and_then(|s| encode(&s)),
            )
        };
        let world = self.world;
        if world.rank() != 0 {
            let last = serve::<Chunk, ChunkDone>(world, TAGS, &mut |(b, index)| {
                if b != batch {
                    // The same code on every rank reaches the same batches; a rank that is
                    // handed another batch's chunk cannot be brought back in step.
                    eprintln!(
                        "error: rank {}: batch {batch} handed a chunk of batch {b}: the ranks are out of step",
                        world.rank()
                    );
                    world.abort(1)
                }
                run((b, index))
            });
            // The batch's result as every rank has it: its error, or rank 0's statistics,
            // which a rank that cannot read them cannot follow (its next steps would differ).
            let unreadable = |e: String| -> ! {
                eprintln!("error: rank {}: the batch's result {e}", world.rank());
                world.abort(1)
            };
            let shared: Result<Vec<u8>, String> = decode(&last).unwrap_or_else(|e| unreadable(e));
            let bytes = shared.map_err(PointError)?;
            return Ok(decode(&bytes).unwrap_or_else(|e| unreadable(e)));
        }
        let mut merge = Merge::<P> {
            batch,
            chunks: &chunks,
            stats: vec![P::Stats::default(); jobs.len()],
            merged: 0,
            error: None,
        };
        let mut tasks = (0..chunks.len()).map(|index| (batch, index));
        deal(world, TAGS, &mut tasks, &run, &mut merge);
        if merge.error.is_none() && merge.merged != chunks.len() {
            merge.error = Some(format!(
                "batch {batch} ended with {} of its {} chunks",
                merge.merged,
                chunks.len()
            ));
        }
        // Every rank ends the batch with the same result: rank 0's own too comes from what it
        // sends (statistics it cannot encode are an error on every rank).
        let shared = match merge.error {
            Some(e) => Err(e),
            None => encode(&merge.stats),
        };
        end(world, TAGS, &encode(&shared).unwrap_or_default());
        shared.map(|_| merge.stats).map_err(PointError)
    }
}
