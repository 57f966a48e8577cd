//! What talking to an engine program costs per move, the referee's overhead on top of the
//! engine's thinking: one command's round trip through the pipes of a `pentagrid gtp` process
//! (`known_command`), and a whole move as the referee makes it — the engine is told the
//! position and asked for a move searched with one playout, so the search itself is a few
//! microseconds (and without tree reuse, which would otherwise grow one tree over every
//! iteration of the same position). Run with `cargo bench -p pentagrid --bench engine_overhead`.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use pentagrid_worker::engines::{EngineCommand, EngineProcess};

fn engine() -> EngineProcess {
    EngineProcess::spawn(&EngineCommand {
        program: env!("CARGO_BIN_EXE_pentagrid").into(),
        args: [
            "gtp",
            "--quiet",
            "--no-reuse",
            "--threads",
            "1",
            "--config",
            "uct:playouts=1",
        ]
        .map(str::to_owned)
        .to_vec(),
    })
    .expect("start pentagrid gtp")
}

fn ask(engine: &mut EngineProcess, line: &str) -> String {
    let answer = engine
        .ask(line, Instant::now() + Duration::from_secs(10))
        .expect("an answer");
    assert!(answer.success, "{line}: {}", answer.text);
    answer.text
}

fn round_trips(c: &mut Criterion) {
    let mut process = engine();
    c.bench_function("gtp round trip (known_command)", |b| {
        b.iter(|| ask(&mut process, "known_command play"));
    });
    let position = "set x.o.../.x..../....o./..x.../....../......";
    let set = format!("pentagrid-set_position {}", &position[4..]);
    c.bench_function("gtp move (set_position + genmove, 1 playout)", |b| {
        b.iter(|| {
            ask(&mut process, &set);
            ask(&mut process, "genmove white")
        });
    });
}

criterion_group!(benches, round_trips);
criterion_main!(benches);
