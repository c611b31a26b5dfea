//! The one place the CLI's JSON and CSV lines are made: JSON objects through `serde_json`, CSV
//! records through `csv` (docs/reference/cli-output.md lists every command's fields).
//!
//! The commands compute their cells as text (a number already formatted the way the output has
//! always shown it, e.g. `12.5000` for a sweep's mean), so a JSON number cell is written by
//! `serde_json` either as an integer or, for a fraction, as its text validated as a JSON number
//! ([`serde_json::value::RawValue`]): the bytes stay what they were before `serde_json` wrote them.

use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// One value of a JSON object.
pub(super) enum JsonCell<'a> {
    /// A JSON string.
    Str(&'a str),
    /// A JSON number, from its text (`12`, `-3`, `0.2500`, `1e-6`).
    Num(&'a str),
    /// `null`.
    Null,
    /// A list of numbers, from their texts.
    Nums(Vec<&'a str>),
    /// A nested object.
    Object(JsonObject<'a>),
}

/// A JSON object whose fields keep the order they were given in.
pub(super) struct JsonObject<'a>(pub Vec<(&'a str, JsonCell<'a>)>);

impl Serialize for JsonObject<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Serialize for JsonCell<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Str(v) => s.serialize_str(v),
            Self::Num(v) => Number(v).serialize(s),
            Self::Null => s.serialize_none(),
            Self::Nums(vs) => {
                let mut seq = s.serialize_seq(Some(vs.len()))?;
                for v in vs {
                    seq.serialize_element(&Number(v))?;
                }
                seq.end()
            }
            Self::Object(o) => o.serialize(s),
        }
    }
}

/// A number from its text: an integer as an integer, anything else as the text itself once
/// `serde_json` has checked that it is a JSON number (anything else is a serialization error).
struct Number<'a>(&'a str);

impl Serialize for Number<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Only an integer written the canonical way takes the integer path (`"+5"` or `"007"`
        // parse, but writing them as `5` or `7` would not keep the text).
        if let Ok(u) = self.0.parse::<u64>() {
            if u.to_string() == self.0 {
                return s.serialize_u64(u);
            }
        }
        if let Ok(i) = self.0.parse::<i64>() {
            if i.to_string() == self.0 {
                return s.serialize_i64(i);
            }
        }
        let raw = RawValue::from_string(self.0.to_owned()).map_err(S::Error::custom)?;
        // `RawValue` trims surrounding whitespace and accepts any JSON value: only a number,
        // exactly as given, is written.
        let digits = ['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
        if raw.get().starts_with(digits) && raw.get() == self.0 {
            raw.serialize(s)
        } else {
            Err(S::Error::custom(format!("not a JSON number: {}", self.0)))
        }
    }
}

/// The JSON text (one line, no newline) of `value`.
pub(super) fn json_line<T: Serialize + ?Sized>(value: &T) -> std::io::Result<String> {
    serde_json::to_string(value).map_err(std::io::Error::from)
}

/// The CSV record (one line, no newline) of these cells, quoted where CSV needs it.
pub(super) fn csv_line<I, T>(cells: I) -> std::io::Result<String>
where
    I: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(cells).map_err(csv_io)?;
    let mut bytes = w.into_inner().map_err(|e| e.into_error())?;
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

fn csv_io(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => std::io::Error::other(format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers_keep_their_text_and_other_cells_their_type() {
        let object = JsonObject(vec![
            ("n", JsonCell::Num("12")),
            ("neg", JsonCell::Num("-3")),
            ("mean", JsonCell::Num("27.0000")),
            ("delta", JsonCell::Num("6.9315e-7")),
            ("name", JsonCell::Str("a \"b\"")),
            ("none", JsonCell::Null),
            ("faults", JsonCell::Nums(vec!["3", "14"])),
            ("empty", JsonCell::Nums(vec![])),
            (
                "m",
                JsonCell::Object(JsonObject(vec![("p99.9", JsonCell::Num("0.9750"))])),
            ),
        ]);
        assert_eq!(
            json_line(&object).unwrap(),
            r#"{"n":12,"neg":-3,"mean":27.0000,"delta":6.9315e-7,"name":"a \"b\"","none":null,"faults":[3,14],"empty":[],"m":{"p99.9":0.9750}}"#
        );
    }

    #[test]
    fn a_cell_that_is_not_a_json_number_is_an_error_not_output() {
        for bad in [
            "", "NaN", "inf", "1,5", "true", "\"7\"", "[1]", "12 ", " 0.5", "0.5x", "+5", "007",
            "+0.5",
        ] {
            let object = JsonObject(vec![("x", JsonCell::Num(bad))]);
            assert!(json_line(&object).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn csv_quotes_only_where_needed() {
        assert_eq!(csv_line(["a", "3 14", "", "0.5"]).unwrap(), "a,3 14,,0.5");
        assert_eq!(
            csv_line(["x,y", "say \"hi\""]).unwrap(),
            "\"x,y\",\"say \"\"hi\"\"\""
        );
    }
}
