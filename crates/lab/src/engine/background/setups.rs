//! Paper 004's Section IV networks: one link (Figs. 5–6), two links with the background
//! class crossing both (Fig. 7), three links with routes 1, 123, 2 and 23 (Figs. 8–9).

use super::{Group, Params, Setup, StreamDef};
use sim::driver::StreamKind;

/// One link, short flows of load ρ, one background class, `k` long flows.
pub(crate) fn single_link(p: &Params, rho: f64, k: usize) -> Setup {
    Setup {
        links: 1,
        streams: vec![
            StreamDef {
                kind: StreamKind::Short,
                from: 0,
                to: 1,
                bps: rho * p.rate_bps,
                route: "1",
            },
            StreamDef {
                kind: StreamKind::Background,
                from: 0,
                to: 1,
                bps: p.background_bps,
                route: "1",
            },
        ],
        long: vec![(0, 1); k],
    }
}

pub(crate) fn two_links(p: &Params, rho: f64) -> Setup {
    let short = |from, route| StreamDef {
        kind: StreamKind::Short,
        from,
        to: from + 1,
        bps: rho * p.rate_bps,
        route,
    };
    Setup {
        links: 2,
        streams: vec![
            short(0, "1"),
            short(1, "2"),
            StreamDef {
                kind: StreamKind::Background,
                from: 0,
                to: 2,
                bps: p.background_bps,
                route: "12",
            },
        ],
        long: Vec::new(),
    }
}

/// Figure 8's network: route 1 = link 1 (short flows only, load ρ₁); routes 123, 2, 23 each
/// carry a background class and short flows of the same load (0.2, 0.1, 0.1).
pub(crate) fn three_links(p: &Params, rho1: f64) -> Setup {
    let c = p.rate_bps;
    let s = |kind, from, to, load: f64, route| StreamDef {
        kind,
        from,
        to,
        bps: load * c,
        route,
    };
    use StreamKind::{Background as B, Short as S};
    Setup {
        links: 3,
        streams: vec![
            s(S, 0, 1, rho1, "route1"),
            s(S, 0, 3, 0.2, "route123"),
            s(B, 0, 3, 0.2, "route123"),
            s(S, 1, 2, 0.1, "route2"),
            s(B, 1, 2, 0.1, "route2"),
            s(S, 1, 3, 0.1, "route23"),
            s(B, 1, 3, 0.1, "route23"),
        ],
        long: Vec::new(),
    }
}

/// One group per ρ1 of `p.loads`, each with Figure 8's network (k = 0).
pub(crate) fn three_link_groups(p: &Params) -> Vec<Group> {
    p.loads
        .iter()
        .map(|&r| (format!("rho1={r}"), 0, vec![(r, three_links(p, r))]))
        .collect()
}
