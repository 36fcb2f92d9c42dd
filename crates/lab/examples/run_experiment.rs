//! Run experiments without the `schedtcp` CLI:
//! `cargo run --release -p lab --example run_experiment -- NAME [NAME…] [--quick] [--seed N]
//! [--out DIR] [--scenario FILE] [--shard I/N]`; `all` runs every registered experiment.
//! `--shard 1/1` keeps the raw results (`raw/`) beside the outputs, as `schedtcp experiment
//! run --shard` does; `--render DIR` renders such a folder again without running anything
//! (`schedtcp experiment render DIR`).

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let mut names = Vec::new();
    let mut opts = lab::RunOptions {
        progress: true,
        ..Default::default()
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => opts.quick = true,
            "--seed" => {
                let v = args
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--seed needs a value"))?;
                opts.seed = Some(v.parse()?);
            }
            "--out" => opts.out_dir = args.next().map(PathBuf::from),
            "--scenario" => opts.scenario = args.next().map(PathBuf::from),
            "--render" => {
                let dir = args
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--render needs a folder"))?;
                let r = lab::render(std::path::Path::new(&dir), false)?;
                eprintln!("rendered {}", r.out_dir.display());
                return Ok(());
            }
            "--shard" => {
                let v = args
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("--shard needs I/N"))?;
                opts.shard = Some(v.parse()?);
            }
            "all" => names.extend(lab::experiments().iter().map(|e| e.name.to_string())),
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        for e in lab::experiments() {
            println!("{:14} {}", e.name, e.description);
        }
        return Ok(());
    }
    for n in names {
        let t = std::time::Instant::now();
        let r = lab::run(&n, &opts)?;
        eprintln!(
            "{n}: {} ({:.1} s)",
            r.out_dir.display(),
            t.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
