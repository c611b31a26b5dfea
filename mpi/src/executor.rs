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

use std::sync::mpsc;

use ftcoll_lab::experiment::{BatchPoint, Executor, Job, PointError};
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use serde::{Deserialize, Serialize};

use crate::sweep::POLL;

/// The tag of rank 0's messages to a worker rank.
const TO_WORKER: i32 = 3;
/// The tag of a worker rank's messages to rank 0.
const TO_DEALER: i32 = 4;

/// What rank 0 sends a worker.
#[derive(Debug, Serialize, Deserialize)]
enum Order {
    /// Run chunk `index` of the batch (every rank cuts the batch the same way).
    Run { batch: u64, index: usize },
    /// The batch is over: the merged statistics of every job (postcard), or its error.
    End {
        batch: u64,
        result: Result<Vec<u8>, String>,
    },
}

/// What a worker sends rank 0.
#[derive(Debug, Serialize, Deserialize)]
enum Report {
    /// Ready for a first chunk of batch `batch`.
    Ready { batch: u64 },
    /// A chunk's statistics (postcard), or its error.
    Done {
        batch: u64,
        index: usize,
        stats: Result<Vec<u8>, String>,
    },
}

/// An [`Executor`] whose batches run on every rank of a communicator. Every rank must call
/// [`Executor::run`] with the same jobs, as the same reproduction code does.
pub struct RankExecutor<'w> {
    world: &'w SimpleCommunicator,
    /// Batches run so far (a check that the ranks stay in step).
    batch: u64,
    /// Runs done on this rank (the report's last line on rank 0 gives the total).
    runs: u64,
}

impl<'w> RankExecutor<'w> {
    /// An executor on every rank of `world`.
    pub fn new(world: &'w SimpleCommunicator) -> Self {
        Self {
            world,
            batch: 0,
            runs: 0,
        }
    }

