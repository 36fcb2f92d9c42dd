//! `schedtcp demo`: as root, a short `testbed-table2` (real kernel TCP through a `tbf`
//! bottleneck between network namespaces, real `schedtcp server`/`client` processes, under two
//! minutes) that prints its table; otherwise (or with `--loopback`) the tunnel end to end on
//! loopback under each policy, in one process.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rand::SeedableRng;
use rand_distr::{Distribution, Exp, Pareto};
use tunnel::loadgen::{self, FlowSpec};
use tunnel::{client, server, ClientConfig, ServerConfig};

const KEY: &str = "schedtcp-demo-key-not-a-secret";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Flows per policy.
    #[arg(long, default_value_t = 120)]
    flows: usize,
    /// Mean download size in bytes; sizes are Lomax with α = 3, P(S > x) = (1 + cx)^-3, as in
    /// paper 000's Table 2 (scaled down).
    #[arg(long, default_value_t = 2_000_000)]
    mean_size: u64,
    /// Flow arrivals per second (Poisson).
    #[arg(long, default_value_t = 150.0)]
    rate: f64,
    /// Policies to run, in order; `tcp` first gives the baseline the others are paired with.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "tcp,srpt,fair,las,psps,priority:srpt"
    )]
    policies: Vec<String>,
    /// Seed of the workload (the same arrivals and sizes under every policy).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run the loopback demo even as root (no testbed).
    #[arg(long)]
    loopback: bool,
}

/// The testbed demo as root when the machine can run it; the loopback demo otherwise.
pub fn main(args: Args) -> Result<()> {
    if !args.loopback {
        let why_not = if !testbed::bed::is_root() {
            Some("not running as root".to_string())
        } else {
            testbed::bed::require_tools()
                .err()
                .map(|e| format!("{e:#}"))
        };
        match why_not {
            None => return testbed_demo(),
            Some(why) => println!(
                "schedtcp demo: the real-TCP testbed (network namespaces, a tbf bottleneck) needs root \
                 and iproute2 ({why}); running the loopback demo instead.\n"
            ),
        }
    }
    crate::runtime()?.block_on(run(args))
}

/// A short `testbed-table2` in a temporary folder; prints its summary.
fn testbed_demo() -> Result<()> {
    let out = std::env::temp_dir().join(format!("schedtcp-demo-{}", std::process::id()));
    println!(
        "schedtcp demo: a short testbed-table2 (about two minutes): three network namespaces \
         (origin, router, destination), a tbf bottleneck, real `schedtcp server` and \
         `schedtcp client` processes; the same flows under plain TCP and the tunnel's policies.\n"
    );
    let report = lab::run(
        "testbed-table2",
        &lab::RunOptions {
            out_dir: Some(out.clone()),
            quick: true,
            progress: true,
            ..Default::default()
        },
    )?;
    println!("{}", report.summary_markdown);
    println!(
        "(files in {}; the full experiment: `schedtcp experiment run testbed-table2`)",
        out.display()
    );
    Ok(())
}

