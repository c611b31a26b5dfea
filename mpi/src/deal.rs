//! Work dealt over the ranks of a communicator, the engine of the distributed sweep
//! ([`crate::sweep`]) and of the rank executor ([`crate::executor`]): rank 0 hands the next task
//! to whichever rank asks for one, runs tasks itself on a second thread while it deals, and
//! files each result as it comes in; once no task is running it ends every worker with one
//! message. The tasks, their results and that last message are the caller's.
//!
//! Waiting ranks poll with short sleeps rather than block inside MPI: Open MPI's blocking
//! receives spin and would take a core from the ranks still computing on an oversubscribed
//! machine.

use std::sync::mpsc;
use std::time::Duration;

use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// How long a rank with nothing to do sleeps between polls.
const POLL: Duration = Duration::from_micros(200);

/// The two MPI tags of one kind of dealing: rank 0's messages to the workers and theirs back.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tags {
    pub(crate) to_worker: i32,
    pub(crate) to_dealer: i32,
}

/// What rank 0 sends a worker.
#[derive(Debug, Serialize, Deserialize)]
enum Order<T> {
    /// Run a task and report its result.
    Run(T),
    /// The dealing is over; the caller's last word (encoded).
    End(Vec<u8>),
}

/// What a worker sends rank 0.
#[derive(Debug, Serialize, Deserialize)]
enum Report<D> {
    /// Ready for a first task.
    Ready,
    /// A task's result.
    Done(D),
    /// An order this rank could not read.
    Garbled(String),
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Enums of plain data encode into a vector without fail; were it to fail, the empty message
    // still answers its receiver, which records it as undecodable instead of waiting.
    postcard::to_allocvec(value).unwrap_or_default()
}

/// What rank 0 does with the results as they come in.
pub(crate) trait Filing<D> {
    /// Files a task's result (`Err`: a report that could not be read, or rank 0's thread
    /// stopped); `false` stops the dealing: no task starts after it.
    fn file(&mut self, done: Result<D, String>) -> bool;

    /// Called between polls (the sweep writes the rows that are complete); `false` stops the
    /// dealing as [`Filing::file`] does.
    fn progress(&mut self) -> bool {
        true
    }
}

/// Rank 0's side: deals `tasks` to the worker ranks and to its own thread running `run`, and
/// gives every result to `filing`. The dealing ends once no task runs and none will start
/// (the tasks are out, or `filing` stopped it); every worker then waits for [`end`].
pub(crate) fn deal<T, D>(
    world: &SimpleCommunicator,
    tags: Tags,
    tasks: &mut dyn Iterator<Item = T>,
    run: &(dyn Fn(T) -> D + Sync),
    filing: &mut dyn Filing<D>,
) where
    T: Serialize + Send,
    D: DeserializeOwned + Send,
{
    let workers = world.size() as usize - 1;
    // Workers that asked for work and got none (they wait for the end).
    let mut waiting = 0;
    // Whether tasks may still start: until they are out or `filing` says stop.
    let mut dealing = true;
    let mut next = |dealing: &mut bool| {
        let task = if *dealing { tasks.next() } else { None };
        *dealing &= task.is_some();
        task
    };
    std::thread::scope(|scope| {
        let (to_local, local_in) = mpsc::channel::<T>();
        let (local_out, from_local) = mpsc::channel::<D>();
        scope.spawn(move || {
            for task in local_in {
                if local_out.send(run(task)).is_err() {
                    return;
                }
            }
        });
        let stopped = || Err("rank 0's computing thread stopped".to_string());
        let mut local_busy = false;
        loop {
            let mut progressed = false;
            if !local_busy {
                if let Some(task) = next(&mut dealing) {
                    progressed = true;
                    match to_local.send(task) {
                        Ok(()) => local_busy = true,
                        Err(_) => dealing &= filing.file(stopped()),
                    }
                }
            }
            match from_local.try_recv() {
                Ok(done) => {
                    local_busy = false;
                    progressed = true;
                    dealing &= filing.file(Ok(done));
                }
                // The thread ended without a result (it panicked: the scope raises it once the
                // loop is over).
                Err(mpsc::TryRecvError::Disconnected) if local_busy => {
                    local_busy = false;
                    dealing &= filing.file(stopped());
                }
                Err(_) => {}
            }
            if let Some(matched) = world
                .any_process()
                .immediate_matched_probe_with_tag(tags.to_dealer)
            {
                let (bytes, status) = matched.matched_receive_vec::<u8>();
                let rank = status.source_rank();
                progressed = true;
                let filed = match postcard::from_bytes::<Report<D>>(&bytes) {
                    Ok(Report::Ready) => true,
                    Ok(Report::Done(done)) => filing.file(Ok(done)),
                    Ok(Report::Garbled(e)) => filing.file(Err(format!("rank {rank}: {e}"))),
                    Err(e) => {
                        filing.file(Err(format!("an undecodable report from rank {rank}: {e}")))
                    }
                };
                dealing &= filed;
                match next(&mut dealing) {
                    Some(task) => world
                        .process_at_rank(rank)
                        .send_with_tag(&encode(&Order::Run(task))[..], tags.to_worker),
                    None => waiting += 1,
                }
            }
            dealing &= filing.progress();
            if waiting == workers && !local_busy && !dealing {
                break;
            }
            if !progressed {
                std::thread::sleep(POLL);
            }
        }
    });
}

/// Rank 0 ends every worker's [`serve`] with `last`, the caller's last word.
pub(crate) fn end(world: &SimpleCommunicator, tags: Tags, last: &[u8]) {
    let bytes = encode(&Order::<()>::End(last.to_vec()));
    for rank in 1..world.size() {
        world
            .process_at_rank(rank)
            .send_with_tag(&bytes[..], tags.to_worker);
    }
}

/// A worker rank's side: asks for tasks, runs them with `run` and reports their results until
/// rank 0's [`end`], whose last word it returns.
pub(crate) fn serve<T, D>(
    world: &SimpleCommunicator,
    tags: Tags,
    run: &mut dyn FnMut(T) -> D,
) -> Vec<u8>
where
    T: DeserializeOwned,
    D: Serialize,
{
    let dealer = world.process_at_rank(0);
    let send = |report: &Report<D>| dealer.send_with_tag(&encode(report)[..], tags.to_dealer);
    send(&Report::Ready);
    loop {
        let bytes = loop {
            if let Some(matched) = dealer.immediate_matched_probe_with_tag(tags.to_worker) {
                break matched.matched_receive_vec::<u8>().0;
            }
            std::thread::sleep(POLL);
        };
        match postcard::from_bytes::<Order<T>>(&bytes) {
            Ok(Order::Run(task)) => send(&Report::Done(run(task))),
            Ok(Order::End(last)) => return last,
            // Answered, so that rank 0 files the error and ends the dealing.
            Err(e) => send(&Report::Garbled(format!("an undecodable order: {e}"))),
        }
    }
}
