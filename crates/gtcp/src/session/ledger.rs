//! The ledger of the virtual queues (paper 000, Algorithms 1 and 4): the one owner of every
//! number the invariant is made of.
//!
//! Per connection *i* it keeps q_v(i) and the counters of [`ConnCounters`]; per session the
//! bytes handed over and not yet sent (`unsent`), Σ q_v over live connections, the bytes of flows
//! whose first connection does not exist yet (`unowned`), and so the orphan debt
//! `unsent − Σ q_v − unowned` (what dead connections owed, carried by the others). Every change
//! goes through one method here, each keeping
//!
//! * per connection: `payload + q_v + forgiven == owner + adopted`
//!   ([`ConnCounters::check_invariant`]);
//! * per session: `Σ q_v + unowned ≤ unsent`.
//!
//! An accounting error is a bug: it fails loudly in debug builds (and the property tests run
//! in debug), and saturates in release builds rather than wrapping around.

use crate::conn::ConnCounters;

/// Session-wide totals of the ledger; the per-connection part lives in each connection's
/// [`ConnCounters`] and is changed only through these methods.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    /// Bytes handed over and not sent (new, or to be sent again).
    unsent: u64,
    /// Σ q_v over live connections.
    sum_vq: u64,
    /// Bytes handed over by flows whose first connection is not established yet: they join
    /// that connection's virtual queue when it arrives.
    unowned: u64,
    /// The send buffer per connection (the hand-over bound).
    bound: u64,
    /// Σ over live connections of max(0, q_v − bound): what flows the policy sends ahead of
    /// their own connections have handed over beyond that connection's buffer.
    lent: u64,
}

/// `a − b`, which must not go below zero.
fn debit(a: &mut u64, b: u64, what: &str) {
    debug_assert!(*a >= b, "ledger: {what} {a} − {b} below zero");
    *a = a.saturating_sub(b);
}

impl Ledger {
    /// An empty ledger for connections of send buffer `bound`.
    pub fn new(bound: u64) -> Self {
        Ledger {
            bound,
            ..Ledger::default()
        }
    }

    /// Σ max(0, q_v − bound) over live connections.
    pub fn lent(&self) -> u64 {
        self.lent
    }

    fn over(&self, vq: u64) -> u64 {
        vq.saturating_sub(self.bound)
    }

    /// Keeps `lent` as connection `c`'s queue moves from `before` to its current value.
    fn relend(&mut self, before: u64, c: &ConnCounters) {
        let (b, a) = (self.over(before), self.over(c.virtual_queue));
        debit(&mut self.lent, b, "lent");
        self.lent += a;
    }

    /// Bytes handed over and not yet sent.
    pub fn unsent(&self) -> u64 {
        self.unsent
    }

    /// What dead connections owed and no live one has carried yet.
    pub fn orphan(&self) -> u64 {
        debug_assert!(
            self.sum_vq + self.unowned <= self.unsent,
            "ledger: Σ q_v {} + unowned {} above unsent {}",
            self.sum_vq,
            self.unowned,
            self.unsent
        );
        self.unsent.saturating_sub(self.sum_vq + self.unowned)
    }

    /// Algorithm 1, `on_wri`: a flow handed over `n` bytes. They join its connection's virtual
    /// queue, or wait for its first connection (`None`), or — a flow whose connection died
    /// (`orphaned`) — become orphan debt.
    pub fn hand_over(&mut self, owner: Option<&mut ConnCounters>, orphaned: bool, n: u64) {
        self.unsent += n;
        match owner {
            Some(c) => {
                let before = c.virtual_queue;
                c.virtual_queue += n;
                c.owner_bytes += n;
                self.sum_vq += n;
                self.relend(before, c);
            }
            None if orphaned => {}
            None => self.unowned += n,
        }
        self.check(None);
    }

    /// A connection is established for a flow: it owes what the flow handed over before it
    /// existed (`waiting`), and a replacement takes over `inherited` of the orphan debt (what
    /// its flow still has to send, as a new TCP connection for the flow would).
    pub fn attach(&mut self, c: &mut ConnCounters, waiting: u64, inherited: u64) {
        debit(&mut self.unowned, waiting, "unowned");
        let inherited = inherited.min(self.orphan());
        let before = c.virtual_queue;
        c.virtual_queue += waiting + inherited;
        c.owner_bytes += waiting + inherited;
        self.sum_vq += waiting + inherited;
        self.relend(before, c);
        self.check(Some(c));
    }

