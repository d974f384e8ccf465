// SPDX-License-Identifier: Apache-2.0
// Workload fixture for fsreplay: small, but touches every dependency so that
// each one is really compiled and linked.
use fnv::FnvHashMap;
use smallvec::SmallVec;

cfg_if::cfg_if! {
    if #[cfg(unix)] {
        const PLATFORM: &str = "unix";
    } else {
        const PLATFORM: &str = "other";
    }
}

fn main() {
    let text = "fsreplay records a workload and replays it on another mount";
    let mut counts: FnvHashMap<u8, usize> = FnvHashMap::default();
    for b in text.bytes() {
        *counts.entry(b).or_insert(0) += 1;
    }
    let spaces: SmallVec<[usize; 16]> = memchr::memchr_iter(b' ', text.as_bytes()).collect();
    let mut buf = itoa::Buffer::new();
    let n = buf.format(spaces.len());
    println!(
        "{} {} spaces, {} distinct bytes, hex {}",
        PLATFORM,
        n,
        counts.len(),
        hex::encode(&text.as_bytes()[..4])
    );
}
