//! Writes the seed corpora of the fuzz targets into `fuzz/seeds/<target>/`: the transactions,
//! envelopes and payloads of the shared test vectors, the example actors of `actors/` compiled
//! with `wat`, and a few well-formed state-sync batches.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz build -s none --features seeds seeds`, then
//! `fuzz/target/x86_64-unknown-linux-gnu/release/seeds <vectors.json> <actors dir> <out dir>`
//! (the fuzz build reuses the targets' compiled dependencies, a plain build would not).

// Built by `cargo fuzz build` like the targets, so its code carries the coverage hooks that
// libFuzzer's runtime defines: link it, though this program never fuzzes.
use libfuzzer_sys as _;

use commonware_codec::Encode as _;
use commonware_cryptography::{Hasher as _, Sha256, sha256};
use commonware_storage::{
    merkle::Proof,
    mmr,
    qmdb::{
        any::ordered::variable::{Operation, Update},
        sync::Response,
    },
};
use drover_types::Transaction;
use drover_types::payload::{Deploy, Manifest, Message, Upgrade};
use std::{fs, path::Path};

type Batch = Response<mmr::Family, Operation<mmr::Family, Vec<u8>, Vec<u8>>, sha256::Digest>;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, vectors, actors, out] = args.as_slice() else {
        eprintln!("usage: seeds <vectors.json> <actors dir> <out dir>");
        std::process::exit(2);
    };
    let out = Path::new(out);
    let write = |target: &str, name: &str, bytes: &[u8]| {
        let dir = out.join(target);
        fs::create_dir_all(&dir).expect("create the seed directory");
        fs::write(dir.join(name), bytes).expect("write a seed");
    };

    let vectors: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(vectors).expect("read the vectors"))
            .expect("the vectors are JSON");
    let hex_field = |case: &serde_json::Value, field: &str| {
        let text = case[field].as_str().expect("a hex field");
        hex::decode(text.trim_start_matches("0x")).expect("valid hex")
    };
    let mut all_signed = Vec::new();
    for case in vectors["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("a case name");
        let unsigned = hex_field(case, "unsigned_tx_cbor");
        let signed = hex_field(case, "signed_tx_cbor");
        let submission = hex_field(case, "submission_cbor");
        for (suffix, bytes) in [("unsigned", &unsigned), ("signed", &signed)] {
            write("transaction", &format!("{name}-{suffix}"), bytes);
            write("cbor", &format!("{name}-{suffix}"), bytes);
        }
        write("submission", name, &submission);
        write("cbor", &format!("{name}-submission"), &submission);
        let tx = Transaction::decode(&signed).expect("a vector decodes");
        if !tx.payload.is_empty() {
            write("payload", name, &tx.payload);
            write("cbor", &format!("{name}-payload"), &tx.payload);
            if let Ok(deploy) = Deploy::decode(&tx.payload) {
                write("wasm", &format!("{name}-code"), &deploy.code);
                write("payload", &format!("{name}-manifest"), &deploy.manifest.encode());
            }
        }
        all_signed.push(tx);
    }
    write("submission", "all", &drover_types::submission::encode_submission(&all_signed));

    let mut actors: Vec<_> = fs::read_dir(actors)
        .expect("read the actors directory")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "wat"))
        .collect();
    actors.sort();
    for path in &actors {
        let code = wat::parse_file(path).expect("an example actor compiles");
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("a file name");
        write("wasm", stem, &code);
    }
    let manifest = Manifest::new(vec!["storage.kv".into(), "econ.transfer".into()]);
    write("payload", "manifest", &manifest.encode());
    write(
        "payload",
        "upgrade",
        &Upgrade { actor: drover_types::Address([7; 20]), code: b"\0asm\x01\0\0\0".to_vec(), manifest }
            .encode(),
    );
    write(
        "payload",
        "message",
        &Message { handler: "increment".into(), payload: vec![1, 2, 3] }.encode(),
    );

    // State-sync batches: the selector byte 0 decodes with max_ops 50,000, 15 with 1.
    let digest = |i: u8| Sha256::hash(&[&[i]]);
    let proof = |n: u64| Proof::<mmr::Family, sha256::Digest> {
        leaves: mmr::Location::new(n),
        inactive_peaks: 0,
        digests: (0..3).map(digest).collect(),
    };
    let update = |k: &[u8], v: &[u8], next: &[u8]| {
        Operation::Update(Update { key: k.to_vec(), value: v.to_vec(), next_key: next.to_vec() })
    };
    let operations: Batch = Response::Operations {
        proof: proof(10),
        operations: vec![
            update(b"a", b"1", b"b"),
            update(b"b", &[0xff; 40], b"a"),
            Operation::Delete(b"c".to_vec()),
            Operation::CommitFloor(Some(b"meta".to_vec()), mmr::Location::new(2)),
            Operation::CommitFloor(None, mmr::Location::new(0)),
        ],
    };
    let boundary: Batch = Response::Boundary {
        proof: proof(7),
        op: Operation::CommitFloor(None, mmr::Location::new(3)),
        pinned_nodes: (0..4).map(digest).collect(),
    };
    for (name, selector, batch) in [("operations", 0u8, operations), ("boundary", 15, boundary)] {
        write("state_sync", name, &[&[selector][..], &batch.encode()].concat());
    }
}