    /// A connection is gone: what it still owed becomes orphan debt.
    pub fn detach(&mut self, c: &ConnCounters) {
        debit(&mut self.sum_vq, c.virtual_queue, "Σ q_v");
        let over = self.over(c.virtual_queue);
        debit(&mut self.lent, over, "lent");
        self.check(None);
    }

    /// Algorithm 4: connection `c` carried `len` payload bytes. They are charged to its own
    /// virtual queue first (at most `own`, what the policy lets it pay for) and the rest to the
    /// orphan debt (`adopted`). Returns the part charged to its own queue.
    pub fn carry(&mut self, c: &mut ConnCounters, len: u64, own: u64) -> u64 {
        let from_own = len.min(own).min(c.virtual_queue);
        debug_assert!(
            len - from_own <= self.orphan(),
            "ledger: {} bytes adopted beyond the orphan debt {}",
            len - from_own,
            self.orphan()
        );
        debit(&mut self.unsent, len, "unsent");
        let before = c.virtual_queue;
        c.virtual_queue -= from_own;
        self.relend(before, c);
        self.sum_vq -= from_own;
        c.adopted_bytes += len - from_own;
        c.payload_bytes += len;
        self.check(Some(c));
        from_own
    }

    /// Bytes that went out on a connection that died unacknowledged must go again: on the
    /// live connection of their flow (`owner`, which takes them over as a replacement takes
    /// over its flow's unsent bytes in [`attach`](Self::attach)), or as orphan debt.
    pub fn requeue(&mut self, owner: Option<&mut ConnCounters>, n: u64) {
        self.unsent += n;
        if let Some(c) = owner {
            let before = c.virtual_queue;
            c.virtual_queue += n;
            c.owner_bytes += n;
            self.sum_vq += n;
            self.relend(before, c);
            self.check(Some(c));
        }
    }

    /// Unsent bytes that will never go: a reset flow's (with what of them was `awaiting` its
    /// first connection), or lost bytes the receiver turned out to hold. The virtual queues
    /// that promised them shrink next ([`forgive`](Self::forgive)).
    pub fn drop_unsent(&mut self, n: u64, awaiting: u64) {
        debit(&mut self.unowned, awaiting, "unowned");
        debit(&mut self.unsent, n, "unsent");
    }

    /// By how much the virtual queues promise more than is unsent (after
    /// [`drop_unsent`](Self::drop_unsent)).
    pub fn excess(&self) -> u64 {
        (self.sum_vq + self.unowned).saturating_sub(self.unsent)
    }

    /// Strikes up to `excess` bytes from connection `c`'s virtual queue without carrying them
    /// (`forgiven`): what plain TCP would have discarded. Returns the bytes struck.
    pub fn forgive(&mut self, c: &mut ConnCounters, excess: u64) -> u64 {
        let cut = c.virtual_queue.min(excess);
        let before = c.virtual_queue;
        c.virtual_queue -= cut;
        self.relend(before, c);
        c.forgiven_bytes += cut;
        self.sum_vq -= cut;
        // Only this connection's identity: the session's holds again once every queue that
        // promised the dropped bytes has been cut ([`settled`](Self::settled)).
        if cfg!(debug_assertions) {
            if let Err(e) = c.check_invariant() {
                panic!("ledger: {e} ({c:?})");
            }
        }
        cut
    }

    /// Strikes up to `excess` bytes from the queue of a flow whose first connection does not
    /// exist yet (`awaiting`, its share of `unowned`): that queue is a virtual queue like the
    /// live ones (Algorithm 1 charges a flow's bytes to its connection from the first write),
    /// so it is cut like them when the bytes it promised are gone. Other connections may have
    /// carried the flow's bytes on their own queues (Algorithm 4: the policy picks the flow, the
    /// connection pays), so after a reset it may promise more than is left unsent. Returns the
    /// bytes struck.
    pub fn forgive_unowned(&mut self, awaiting: &mut u64, excess: u64) -> u64 {
        let cut = (*awaiting).min(excess);
        *awaiting -= cut;
        debit(&mut self.unowned, cut, "unowned");
        cut
    }

    /// A flow whose first connection never came is forgotten: its share of `unowned` goes
    /// (what of it was not carried by others becomes orphan debt of nobody's queue).
    pub fn release_unowned(&mut self, awaiting: u64) {
        debit(&mut self.unowned, awaiting, "unowned");
        self.check(None);
    }

