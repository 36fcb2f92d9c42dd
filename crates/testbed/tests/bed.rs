//! Building and removing the namespaces (root only: elsewhere each test says it skipped and
//! returns). No traffic leaves the test's own namespaces.

use std::process::Command;
use std::time::Duration;

use testbed::bed::{can_run, cleanup, list_namespaces, namespaces, owner, Owner, OWNER_DIR};
use testbed::{BedConfig, Queue, Testbed};

fn cfg(prefix: &str) -> BedConfig {
    let mut c = BedConfig::new(1_000_000, Queue::Pfifo(50));
    c.prefix = prefix.into();
    c
}

fn present(prefix: &str) -> usize {
    let names = namespaces(prefix);
    list_namespaces()
        .unwrap()
        .iter()
        .filter(|n| names.contains(n))
        .count()
}

fn ip(args: &[&str]) -> String {
    let out = Command::new("ip").args(args).output().expect("ip");
    assert!(out.status.success(), "ip {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_bed_has_its_links_bottleneck_and_no_way_out_and_goes_away() {
    if !can_run("bed") {
        return;
    }
    let p = format!("tb{}", std::process::id() % 100_000);
    let bed = Testbed::create(cfg(&p)).expect("create");
    assert_eq!(present(&p), 3);
    assert!(matches!(owner(&p), Owner::Alive(_)));
    let q = ip(&["-n", bed.router(), "link"]);
    assert!(q.contains("r0") && q.contains("r1"));
    let tc = bed.qdisc_stats();
    assert!(tc.contains("tbf") && tc.contains("pfifo"), "{tc}");
    // Routes: only the two testbed /24s; no default route in any namespace.
    for ns in [bed.origin(), bed.router(), bed.dest()] {
        let r = ip(&["-n", ns, "route"]);
        assert!(!r.contains("default"), "{ns}: {r}");
        for line in r.lines() {
            assert!(line.starts_with("198.18."), "{ns}: {line}");
        }
    }
    // The root namespace got nothing.
    let root = ip(&["link"]);
    assert!(!root.contains(" o0") && !root.contains(" r0@") && !root.contains(" d0"));
    drop(bed);
    assert_eq!(present(&p), 0);
    assert_eq!(owner(&p), Owner::None);
}

#[test]
fn a_taken_name_is_refused_and_a_stale_one_is_removed() {
    if !can_run("names") {
        return;
    }
    let p = format!("tn{}", std::process::id() % 100_000);
    let [_, router, _] = namespaces(&p);
    // Someone else's namespace of that name: refused, untouched.
    ip(&["netns", "add", &router]);
    let err = Testbed::create(cfg(&p)).expect_err("a taken name must be refused");
    let msg = format!("{err:#}");
    assert!(msg.contains("not made by a testbed"), "{msg}");
    assert_eq!(present(&p), 1, "the foreign namespace is left alone");
    assert!(
        cleanup(&p, false).is_err(),
        "cleanup refuses without --force"
    );

    // The same namespace claimed by a run that died: stale, removed, and the bed comes up.
    let mut dead = Command::new("true").spawn().expect("spawn");
    let dead_pid = dead.id();
    dead.wait().expect("wait");
    std::fs::create_dir_all(OWNER_DIR).unwrap();
    std::fs::write(
        std::path::Path::new(OWNER_DIR).join(&p),
        format!("{dead_pid} 1\n"),
    )
    .unwrap();
    assert_eq!(owner(&p), Owner::Dead(dead_pid));
    let bed = Testbed::create(cfg(&p)).expect("stale namespaces are removed");
    assert_eq!(present(&p), 3);
    drop(bed);
    assert_eq!(present(&p), 0);

    // A live owner: refused.
    let bed = Testbed::create(cfg(&p)).expect("create");
    let again = Testbed::create(cfg(&p)).expect_err("in use");
    assert!(format!("{again:#}").contains("in use"), "{again:#}");
    drop(bed);
    std::thread::sleep(Duration::from_millis(10));
    assert_eq!(present(&p), 0);
}

#[test]
fn bad_configurations_are_refused_before_anything_is_made() {
    for (c, want) in [
        (
            BedConfig {
                prefix: "bad name".into(),
                ..cfg("x")
            },
            "prefix",
        ),
        (
            BedConfig {
                rate_bytes_per_s: 10,
                ..cfg("x")
            },
            "rate",
        ),
        (
            BedConfig {
                burst_bytes: 100,
                ..cfg("x")
            },
            "burst",
        ),
        (
            BedConfig {
                queue: Queue::Bfifo(10),
                ..cfg("x")
            },
            "bfifo",
        ),
    ] {
        let e = Testbed::create(c).expect_err(want);
        assert!(format!("{e:#}").contains(want), "{e:#}");
    }
}