/// The same arrivals and sizes for every policy.
fn workload(a: &Args) -> Result<Vec<(Duration, FlowSpec)>> {
    if a.flows == 0 || a.mean_size == 0 || a.rate.is_nan() || a.rate <= 0.0 {
        bail!("--flows, --mean-size and --rate must be positive");
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
    // Lomax(α, c) = Pareto(scale 1/c, α) − 1/c, with mean 1/(c(α−1)).
    let alpha = 3.0;
    let scale = a.mean_size as f64 * (alpha - 1.0);
    let sizes = Pareto::new(scale, alpha).context("size distribution")?;
    let gaps = Exp::new(a.rate).context("arrival rate")?;
    let mut t = 0.0;
    Ok((0..a.flows)
        .map(|_| {
            t += gaps.sample(&mut rng);
            let download = (sizes.sample(&mut rng) - scale).clamp(0.0, 256e6) as u64;
            (
                Duration::from_secs_f64(t),
                FlowSpec {
                    download,
                    upload: 300,
                },
            )
        })
        .collect())
}

struct PolicyRun {
    policy: String,
    times: Vec<Option<Duration>>,
    checked: u64,
    violated: u64,
    overhead: f64,
}

async fn run_policy(
    policy: &str,
    target: SocketAddr,
    flows: &[(Duration, FlowSpec)],
) -> Result<PolicyRun> {
    let scfg = ServerConfig::from_toml(&format!(
        "listen = \"127.0.0.1:0\"\nkey = \"{KEY}\"\npolicy = \"{policy}\"\n[[route]]\nname = \"demo\"\ntarget = \"{target}\"\n"
    ))?;
    let srv = server::start(scfg, KEY.as_bytes()).await?;
    let ccfg = ClientConfig::from_toml(&format!(
        "server = \"{}\"\nkey = \"{KEY}\"\npolicy = \"{policy}\"\nwarm_pool = 4\n[[route]]\nname = \"demo\"\nlisten = \"127.0.0.1:0\"\n",
        srv.addr
    ))?;
    let cli = client::start(ccfg, KEY.as_bytes()).await?;
    let route = cli.routes[0].1;
    let start = tokio::time::Instant::now();
    let tasks: Vec<_> = flows
        .iter()
        .map(|&(at, spec)| {
            tokio::spawn(async move {
                tokio::time::sleep_until(start + at).await;
                loadgen::run_flow(route, spec).await
            })
        })
        .collect();
    let mut times = Vec::new();
    for t in tasks {
        match t.await? {
            Ok(o) => times.push(Some(o.elapsed)),
            Err(e) => {
                tracing::warn!("{policy}: flow failed: {e:#}");
                times.push(None);
            }
        }
    }
    // Let the last pool connections close, then read the invariant.
    for _ in 0..100 {
        if cli.engine.inspect(|s| s.is_idle()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut inv = cli.engine.invariant();
    inv.merge(srv.invariant());
    cli.shutdown().await;
    srv.shutdown().await;
    let overhead = inv.header_bytes as f64 / inv.payload_bytes.max(1) as f64;
    Ok(PolicyRun {
        policy: policy.to_owned(),
        times,
        checked: inv.checked,
        violated: inv.violated,
        overhead,
    })
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub async fn run(args: Args) -> Result<()> {
    for p in &args.policies {
        p.parse::<gtcp::Policy>()
            .map_err(|e| anyhow::anyhow!("--policies: {e}"))?;
    }
    let flows = workload(&args)?;
    let total: u64 = flows.iter().map(|(_, f)| f.download).sum();
    println!(
        "schedtcp demo: {} flows per policy, Poisson {:.0}/s, Lomax α=3 sizes of mean {} B ({:.1} MB in all), loopback, one process",
        flows.len(),
        args.rate,
        args.mean_size,
        total as f64 / 1e6
    );
    println!(
        "(loopback has no bottleneck, so differences are small and noisy; the papers' experiments: `schedtcp experiment list`)\n"
    );
    let (target, target_task) = loadgen::start_target("127.0.0.1:0".parse()?).await?;
    // One unmeasured round first: the first run of a process pays for thread start-up, buffer
    // growth and cold caches, which would be charged to whichever policy came first.
    eprintln!("warming up ...");
    run_policy("tcp", target, &flows[..flows.len().min(30)]).await?;
    let mut runs = Vec::new();
    for p in &args.policies {
        eprintln!("running {p} ...");
        runs.push(run_policy(p, target, &flows).await?);
    }
    target_task.abort();
    let baseline = runs
        .iter()
        .find(|r| r.policy == "tcp")
        .map(|r| r.times.clone());
    println!(
        "{:<14} {:>6} {:>10} {:>10} {:>10} {:>9} {:>8} {:>8}  invariant (connections checked, header overhead)",
        "policy",
        "done",
        "mean ms",
        "p50 ms",
        "p95 ms",
        "vs tcp",
        "faster",
        "slower"
    );
    let mut failed = false;
    for r in &runs {
        let mut ms: Vec<f64> = r
            .times
            .iter()
            .flatten()
            .map(|d| d.as_secs_f64() * 1e3)
            .collect();
        let done = ms.len();
        let mean = ms.iter().sum::<f64>() / done.max(1) as f64;
        ms.sort_by(f64::total_cmp);
        let (mut faster, mut slower, mut base_sum, mut own_sum) = (0, 0, 0.0, 0.0);
        if let Some(base) = &baseline {
            for (a, b) in r.times.iter().zip(base) {
                if let (Some(a), Some(b)) = (a, b) {
                    base_sum += b.as_secs_f64();
                    own_sum += a.as_secs_f64();
                    // Within 1 ms counts as equal: timer noise on a shared machine.
                    if a.as_secs_f64() + 1e-3 < b.as_secs_f64() {
                        faster += 1;
                    } else if a.as_secs_f64() > b.as_secs_f64() + 1e-3 {
                        slower += 1;
                    }
                }
            }
        }
        let n = r.times.len().max(1) as f64;
        let inv = if r.violated == 0 {
            format!("ok ({}, {:.2}%)", r.checked, r.overhead * 100.0)
        } else {
            format!("VIOLATED on {} of {}", r.violated, r.checked)
        };
        failed |= r.violated > 0 || done < r.times.len();
        println!(
            "{:<14} {:>6} {:>10.1} {:>10.1} {:>10.1} {:>9.3} {:>7.0}% {:>7.0}%  {}",
            r.policy,
            format!("{done}/{}", r.times.len()),
            mean,
            percentile(&ms, 0.5),
            percentile(&ms, 0.95),
            if base_sum > 0.0 {
                own_sum / base_sum
            } else {
                f64::NAN
            },
            100.0 * faster as f64 / n,
            100.0 * slower as f64 / n,
            inv
        );
    }
    println!("\nvs tcp: mean completion time over the same flows as a ratio to tcp's; faster/slower: share of flows more than 1 ms faster/slower than under tcp.");
    if failed {
        bail!("some flows failed or the invariant was violated");
    }
    Ok(())
}
