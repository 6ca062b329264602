//! The memory floor of a solve: what this machine's memory does for the access patterns
//! of the solver, with no solver around them (issue 31). Over one 512 MiB array, far
//! larger than any cache:
//!
//! - `seq_read`: sequential reads of every byte (as u64 words), the bound of a pass
//!   that scans a table, such as initialisation's walk over its slots or compression;
//! - `random_read`: single bytes at random slots, each prefetched 16 reads ahead, as
//!   initialisation reads its children in the tables solved before;
//! - `random_read ... no prefetch`: the same without the prefetch, for comparison;
//! - `random_decrement`: `fetch_sub(1)` on random `AtomicU8`s, prefetched the same way,
//!   as propagation counts down its parents' counters.
//!
//! - `random_decrement bucketed`: the same count-downs as the solver's propagation
//!   makes them (`solve/retro/propagate.rs`): the slots sorted by buckets of 2^17
//!   (a counting sort, timed with them), then each bucket counted down by one thread
//!   with plain loads and stores, prefetched the same way.
//!
//! The two random patterns again over 16 MiB, which fits in this machine's 32 MiB L3
//! (as every table of an 8-stone solve does). Each with 1 and 2 threads (rayon pools
//! of that size). Throughput is bytes for the scan and accesses for the random
//! patterns. Run with `nice cargo bench --bench memory`; it takes about 4 minutes.
//! The results, and the floor they give, are in `docs/measurements.md`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use morris::cpu::prefetch;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::Duration;

/// The array: 512 MiB.
const SIZE: usize = 512 << 20;
/// A table that fits in this machine's 32 MiB L3, as every table of an 8-stone solve does.
const SMALL: usize = 16 << 20;
/// Random accesses per iteration.
const ACCESSES: usize = 1 << 22;
/// How many accesses ahead a prefetch is issued.
const AHEAD: usize = 16;

/// Random slots in `0..size` (xorshift64).
fn random_slots(size: usize) -> Vec<u32> {
    let mut x = 0x2545F4914F6CDD1Du64;
    (0..ACCESSES)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % size as u64) as u32
        })
        .collect()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

/// Sum of the bytes at `slots`, each prefetched [`AHEAD`] reads before it is read.
#[inline(always)]
fn read_slots(table: &[u8], slots: &[u32]) -> u64 {
    let mut sum = 0u64;
    for (k, &s) in slots.iter().enumerate() {
        if let Some(&ahead) = slots.get(k + AHEAD) {
            prefetch(table.as_ptr().wrapping_add(ahead as usize));
        }
        sum += table[s as usize] as u64;
    }
    sum
}

/// Sum of the bytes at `slots`, with no prefetch: the latency of one miss at a time,
/// less what the processor overlaps on its own.
#[inline(always)]
fn read_slots_plain(table: &[u8], slots: &[u32]) -> u64 {
    slots.iter().map(|&s| table[s as usize] as u64).sum()
}

/// Counts down the atomics at `slots`, prefetched the same way; returns how many reached 0.
#[inline(always)]
fn decrement_slots(table: &[AtomicU8], slots: &[u32]) -> u64 {
    let mut zero = 0u64;
    for (k, &s) in slots.iter().enumerate() {
        if let Some(&ahead) = slots.get(k + AHEAD) {
            prefetch(table.as_ptr().wrapping_add(ahead as usize));
        }
        zero += (table[s as usize].fetch_sub(1, Relaxed) == 1) as u64;
    }
    zero
}

/// Slots a bucket of [`decrement_bucketed`] holds, as the solver's.
const BUCKET_BITS: u32 = 17;