    /// Debug builds: after [`drop_unsent`](Self::drop_unsent) and the cuts of
    /// [`forgive`](Self::forgive), the queues promise no more than is unsent.
    pub fn settled(&self) {
        self.check(None);
    }

    /// Debug builds: the session-wide identity, and the per-connection one of `c`.
    fn check(&self, c: Option<&ConnCounters>) {
        if cfg!(debug_assertions) {
            let _ = self.orphan();
            if let Some(c) = c {
                if let Err(e) = c.check_invariant() {
                    panic!("ledger: {e} ({c:?})");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_carries_its_own_then_orphan_debt() {
        let mut l = Ledger::default();
        let mut a = ConnCounters::default();
        let mut b = ConnCounters::default();
        l.hand_over(Some(&mut a), false, 100);
        l.hand_over(Some(&mut b), false, 50);
        assert_eq!((l.unsent(), l.orphan()), (150, 0));
        // b dies owing 50: orphan debt, carried by a after its own 100.
        l.detach(&b);
        assert_eq!(l.orphan(), 50);
        assert_eq!(l.carry(&mut a, 120, u64::MAX), 100);
        assert_eq!(
            (a.virtual_queue, a.adopted_bytes, a.payload_bytes),
            (0, 20, 120)
        );
        assert_eq!(l.orphan(), 30);
        a.check_closed().unwrap();
    }

    #[test]
    fn bytes_before_the_first_connection_join_it() {
        let mut l = Ledger::default();
        l.hand_over(None, false, 70);
        assert_eq!((l.unsent(), l.orphan()), (70, 0));
        let mut c = ConnCounters::default();
        l.attach(&mut c, 70, 0);
        assert_eq!((c.virtual_queue, c.owner_bytes), (70, 70));
        c.check_invariant().unwrap();
    }

    #[test]
    fn dropped_bytes_are_forgiven_from_the_queues() {
        let mut l = Ledger::default();
        let mut c = ConnCounters::default();
        l.hand_over(Some(&mut c), false, 80);
        l.carry(&mut c, 30, u64::MAX);
        l.drop_unsent(50, 0);
        assert_eq!(l.excess(), 50);
        assert_eq!(l.forgive(&mut c, 50), 50);
        assert_eq!(l.excess(), 0);
        c.check_closed().unwrap();
        assert_eq!(c.forgiven_bytes, 50);
    }

    #[test]
    fn a_waiting_queue_whose_bytes_others_carried_is_forgiven_after_a_reset() {
        let mut l = Ledger::default();
        let mut a = ConnCounters::default();
        // Flow A (connection a) hands over 100; flow W, with no connection yet, 60.
        l.hand_over(Some(&mut a), false, 100);
        l.hand_over(None, false, 60);
        let mut w_awaiting = 60;
        // a carries W's 60 on its own queue (the policy picked W).
        assert_eq!(l.carry(&mut a, 60, u64::MAX), 60);
        // A is reset: its 100 unsent bytes go; a's queue of 40 is cut, W's 60 promise 20 too many.
        l.drop_unsent(100, 0);
        assert_eq!(l.forgive(&mut a, l.excess()), 40);
        assert_eq!(l.excess(), 60);
        assert_eq!(l.forgive_unowned(&mut w_awaiting, l.excess()), 60);
        assert_eq!((w_awaiting, l.excess(), l.unsent()), (0, 0, 0));
        l.settled();
        a.check_closed().unwrap();
    }

    #[test]
    fn a_forgotten_waiting_flow_releases_its_share() {
        let mut l = Ledger::default();
        let mut a = ConnCounters::default();
        l.hand_over(Some(&mut a), false, 50);
        l.hand_over(None, false, 30);
        // a carries the waiting flow's 30 on its queue; that flow ends and is forgotten.
        l.carry(&mut a, 30, u64::MAX);
        l.release_unowned(30);
        // a's own flow still has 50 to send: 20 on a's queue, 30 orphan debt anyone carries.
        assert_eq!((l.unsent(), a.virtual_queue, l.orphan()), (50, 20, 30));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "ledger")]
    fn an_accounting_error_fails_loudly_in_debug_builds() {
        let mut l = Ledger::default();
        l.drop_unsent(1, 0);
    }
}
