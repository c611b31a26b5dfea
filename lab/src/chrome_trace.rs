//! A run's trace ([`ftcoll_sim::TraceEvent`]s) as Chrome trace JSON, which Perfetto and
//! chrome://tracing open: one track per rank, a send slice of length `o` on the sender and a
//! receive slice of length `o` on the receiver (1 step = 1 µs).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use ftcoll::automaton::Phase;
use ftcoll::{Rank, Time};
use ftcoll_sim::TraceEvent;
use serde::Serialize;

/// The document: Chrome's JSON object format.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    trace_events: Vec<Event>,
    display_time_unit: &'static str,
}

/// One event of Chrome's format: a complete slice (`ph` = `X`, with `dur`) or an instant
/// (`ph` = `i`, thread scope `s` = `t`).
#[derive(Serialize)]
struct Event {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    pid: u32,
    tid: Rank,
    ts: Time,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<Time>,
}

impl Event {
    fn slice(name: String, phase: &'static str, rank: Rank, ts: Time, dur: Time) -> Self {
        Self {
            name,
            cat: Some(phase),
            ph: "X",
            s: None,
            pid: 0,
            tid: rank,
            ts,
            dur: Some(dur),
        }
    }
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Dissemination => "dissemination",
        Phase::Correction => "correction",
        Phase::Acknowledgment => "acknowledgment",
        Phase::Liveness => "liveness",
    }
}

/// Renders `events` as a Chrome trace, each send and receive a slice of length `overhead`.
pub fn chrome_trace_json(events: &[TraceEvent], overhead: Time) -> String {
    let mut trace_events = Vec::with_capacity(2 * events.len());
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
                trace_events.push(Event::slice(
                    format!("send {name} to {to}"),
                    name,
                    *from,
                    *sent,
                    overhead,
                ));
                trace_events.push(Event::slice(
                    format!("recv {name} from {from}"),
                    name,
                    *to,
                    received.saturating_sub(overhead),
                    overhead,
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
                trace_events.push(Event::slice(
                    format!("send {name} to {to} (lost at {at})"),
                    name,
                    *from,
                    *sent,
                    overhead,
                ));
            }
            TraceEvent::Ignored { rank, at, reason } => trace_events.push(Event {
                name: format!("ignored: {reason}"),
                cat: None,
                ph: "i",
                s: Some("t"),
                pid: 0,
                tid: *rank,
                ts: *at,
                dur: None,
            }),
            // A kind of event this renderer does not know yet is left out of the picture.
            _ => {}
        }
    }
    let document = Document {
        trace_events,
        display_time_unit: "ns",
    };
    serde_json::to_string(&document).expect("strings and integers always serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_is_one_chrome_event_with_its_text_escaped() {
        let events = [
            TraceEvent::Message {
                from: 0,
                to: 2,
                sent: 5,
                received: 9,
                phase: Phase::Correction,
            },
            TraceEvent::Lost {
                from: 1,
                to: 3,
                sent: 2,
                at: 4,
                phase: Phase::Dissemination,
            },
            TraceEvent::Ignored {
                rank: 2,
                at: 7,
                reason: "a \"quoted\" reason\\".into(),
            },
        ];
        let json = chrome_trace_json(&events, 1);
        let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        assert_eq!(v["displayTimeUnit"], "ns");
        let list = v["traceEvents"].as_array().unwrap();
        assert_eq!(list.len(), 4);
        assert_eq!(list[0]["name"], "send correction to 2");
        assert_eq!(list[0]["tid"], 0);
        assert_eq!(
            (list[0]["ts"].as_u64(), list[0]["dur"].as_u64()),
            (Some(5), Some(1))
        );
        assert_eq!(list[1]["name"], "recv correction from 0");
        assert_eq!(
            (list[1]["tid"].as_u64(), list[1]["ts"].as_u64()),
            (Some(2), Some(8))
        );
        assert_eq!(list[2]["name"], "send dissemination to 3 (lost at 4)");
        assert_eq!(list[3]["name"], "ignored: a \"quoted\" reason\\");
        assert_eq!(list[3]["ph"], "i");
        assert!(list[3].get("dur").is_none());
    }
}
