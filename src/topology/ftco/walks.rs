//! The iterators over an FTCO topology's neighbours ([`FtcoTopology::children`],
//! [`FtcoTopology::up`], [`FtcoTopology::ancestors`], [`FtcoTopology::live_frontier`]).

use core::fmt;

use super::*;

/// Children of one rank in send order; see [`FtcoTopology::children`].
#[derive(Clone, Debug)]
pub struct Children {
    pub(super) shape: Shape,
    pub(super) tree: Rank,
    pub(super) roots: u32,
    pub(super) local: u64,
    pub(super) size: u64,
    /// k-nomial: `k^i` of the current round; k-ary: 1.
    pub(super) step: u64,
    /// The next candidate local index.
    pub(super) next: u64,
    /// Index of the next candidate within its round (k-nomial) or among the `k` children.
    pub(super) j: u64,
}

impl Iterator for Children {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        if self.j == 0 || self.next >= self.size {
            // Later candidates are only larger.
            self.j = 0;
            return None;
        }
        let child = self.next;
        let k = self.shape.k;
        if self.shape.knomial {
            if self.j + 1 < k {
                self.j += 1;
                self.next += self.step;
            } else {
                self.j = 1;
                self.step *= k;
                self.next = self.local + self.step;
            }
        } else if self.j < k {
            self.j += 1;
            self.next += 1;
        } else {
            self.j = 0;
        }
        Some((child * u64::from(self.roots) + u64::from(self.tree)) as Rank)
    }
}

/// The `Up` of `f_tree`: a parent, or a multi-root root's other roots; see [`FtcoTopology::up`].
#[derive(Clone, Debug)]
pub struct Up {
    pub(super) first: Option<Rank>,
    pub(super) me: Rank,
    /// Next offset from `me` among the roots, `1..roots`.
    pub(super) offset: u32,
    pub(super) roots: u32,
}

impl Iterator for Up {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        if let Some(parent) = self.first.take() {
            return Some(parent);
        }
        if self.offset >= self.roots {
            return None;
        }
        let root = (u64::from(self.me) + u64::from(self.offset)) % u64::from(self.roots);
        self.offset += 1;
        Some(root as Rank)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left =
            usize::from(self.first.is_some()) + self.roots.saturating_sub(self.offset) as usize;
        (left, Some(left))
    }
}

/// `len()` gives `|Up|` in `O(1)`, even for `R − 1` other roots.
impl ExactSizeIterator for Up {}

/// Ancestors from the parent up to the tree root; see [`FtcoTopology::ancestors`].
#[derive(Clone, Debug)]
pub struct Ancestors<'a> {
    pub(super) topology: &'a FtcoTopology,
    pub(super) next: Option<Rank>,
}

impl Iterator for Ancestors<'_> {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        let current = self.next?;
        self.next = self.topology.parent(current);
        Some(current)
    }
}

/// Topmost live descendants; see [`FtcoTopology::live_frontier`].
pub struct LiveFrontier<F> {
    pub(super) topology: FtcoTopology,
    pub(super) stack: Vec<Children>,
    pub(super) failed: F,
}

impl<F> fmt::Debug for LiveFrontier<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveFrontier")
            .field("topology", &self.topology)
            .field("stack", &self.stack)
            .finish_non_exhaustive()
    }
}

impl<F: FnMut(Rank) -> bool> Iterator for LiveFrontier<F> {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        loop {
            let top = self.stack.last_mut()?;
            match top.next() {
                None => {
                    self.stack.pop();
                }
                Some(child) if (self.failed)(child) => {
                    let below = self.topology.children(child);
                    self.stack.push(below);
                }
                Some(child) => return Some(child),
            }
        }
    }
}