/// Counts down `table` at `slots` by buckets, as the solver does: each thread's share
/// of the slots counted by bucket, then scattered into `sorted` at its own places (a
/// counting sort), then each bucket's count-downs on one thread, without atomics;
/// returns how many reached 0.
fn decrement_bucketed(table: &mut [u8], slots: &[u32], sorted: &mut Vec<u32>) -> u64 {
    let buckets = table.len().div_ceil(1 << BUCKET_BITS);
    let bucket = |s: u32| (s >> BUCKET_BITS) as usize;
    let parts: Vec<&[u32]> = slots.chunks(slots.len().div_ceil(2 * rayon::current_num_threads())).collect();
    let mut at: Vec<Vec<usize>> = parts
        .par_iter()
        .map(|part| {
            let mut c = vec![0usize; buckets];
            part.iter().for_each(|&s| c[bucket(s)] += 1);
            c
        })
        .collect();
    let mut starts = Vec::with_capacity(buckets + 1);
    let mut total = 0;
    for b in 0..buckets {
        starts.push(total);
        for c in at.iter_mut() {
            (c[b], total) = (total, total + c[b]);
        }
    }
    starts.push(total);
    sorted.resize(slots.len(), 0);
    let out = Shared(sorted.as_mut_ptr());
    parts.par_iter().zip(at.par_iter_mut()).for_each(|(part, at)| {
        let out = &out;
        for &s in part.iter() {
            // SAFETY: each part's places in each bucket are its own, counted above.
            unsafe { out.0.add(at[bucket(s)]).write(s) };
            at[bucket(s)] += 1;
        }
    });
    let (sorted, starts) = (&*sorted, &starts);
    let mask = (1u32 << BUCKET_BITS) - 1;
    table
        .par_chunks_mut(1 << BUCKET_BITS)
        .enumerate()
        .map(|(b, bucket)| {
            let records = &sorted[starts[b]..starts[b + 1]];
            let mut zero = 0u64;
            for (k, &s) in records.iter().enumerate() {
                if let Some(&ahead) = records.get(k + AHEAD) {
                    prefetch(bucket.as_ptr().wrapping_add((ahead & mask) as usize));
                }
                let x = &mut bucket[(s & mask) as usize];
                *x = x.wrapping_sub(1);
                zero += (*x == 0) as u64;
            }
            zero
        })
        .sum()
}

/// Where the parts of [`decrement_bucketed`] write their places.
struct Shared(*mut u32);
// SAFETY: the parts write disjoint places.
unsafe impl Sync for Shared {}

fn bench_memory(c: &mut Criterion) {
    // Filled, so that every page is mapped before a measurement.
    let table: Vec<u8> = vec![1u8; SIZE];
    let atomics: Vec<AtomicU8> = (0..SIZE).map(|_| AtomicU8::new(200)).collect();
    let slots = random_slots(SIZE);
    let small = random_slots(SMALL);
    let mut g = c.benchmark_group("memory");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    for threads in [1, 2] {
        let pool = pool(threads);
        g.throughput(Throughput::Bytes(SIZE as u64));
        g.bench_function(format!("seq_read 512MiB/{threads}t"), |b| {
            b.iter(|| {
                pool.install(|| {
                    table
                        .par_chunks(SIZE / 64)
                        .map(|chunk| chunk.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap())).fold(0u64, u64::wrapping_add))
                        .reduce(|| 0, u64::wrapping_add)
                })
            })
        });
        g.throughput(Throughput::Elements(ACCESSES as u64));
        g.bench_function(format!("random_read u8 prefetch{AHEAD}/{threads}t"), |b| {
            b.iter(|| pool.install(|| slots.par_chunks(ACCESSES / 64).map(|part| read_slots(black_box(&table), part)).sum::<u64>()))
        });
        g.bench_function(format!("random_read u8 no prefetch/{threads}t"), |b| {
            b.iter(|| pool.install(|| slots.par_chunks(ACCESSES / 64).map(|part| read_slots_plain(black_box(&table), part)).sum::<u64>()))
        });
        g.bench_function(format!("random_decrement AtomicU8 prefetch{AHEAD}/{threads}t"), |b| {
            b.iter(|| pool.install(|| slots.par_chunks(ACCESSES / 64).map(|part| decrement_slots(black_box(&atomics), part)).sum::<u64>()))
        });
        let (mut counters, mut sorted) = (vec![200u8; SIZE], Vec::new());
        g.bench_function(format!("random_decrement bucketed prefetch{AHEAD}/{threads}t"), |b| {
            b.iter(|| pool.install(|| decrement_bucketed(black_box(&mut counters), &slots, &mut sorted)))
        });
        drop(counters);
        g.bench_function(format!("random_read 16MiB u8 prefetch{AHEAD}/{threads}t"), |b| {
            b.iter(|| pool.install(|| small.par_chunks(ACCESSES / 64).map(|part| read_slots(black_box(&table[..SMALL]), part)).sum::<u64>()))
        });
        g.bench_function(format!("random_decrement 16MiB AtomicU8 prefetch{AHEAD}/{threads}t"), |b| {
            b.iter(|| pool.install(|| small.par_chunks(ACCESSES / 64).map(|part| decrement_slots(black_box(&atomics[..SMALL]), part)).sum::<u64>()))
        });
        let (mut counters, mut sorted) = (vec![200u8; SMALL], Vec::new());
        g.bench_function(format!("random_decrement 16MiB bucketed prefetch{AHEAD}/{threads}t"), |b| {
            b.iter(|| pool.install(|| decrement_bucketed(black_box(&mut counters), &small, &mut sorted)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_memory);
criterion_main!(benches);
