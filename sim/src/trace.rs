//! Run traces as Chrome trace JSON (opens in Perfetto or chrome://tracing).

use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt::Write;

use ftcoll::automaton::Phase;
use ftcoll::{Rank, Time};

/// One traced event.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum TraceEvent {
    /// A message sent at `sent` and handed to `to` at `received`.
    Message {
        /// Sender.
        from: Rank,
        /// Receiver.
        to: Rank,
        /// Send start.
        sent: Time,
        /// End of the receive overhead.
        received: Time,
        /// Its phase.
        phase: Phase,
    },
    /// A message that reached a crashed process at `at`.
    Lost {
        /// Sender.
        from: Rank,
        /// The crashed receiver.
        to: Rank,
        /// Send start.
        sent: Time,
        /// When it reached the receiver.
        at: Time,
        /// Its phase.
        phase: Phase,
    },
    /// An input an automaton ignored.
    Ignored {
        /// The process.
        rank: Rank,
        /// When.
        at: Time,
        /// Why (the automaton's static reason; owned only when read back from a file).
        reason: Cow<'static, str>,
    },
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Dissemination => "dissemination",
        Phase::Correction => "correction",
        Phase::Acknowledgment => "acknowledgment",
    }
}

/// Renders events as a Chrome trace: one track per rank, a send slice of length `o` on the
/// sender and a receive slice of length `o` on the receiver (1 step = 1 µs).
pub fn chrome_trace_json(events: &[TraceEvent], overhead: Time) -> String {
    let mut out = String::from("{\"traceEvents\":[");
    let mut first = true;
    let mut push = |out: &mut String, line: core::fmt::Arguments<'_>| {
        if !first {
            out.push(',');
        }
        first = false;
        let _ = out.write_fmt(line);
    };
    for event in events {
        match event {
            TraceEvent::Message {
                from,
                to,
                sent,
                received,
                phase,
            } => {
                let name = phase_name(*phase);
                push(&mut out, format_args!(
                    "{{\"name\":\"send {name} to {to}\",\"cat\":\"{name}\",\"ph\":\"X\",\"pid\":0,\"tid\":{from},\"ts\":{sent},\"dur\":{overhead}}}"
                ));
                push(&mut out, format_args!(
                    "{{\"name\":\"recv {name} from {from}\",\"cat\":\"{name}\",\"ph\":\"X\",\"pid\":0,\"tid\":{to},\"ts\":{},\"dur\":{overhead}}}",
                    received.saturating_sub(overhead)
                ));
            }
            TraceEvent::Lost {
                from,
                to,
                sent,
                at,
                phase,
            } => {
                let name = phase_name(*phase);
                push(&mut out, format_args!(
                    "{{\"name\":\"send {name} to {to} (lost at {at})\",\"cat\":\"{name}\",\"ph\":\"X\",\"pid\":0,\"tid\":{from},\"ts\":{sent},\"dur\":{overhead}}}"
                ));
            }
            TraceEvent::Ignored { rank, at, reason } => {
                push(&mut out, format_args!(
                    "{{\"name\":\"ignored: {reason}\",\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":{rank},\"ts\":{at}}}"
                ));
            }
        }
    }
    out.push_str("],\"displayTimeUnit\":\"ns\"}");
    out
}
