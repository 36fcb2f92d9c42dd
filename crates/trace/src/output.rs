//! Terminal tables and CSV files of a [`Report`].

use std::fmt::Write as _;
use std::io;

use crate::analysis::{Report, NS};
use crate::routes::Table1;
use crate::segments::SegmentSizes;

fn pct(part: u64, total: u64) -> String {
    if total == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / total as f64)
    }
}

/// Table 1 as the paper prints it (volumes in KB = 1000 bytes, as the paper's).
pub fn table1_text(t: &Table1) -> String {
    let mut s = String::new();
    let rows = [
        ("Routes (number)", t.routes, t.routes_competing, 1),
        ("Flows (number)", t.flows, t.flows_competing, 1),
        ("Flows (volume, KB)", t.bytes, t.bytes_competing, 1000),
    ];
    let _ = writeln!(
        s,
        "{:<20} {:>14} {:>18} {:>7}",
        "", "Total", "Shared/Competing", "Ratio"
    );
    for (name, total, comp, unit) in rows {
        let _ = writeln!(
            s,
            "{:<20} {:>14} {:>18} {:>7}",
            name,
            total / unit,
            comp / unit,
            pct(comp, total)
        );
    }
    let _ = writeln!(
        s,
        "{:<20} {:>14} {:>18} {:>7}",
        "paper 000 (Table 1)", "", "", ""
    );
    let _ = writeln!(
        s,
        "  routes 5.7%, flows 18.1%, volume 58.2% (30 min of an OC192 backbone link, 2014)"
    );
    let shares = t.concurrency_shares();
    if !shares.is_empty() {
        let _ = writeln!(
            s,
            "Concurrent flows on a route (share of the time a route has at least one active flow; peak {}):",
            t.peak_concurrency
        );
        for (n, share) in shares.iter().take(12) {
            let _ = writeln!(s, "  {n:>4} flows: {:>6.2}%", 100.0 * share);
        }
        if shares.len() > 12 {
            let rest: f64 = shares[12..].iter().map(|(_, x)| x).sum();
            let _ = writeln!(s, "  more flows: {:>6.2}%", 100.0 * rest);
        }
    }
    if t.concurrency_left_out > 0 {
        let _ = writeln!(
            s,
            "({} groups of competing flows too large for the period budget are left out of the concurrency distribution; Table 1 counts them)",
            t.concurrency_left_out
        );
    }
    if t.connections_without_data > 0 {
        let _ = writeln!(
            s,
            "({} connections without data are not flows)",
            t.connections_without_data
        );
    }
    s
}

/// The whole `schedulable` report: totals, and each window when there are several.
pub fn schedulable_text(r: &Report) -> String {
    let mut s = String::new();
    let c = &r.counters;
    let _ = writeln!(
        s,
        "{} packets, {} TCP segments ({} with data); skipped: {} not IP, {} not TCP, {} fragments, {} malformed, {} unknown link type",
        c.packets,
        c.tcp_segments,
        c.data_segments,
        c.skipped_not_ip,
        c.skipped_not_tcp,
        c.skipped_fragments,
        c.skipped_malformed,
        c.skipped_link_type
    );
    s.push_str(&table1_text(&r.total));
    if r.windows.len() > 1 {
        let _ = writeln!(s, "\nPer window:");
        let _ = writeln!(
            s,
            "{:>10} {:>8} {:>8} {:>8} {:>8} {:>8}",
            "start_s", "routes", "comp.%", "flows", "comp.%", "vol.%"
        );
        let t0 = r.first_ns.unwrap_or(0);
        for w in &r.windows {
            let t = &w.table;
            let _ = writeln!(
                s,
                "{:>10.1} {:>8} {:>8} {:>8} {:>8} {:>8}",
                (w.start_ns - t0) as f64 / NS as f64,
                t.routes,
                pct(t.routes_competing, t.routes),
                t.flows,
                pct(t.flows_competing, t.flows),
                pct(t.bytes_competing, t.bytes)
            );
        }
    }
    s
}

/// Table 1 per window (one row per window, then a `total` row) as CSV.
pub fn schedulable_csv(r: &Report, out: &mut dyn io::Write) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "window_start_s",
        "window_end_s",
        "routes",
        "routes_competing",
        "flows",
        "flows_competing",
        "bytes",
        "bytes_competing",
        "connections_without_data",
        "peak_concurrency",
    ])?;
    let t0 = r.first_ns.unwrap_or(0);
    let secs = |ns: i64| format!("{:.6}", (ns - t0) as f64 / NS as f64);
    let row = |t: &Table1, a: String, b: String| {
        vec![
            a,
            b,
            t.routes.to_string(),
            t.routes_competing.to_string(),
            t.flows.to_string(),
            t.flows_competing.to_string(),
            t.bytes.to_string(),
            t.bytes_competing.to_string(),
            t.connections_without_data.to_string(),
            t.peak_concurrency.to_string(),
        ]
    };
    for win in &r.windows {
        w.write_record(row(&win.table, secs(win.start_ns), secs(win.end_ns)))?;
    }
    w.write_record(row(&r.total, "total".into(), String::new()))?;
    w.flush()?;
    Ok(())
}

/// The distribution of the number of concurrent flows on a route as CSV.
pub fn concurrency_csv(t: &Table1, out: &mut dyn io::Write) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(["concurrent_flows", "seconds", "share"])?;
    let shares = t.concurrency_shares();
    for (n, share) in shares {
        w.write_record([
            n.to_string(),
            format!("{:.9}", t.concurrency_ns[n] as f64 / NS as f64),
            format!("{share:.6}"),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// The segment-size report: totals, the share of full-sized segments per MSS, CDF quantiles.
pub fn segments_text(s: &SegmentSizes) -> String {
    let mut o = String::new();
    let total = s.total();
    let _ = writeln!(
        o,
        "{total} data segments; full-sized (size = the MSS of its connection direction): {} ({})",
        s.full(),
        pct(s.full(), total)
    );
    let _ = writeln!(
        o,
        "paper 000 (Figure 3, CAIDA 2002/2014): at least 60% of data segments full-sized"
    );
    let _ = writeln!(
        o,
        "{:>8} {:>11} {:>12} {:>12} {:>8}",
        "MSS", "directions", "segments", "full-sized", "share"
    );
    for (m, r) in &s.by_mss {
        let _ = writeln!(
            o,
            "{:>8} {:>11} {:>12} {:>12} {:>8}",
            m,
            r.directions,
            r.segments,
            r.full,
            pct(r.full, r.segments)
        );
    }
    if s.unknown_mss_segments > 0 {
        let _ = writeln!(
            o,
            "{:>8} {:>11} {:>12} {:>12} {:>8}",
            "unknown", "", s.unknown_mss_segments, 0, "-"
        );
    }
    let cdf = s.cdf();
    if !cdf.is_empty() {
        let _ = write!(o, "size quantiles:");
        for q in [0.1, 0.25, 0.5, 0.75, 0.9] {
            if let Some((size, _)) = cdf.iter().find(|(_, p)| *p >= q) {
                let _ = write!(o, "  {:.0}%: {size} B", q * 100.0);
            }
        }
        let _ = writeln!(o);
    }
    o
}

/// The segment-size CDF as CSV (`size_bytes,segments,cdf`, sizes that occur).
pub fn segments_csv(s: &SegmentSizes, out: &mut dyn io::Write) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(["size_bytes", "segments", "cdf"])?;
    for (size, p) in s.cdf() {
        w.write_record([
            size.to_string(),
            s.counts[size as usize].to_string(),
            format!("{p:.6}"),
        ])?;
    }
    w.flush()?;
    Ok(())
}
