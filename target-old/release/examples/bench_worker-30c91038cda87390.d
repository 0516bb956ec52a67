/work/main/target-old/release/examples/bench_worker-30c91038cda87390.d: core/examples/bench_worker.rs

/work/main/target-old/release/examples/bench_worker-30c91038cda87390: core/examples/bench_worker.rs

core/examples/bench_worker.rs:
