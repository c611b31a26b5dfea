//! The correction ring (CT §3.1, CG §III): ranks `0..P` in order, `P - 1` next to 0.

/// A direction on the ring. CT's correction starts [`Side::Left`] (toward `r - 1`, CT Lemma 2's
/// proof); CG's algorithms start [`Side::Right`] ("forward", toward `r + 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Side {
    /// Toward `r - 1` (CG's backward, ◁).
    Left,
    /// Toward `r + 1` (CG's forward, ▷).
    Right,
}

impl Side {
    /// The opposite direction.
    pub fn other(self) -> Self {
        match self {
            Self::Left => Self::Right,
            Self::Right => Self::Left,
        }
    }

    /// Index for per-side arrays.
    pub(crate) fn index(self) -> usize {
        match self {
            Self::Left => 0,
            Self::Right => 1,
        }
    }
}

/// One process's view of the ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ring {
    /// This process.
    pub me: u32,
    /// Ring size `P`.
    pub procs: u32,
}

impl Ring {
    /// The rank `distance` steps away toward `side`.
    pub fn neighbor(&self, side: Side, distance: u32) -> u32 {
        let p = u64::from(self.procs);
        let d = u64::from(distance) % p;
        let me = u64::from(self.me);
        (match side {
            Side::Right => (me + d) % p,
            Side::Left => (me + p - d) % p,
        }) as u32
    }

    /// How far `other` is from this process when walking toward `side` (0 for itself).
    pub fn distance(&self, side: Side, other: u32) -> u32 {
        let p = u64::from(self.procs);
        let (me, other) = (u64::from(self.me), u64::from(other) % p);
        (match side {
            Side::Right => (other + p - me) % p,
            Side::Left => (me + p - other) % p,
        }) as u32
    }

    /// Number of other processes, `P - 1`: a sender that has covered this many ranks over both
    /// sides has reached everyone and stops for good (DESIGN §3).
    pub fn others(&self) -> u32 {
        self.procs.saturating_sub(1)
    }
}