    /// The runs this rank ran.
    pub fn runs(&self) -> u64 {
        self.runs
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

impl<P: BatchPoint> Executor<P> for RankExecutor<'_> {
    fn run(&mut self, seed: u64, jobs: &[Job<'_, P>]) -> Result<Vec<P::Stats>, PointError> {
        self.batch += 1;
        let chunks = chunks(jobs);
        let result = if self.world.rank() == 0 {
            self.deal(seed, jobs, &chunks)
        } else {
            self.work(seed, jobs, &chunks)
        };
        result.map_err(PointError)
    }
}

impl RankExecutor<'_> {
    /// A worker rank's share of a batch: chunks until rank 0 ends the batch with its result.
    fn work<P: BatchPoint>(
        &mut self,
        seed: u64,
        jobs: &[Job<'_, P>],
        chunks: &[(u64, usize, u64, u64)],
    ) -> Result<Vec<P::Stats>, String> {
        let batch = self.batch;
        let dealer = self.world.process_at_rank(0);
        let send = |report: &Report| {
            // A report that fails to encode would leave rank 0 waiting; its error goes instead.
            let bytes = encode(report).unwrap_or_else(|e| {
                encode(&Report::Done {
                    batch,
                    index: usize::MAX,
                    stats: Err(e),
                })
                .unwrap_or_default()
            });
            dealer.send_with_tag(&bytes[..], TO_DEALER);
        };
        send(&Report::Ready { batch });
        loop {
            let bytes = loop {
                if let Some(m) = dealer.immediate_matched_probe_with_tag(TO_WORKER) {
                    break m.matched_receive_vec::<u8>().0;
                }
                std::thread::sleep(POLL);
            };
            let order = match decode::<Order>(&bytes) {
                Ok(order) => order,
                // Answered, so that rank 0 ends the batch (with this error) on every rank.
                Err(e) => {
                    send(&Report::Done {
                        batch,
                        index: usize::MAX,
                        stats: Err(format!("rank {}: an order {e}", self.world.rank())),
                    });
                    continue;
                }
            };
            match order {
                Order::Run { batch: b, index } if b == batch => {
                    let stats = run_chunk(seed, jobs, chunks, index).and_then(|s| encode(&s));
                    if stats.is_ok() {
                        self.runs += chunks[index].3;
                    }
                    send(&Report::Done {
                        batch,
                        index,
                        stats,
                    });
                }
                Order::End { batch: b, result } if b == batch => {
                    // The batch's error, as every rank has it.
                    let bytes = result?;
                    return match decode(&bytes) {
                        Ok(stats) => Ok(stats),
                        Err(e) => {
                            // Rank 0 holds the batch's statistics and this rank cannot read
                            // them: their next steps would differ, so nothing can end cleanly.
                            eprintln!(
                                "error: rank {}: the batch's statistics {e}",
                                self.world.rank()
                            );
                            self.world.abort(1)
                        }
                    };
                }
                other => {
                    // The same code on every rank reaches the same batches; a rank that sees
                    // another batch's order cannot be brought back in step.
                    eprintln!(
                        "error: rank {}: batch {batch} received {other:?}: the ranks are out of step",
                        self.world.rank()
                    );
                    self.world.abort(1);
                }
            }
        }
    }

    /// Rank 0's share: deals the chunks to the ranks that ask and to its own computing thread,
    /// merges their statistics, and ends the batch on every rank once no chunk is running.
    fn deal<P: BatchPoint>(
        &mut self,
        seed: u64,
        jobs: &[Job<'_, P>],
        chunks: &[(u64, usize, u64, u64)],
    ) -> Result<Vec<P::Stats>, String> {
        let batch = self.batch;
        let world = self.world;
        let ranks = world.size() as usize;
        let mut stats = vec![P::Stats::default(); jobs.len()];
        let mut error: Option<String> = None;
        let mut next = 0usize;
        let mut waiting = 0usize;
        let mut local_runs = 0u64;
        let mut merged = 0usize;
        std::thread::scope(|scope| {
            let (to_local, local_in) = mpsc::channel::<usize>();
            let (local_out, from_local) = mpsc::channel::<(usize, Result<P::Stats, String>)>();
            scope.spawn(move || {
                for index in local_in {
                    let done = run_chunk(seed, jobs, chunks, index);
                    if local_out.send((index, done)).is_err() {
                        return;
                    }
                }
            });
            let mut local_busy = false;
            let mut merge =
                |index: usize, done: Result<P::Stats, String>, error: &mut Option<String>| {
                    match done {
                        Ok(s) => match chunks.get(index) {
                            Some(&(_, j, _, _)) => {
                                P::merge(&mut stats[j], &s);
                                merged += 1;
                            }
                            None => *error = error.take().or(Some(format!("no chunk {index}"))),
                        },
                        Err(e) => *error = error.take().or(Some(e)),
                    }
                };
            loop {
                let mut progressed = false;
                if !local_busy && error.is_none() && next < chunks.len() {
                    match to_local.send(next) {
                        Ok(()) => {
                            local_busy = true;
                            local_runs += chunks[next].3;
                        }
                        Err(_) => error = Some("rank 0's computing thread stopped".into()),
                    }
                    next += 1;
                    progressed = true;
                }
                match from_local.try_recv() {
                    Ok((index, done)) => {
                        local_busy = false;
                        progressed = true;
                        merge(index, done, &mut error);
                    }
                    // The thread ended without a report (it panicked: the scope raises it once
                    // the loop ends).
                    Err(mpsc::TryRecvError::Disconnected) if local_busy => {
                        local_busy = false;
                        error = error
                            .take()
                            .or(Some("rank 0's computing thread stopped".into()));
                    }
                    Err(_) => {}
                }
                if let Some(m) = world
                    .any_process()
                    .immediate_matched_probe_with_tag(TO_DEALER)
                {
                    let (bytes, status) = m.matched_receive_vec::<u8>();
                    let rank = status.source_rank();
                    progressed = true;
                    match decode::<Report>(&bytes) {
                        Ok(Report::Ready { batch: b }) if b == batch => {}
                        Ok(Report::Done {
                            batch: b,
                            index,
                            stats: done,
                        }) if b == batch => {
                            merge(index, done.and_then(|bytes| decode(&bytes)), &mut error);
                        }
                        Ok(other) => {
                            error = error.take().or(Some(format!(
                            "batch {batch}: rank {rank} sent {other:?}: the ranks are out of step"
                        )))
                        }
                        Err(e) => error = error.take().or(Some(format!("rank {rank}: {e}"))),
                    }
                    if error.is_none() && next < chunks.len() {
                        let order = Order::Run { batch, index: next };
                        next += 1;
                        let bytes = encode(&order).unwrap_or_default();
                        world
                            .process_at_rank(rank)
                            .send_with_tag(&bytes[..], TO_WORKER);
                    } else {
                        waiting += 1;
                    }
                }
                let dealt = error.is_some() || next == chunks.len();
                if waiting == ranks - 1 && !local_busy && dealt {
                    break;
                }
                if !progressed {
                    std::thread::sleep(POLL);
                }
            }
        });
        self.runs += local_runs;
        if error.is_none() && merged != chunks.len() {
            error = Some(format!(
                "batch {batch} ended with {merged} of its {} chunks",
                chunks.len()
            ));
        }
        // Every rank ends the batch with the same result: rank 0's own too comes from what it
        // sends (statistics it cannot encode are an error on every rank).
        let shared = match error {
            Some(e) => Err(e),
            None => encode(&stats),
        };
        let result = match &shared {
            Ok(_) => Ok(stats),
            Err(e) => Err(e.clone()),
        };
        let end = encode(&Order::End {
            batch,
            result: shared,
        })
        .unwrap_or_default();
        for rank in 1..world.size() {
            world
                .process_at_rank(rank)
                .send_with_tag(&end[..], TO_WORKER);
        }
        result
    }
}
