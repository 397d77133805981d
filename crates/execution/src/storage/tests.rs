//! The relay registry and the storage manager through `execute_block`: the lifecycle of a relay
//! and of a volume, rent, refusals, and conservation of every base unit.

use crate::testing::{Chain, RICH, balance, listed, read_once};
use drover_state::storage::{
    RelayRecord, RelayTotals, VolumeRecord, VolumeTotals, decode_revocation, public_relays_listing, relay_key,
    relay_state_key, revocation_key, totals_key, volume_key, volume_state_key, volumes_listing, writing_relays_listing,
};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, H256, Receipt, TxStatus,
    chain_params::ChainParams,
    exec_error::ExecCode,
    storage::{
        Growth, MAX_RELAY_CAPACITY_BYTES, MAX_VOLUME_SIZE_BYTES, RELAY_REGISTRY_ADDRESS, RENT_WINDOW_BLOCKS, RelayCall,
        RelaySettings, STORAGE_MANAGER_ADDRESS, StorageCall, VolumeStatus, next_window, volume_id,
    },
};

const RELAY: Address = Address([0x0b; 20]);
const OWNER: Address = Address([0x0e; 20]);
const OTHER: Address = Address([0x0f; 20]);
const STAKE: u128 = drover_types::storage::MIN_RELAY_STAKE;
const PRICE: u128 = 2;

fn params() -> ChainParams {
    ChainParams::default()
}

fn settings() -> RelaySettings {
    RelaySettings {
        endpoint: "http://127.0.0.1:9000".into(),
        capacity_bytes: 1_000,
        price_per_byte_block: PRICE,
        write: true,
        read: true,
        public: true,
    }
}

fn relay_call(chain: &mut Chain, sender: Address, call: &RelayCall, value: u128) -> Receipt {
    let tx = chain.tx(sender, Some(RELAY_REGISTRY_ADDRESS), call.message().encode(), value);
    chain.block(&[tx]).receipts.remove(0)
}

fn storage_call(chain: &mut Chain, sender: Address, call: &StorageCall, value: u128) -> Receipt {
    let tx = chain.tx(sender, Some(STORAGE_MANAGER_ADDRESS), call.message().encode(), value);
    chain.block(&[tx]).receipts.remove(0)
}

fn ok(receipt: Receipt) {
    assert_eq!(receipt.status, TxStatus::Success, "{:?}", receipt.error);
}

fn code(receipt: Receipt) -> Option<ExecCode> {
    receipt.error.map(|e| e.code)
}

fn relay(chain: &Chain, address: Address) -> Option<RelayRecord> {
    chain.state.get(&relay_state_key(&relay_key(&address))).map(|b| RelayRecord::decode(b).unwrap())
}

fn volume(chain: &Chain, id: H256) -> Option<VolumeRecord> {
    chain.state.get(&volume_state_key(&volume_key(&id))).map(|b| VolumeRecord::decode(b).unwrap())
}

fn volume_totals(chain: &Chain) -> VolumeTotals {
    chain.state.get(&volume_state_key(&totals_key())).map(|b| VolumeTotals::decode(b).unwrap()).unwrap_or_default()
}

fn relay_totals(chain: &Chain) -> RelayTotals {
    chain.state.get(&relay_state_key(&totals_key())).map(|b| RelayTotals::decode(b).unwrap()).unwrap_or_default()
}

/// Every base unit the two actors hold is accounted for by their records.
fn assert_conserved(chain: &Chain, relays: &[Address]) {
    assert_eq!(balance(&chain.state, STORAGE_MANAGER_ADDRESS), volume_totals(chain).deposits, "deposits");
    let held: u128 = relays
        .iter()
        .filter_map(|r| relay(chain, *r))
        .map(|r| r.stake + r.unbonding.iter().map(|u| u.amount).sum::<u128>())
        .sum();
    assert_eq!(balance(&chain.state, RELAY_REGISTRY_ADDRESS), held, "stakes");
}

fn skip(chain: &mut Chain, blocks: u64) {
    for _ in 0..blocks {
        chain.block(&[]);
    }
}

/// Executes empty blocks until the next block is at `height`.
fn skip_to(chain: &mut Chain, height: u64) {
    while chain.height < height {
        chain.block(&[]);
    }
}

fn registered_chain() -> Chain {
    let mut chain = Chain::new(&[(RELAY, RICH), (OWNER, RICH), (OTHER, RICH)]);
    ok(relay_call(&mut chain, RELAY, &RelayCall::Register(settings()), STAKE));
    chain
}

#[test]
fn a_relay_registers_updates_deregisters_and_withdraws() {
    let mut chain = Chain::new(&[(RELAY, RICH), (OTHER, RICH)]);
    assert_eq!(
        code(relay_call(&mut chain, RELAY, &RelayCall::Register(settings()), STAKE - 1)),
        Some(ExecCode::RelaySettings)
    );
    let bad = RelaySettings { endpoint: "ftp://x".into(), ..settings() };
    assert_eq!(code(relay_call(&mut chain, RELAY, &RelayCall::Register(bad), STAKE)), Some(ExecCode::RelaySettings));
    ok(relay_call(&mut chain, RELAY, &RelayCall::Register(settings()), STAKE));
    ok(relay_call(&mut chain, OTHER, &RelayCall::Register(settings()), STAKE));
    assert_eq!(
        code(relay_call(&mut chain, RELAY, &RelayCall::Register(settings()), STAKE)),
        Some(ExecCode::RelayRegistration)
    );
    assert_eq!(relay_totals(&chain), RelayTotals { relays: 2, capacity_bytes: 2_000, stake: 2 * STAKE });
    let bigger = RelaySettings { capacity_bytes: 5_000, ..settings() };
    ok(relay_call(&mut chain, RELAY, &RelayCall::Update(bigger), 10));
    assert_eq!(relay(&chain, RELAY).unwrap().stake, STAKE + 10);
    assert_eq!(relay_totals(&chain).capacity_bytes, 6_000);
    ok(relay_call(&mut chain, RELAY, &RelayCall::Heartbeat, 0));
    assert_eq!(relay(&chain, RELAY).unwrap().last_heartbeat_height, chain.height - 1);
    assert_conserved(&chain, &[RELAY, OTHER]);

    // The first relay leaves: the last one takes its slot; its stake unbonds.
    ok(relay_call(&mut chain, RELAY, &RelayCall::Deregister, 0));
    assert_eq!(relay(&chain, OTHER).unwrap().slot, Some(0));
    assert_eq!(relay_totals(&chain), RelayTotals { relays: 1, capacity_bytes: 1_000, stake: STAKE });
    assert_eq!(code(relay_call(&mut chain, RELAY, &RelayCall::Heartbeat, 0)), Some(ExecCode::RelayRegistration));
    assert_eq!(code(relay_call(&mut chain, RELAY, &RelayCall::Withdraw, 0)), Some(ExecCode::RelayBusy), "not matured");
    assert_conserved(&chain, &[RELAY, OTHER]);
    skip(&mut chain, params().unbonding_blocks);
    let before = balance(&chain.state, RELAY);
    let receipt = relay_call(&mut chain, RELAY, &RelayCall::Withdraw, 0);
    let fee = receipt.fee.total();
    ok(receipt);
    assert_eq!(balance(&chain.state, RELAY), before + STAKE + 10 - fee);
    assert_conserved(&chain, &[RELAY, OTHER]);
}

#[test]
fn a_volume_pays_rent_for_its_committed_size_and_is_reaped_with_its_deposit_left() {
    let mut chain = registered_chain();
    let fee = params().volume_creation_fee;
    let create = StorageCall::Create { name: "photos".into(), relay: RELAY, public: false, max_size_bytes: 100 };
    // 100 bytes at 2 per byte-block cost 200 a block; deposit 1,000 + 50 pays 5 blocks.
    ok(storage_call(&mut chain, OWNER, &create, fee + 1_050));
    let id = volume_id(&OWNER, "photos");
    let created = volume(&chain, id).unwrap();
    assert_eq!((created.rent.deposit, created.rent.price_per_byte_block, created.owner), (1_050, PRICE, OWNER));
    assert_eq!(relay(&chain, RELAY).unwrap().volumes, 1);
    assert_eq!(volume_totals(&chain).fees_burned, fee);
    assert_eq!(code(storage_call(&mut chain, OWNER, &create, fee)), Some(ExecCode::VolumeExists));
    assert_conserved(&chain, &[RELAY]);

    // Only the volume's relay commits.
    let commit = StorageCall::Commit { volume: id, root: H256([7; 32]), size_bytes: 100 };
    assert_eq!(code(storage_call(&mut chain, OTHER, &commit, 0)), Some(ExecCode::UnknownVolume));
    let too_big = StorageCall::Commit { volume: id, root: H256([7; 32]), size_bytes: 1_001 };
    assert_eq!(code(storage_call(&mut chain, RELAY, &too_big, 0)), Some(ExecCode::RelayUnavailable));
    let relay_before = balance(&chain.state, RELAY);
    let receipt = storage_call(&mut chain, RELAY, &commit, 0);
    let commit_fee = receipt.fee.total();
    ok(receipt);
    let committed_at = chain.height - 1;
    let record = volume(&chain, id).unwrap();
    assert_eq!((record.root, record.size_bytes, record.committed_height), (H256([7; 32]), 100, committed_at));
    assert_eq!(record.rent_paid, 0, "an empty volume owed nothing before the commit");
    // The growth is charged from the next rent window on.
    let window = next_window(committed_at);
    assert_eq!(
        (record.rent.size_bytes, record.rent.growth),
        (0, Some(Growth { size_bytes: 100, from_height: window }))
    );
    assert_eq!(relay(&chain, RELAY).unwrap().used_bytes, 100);
    assert_eq!(balance(&chain.state, RELAY), relay_before - commit_fee);

    // Two blocks into the window a deposit settles two blocks of rent (400) to the relay.
    skip_to(&mut chain, window + 2);
    ok(storage_call(&mut chain, OTHER, &StorageCall::Deposit { volume: id }, 10));
    let record = volume(&chain, id).unwrap();
    assert_eq!((record.rent_paid, record.rent.deposit), (400, 1_050 - 400 + 10));
    assert_eq!(relay(&chain, RELAY).unwrap().earned, 400);
    assert_conserved(&chain, &[RELAY]);

    // Left alone, the deposit runs out (3 more blocks), then the grace passes: purged.
    let paid_until = record.rent.paid_until().unwrap();
    assert_eq!(paid_until, record.rent.settled_height + 3);
    skip_to(&mut chain, paid_until);
    assert_eq!(record.rent.status_at(chain.height, params().volume_grace_blocks), VolumeStatus::Grace);
    assert_eq!(
        code(storage_call(&mut chain, OTHER, &StorageCall::Reap { volume: id }, 0)),
        Some(ExecCode::VolumeState),
        "still in grace"
    );
    let grace_end = paid_until + params().volume_grace_blocks;
    skip_to(&mut chain, grace_end);
    assert_eq!(code(storage_call(&mut chain, OWNER, &commit, 0)), Some(ExecCode::UnknownVolume), "not its relay");
    assert_eq!(code(storage_call(&mut chain, RELAY, &commit, 0)), Some(ExecCode::VolumeState), "purged");
    assert_eq!(
        code(relay_call(&mut chain, RELAY, &RelayCall::Deregister, 0)),
        Some(ExecCode::RelayBusy),
        "a volume still names it"
    );
    let owner_before = balance(&chain.state, OWNER);
    ok(storage_call(&mut chain, OTHER, &StorageCall::Reap { volume: id }, 0));
    // 660 left: 3 blocks (600) paid, 60 back to the owner.
    assert_eq!(balance(&chain.state, OWNER), owner_before + 60);
    assert_eq!(relay(&chain, RELAY).unwrap().earned, 1_000);
    assert_eq!(volume(&chain, id), None);
    let totals = volume_totals(&chain);
    assert_eq!((totals.volumes, totals.bytes, totals.deposits, totals.rent_paid), (0, 0, 0, 1_000));
    assert_eq!((relay(&chain, RELAY).unwrap().volumes, relay(&chain, RELAY).unwrap().used_bytes), (0, 0));
    assert_conserved(&chain, &[RELAY]);
    ok(relay_call(&mut chain, RELAY, &RelayCall::Deregister, 0));
}

#[test]
fn an_owner_deletes_and_undeletes_within_the_grace() {
    let mut chain = registered_chain();
    let fee = params().volume_creation_fee;
    let create = StorageCall::Create { name: "v".into(), relay: RELAY, public: true, max_size_bytes: 10 };
    ok(storage_call(&mut chain, OWNER, &create, fee + 5));
    let id = volume_id(&OWNER, "v");
    assert_eq!(
        code(storage_call(&mut chain, OTHER, &StorageCall::Delete { volume: id }, 0)),
        Some(ExecCode::UnknownVolume)
    );
    assert_eq!(
        code(storage_call(&mut chain, OWNER, &StorageCall::Undelete { volume: id }, 0)),
        Some(ExecCode::VolumeState),
        "not deleted"
    );
    ok(storage_call(&mut chain, OWNER, &StorageCall::Delete { volume: id }, 0));
    let deleted = volume(&chain, id).unwrap();
    assert_eq!(deleted.rent.status_at(chain.height, params().volume_grace_blocks), VolumeStatus::Deleted);
    assert_eq!(
        code(storage_call(&mut chain, OWNER, &StorageCall::Delete { volume: id }, 0)),
        Some(ExecCode::VolumeState)
    );
    ok(storage_call(&mut chain, OWNER, &StorageCall::Undelete { volume: id }, 0));
    assert_eq!(volume(&chain, id).unwrap().rent.deleted_height, None);
    // Deleted again and left past the grace: purged, then reaped with the whole deposit back
    // (it never held bytes, so it never owed rent).
    ok(storage_call(&mut chain, OWNER, &StorageCall::Delete { volume: id }, 0));
    skip(&mut chain, params().volume_grace_blocks);
    assert_eq!(
        code(storage_call(&mut chain, OWNER, &StorageCall::Undelete { volume: id }, 0)),
        Some(ExecCode::VolumeState),
        "too late"
    );
    let before = balance(&chain.state, OWNER);
    let receipt = storage_call(&mut chain, OWNER, &StorageCall::Reap { volume: id }, 0);
    let reap_fee = receipt.fee.total();
    ok(receipt);
    assert_eq!(balance(&chain.state, OWNER), before + 5 - reap_fee);
    assert_conserved(&chain, &[RELAY]);
}

/// The addresses a relay listing names, in slot order (its invariants checked).
fn listed_relays(chain: &Chain, listing: &drover_state::listing::Listing) -> Vec<Address> {
    listed(&chain.state, listing).iter().map(|item| Address::from_slice(item).unwrap()).collect()
}

#[test]
fn relays_are_listed_by_their_settings_and_volumes_by_their_owner_while_they_exist() {
    let mut chain = Chain::new(&[(RELAY, RICH), (OWNER, RICH), (OTHER, RICH)]);
    ok(relay_call(&mut chain, RELAY, &RelayCall::Register(settings()), STAKE));
    let private = RelaySettings { public: false, ..settings() };
    ok(relay_call(&mut chain, OTHER, &RelayCall::Register(private.clone()), STAKE));
    assert_eq!(listed_relays(&chain, &public_relays_listing()), [RELAY]);
    assert_eq!(listed_relays(&chain, &writing_relays_listing()), [RELAY, OTHER]);
    // Settings move a relay in and out of each listing; the last one takes a freed slot.
    ok(relay_call(&mut chain, RELAY, &RelayCall::Update(RelaySettings { write: false, ..settings() }), 0));
    ok(relay_call(&mut chain, OTHER, &RelayCall::Update(settings()), 0));
    assert_eq!(listed_relays(&chain, &public_relays_listing()), [RELAY, OTHER]);
    assert_eq!(listed_relays(&chain, &writing_relays_listing()), [OTHER]);
    ok(relay_call(&mut chain, RELAY, &RelayCall::Deregister, 0));
    assert_eq!(listed_relays(&chain, &public_relays_listing()), [OTHER]);
    assert_eq!(listed_relays(&chain, &writing_relays_listing()), [OTHER]);

    let fee = params().volume_creation_fee;
    for name in ["a", "b", "c"] {
        ok(storage_call(
            &mut chain,
            OWNER,
            &StorageCall::Create { name: name.into(), relay: OTHER, public: false, max_size_bytes: 10 },
            fee,
        ));
    }
    let ids: Vec<_> = ["a", "b", "c"].iter().map(|name| volume_id(&OWNER, name)).collect();
    let owned = |chain: &Chain| -> Vec<H256> {
        listed(&chain.state, &volumes_listing(&OWNER)).iter().map(|item| H256(item[..].try_into().unwrap())).collect()
    };
    assert_eq!(owned(&chain), ids);
    // Deleted, it stays listed through its grace; reaped, it leaves.
    ok(storage_call(&mut chain, OWNER, &StorageCall::Delete { volume: ids[0] }, 0));
    assert_eq!(owned(&chain), ids);
    skip(&mut chain, params().volume_grace_blocks);
    ok(storage_call(&mut chain, OTHER, &StorageCall::Reap { volume: ids[0] }, 0));
    assert_eq!(owned(&chain), [ids[2], ids[1]]);
    assert!(listed(&chain.state, &volumes_listing(&OTHER)).is_empty());
}

#[test]
fn volume_refusals_and_revocation() {
    let mut chain = registered_chain();
    let fee = params().volume_creation_fee;
    let create =
        |name: &str, relay| StorageCall::Create { name: name.into(), relay, public: false, max_size_bytes: 10 };
    assert_eq!(code(storage_call(&mut chain, OWNER, &create("Bad Name", RELAY), fee)), Some(ExecCode::VolumeRules));
    assert_eq!(code(storage_call(&mut chain, OWNER, &create("v", RELAY), fee - 1)), Some(ExecCode::VolumeRules));
    let uncapped = StorageCall::Create {
        name: "v".into(),
        relay: RELAY,
        public: false,
        max_size_bytes: MAX_VOLUME_SIZE_BYTES + 1,
    };
    assert_eq!(code(storage_call(&mut chain, OWNER, &uncapped, fee)), Some(ExecCode::VolumeRules));
    assert_eq!(code(storage_call(&mut chain, OWNER, &create("v", OTHER), fee)), Some(ExecCode::RelayUnavailable));
    let unknown = StorageCall::Deposit { volume: H256([1; 32]) };
    assert_eq!(code(storage_call(&mut chain, OWNER, &unknown, 1)), Some(ExecCode::UnknownVolume));
    assert_eq!(
        code(storage_call(&mut chain, OWNER, &StorageCall::Delete { volume: H256([1; 32]) }, 1)),
        Some(ExecCode::WasmTrap),
        "delete takes no value"
    );
    // A relay that stopped taking writes, or stopped heartbeating, takes no new volume.
    ok(relay_call(&mut chain, RELAY, &RelayCall::Update(RelaySettings { write: false, ..settings() }), 0));
    assert_eq!(code(storage_call(&mut chain, OWNER, &create("v", RELAY), fee)), Some(ExecCode::RelayUnavailable));
    ok(relay_call(&mut chain, RELAY, &RelayCall::Update(settings()), 0));
    skip(&mut chain, params().heartbeat_gap_blocks + 1);
    assert_eq!(code(storage_call(&mut chain, OWNER, &create("v", RELAY), fee)), Some(ExecCode::RelayUnavailable));
    ok(relay_call(&mut chain, RELAY, &RelayCall::Heartbeat, 0));
    ok(storage_call(&mut chain, OWNER, &create("v", RELAY), fee));
    assert_eq!(volume_totals(&chain).volumes, 1, "refusals created nothing");
    assert_conserved(&chain, &[RELAY]);

    let session_key = [2u8; 33];
    ok(storage_call(&mut chain, OWNER, &StorageCall::Revoke { session_key }, 0));
    let marker = chain.state.get(&volume_state_key(&revocation_key(&OWNER, &session_key))).unwrap();
    assert_eq!(decode_revocation(marker), Ok(chain.height - 1));
}

/// Keys a transaction of `sender` with `call` reads beyond an empty block's, once applied.
fn reads_of(chain: &mut Chain, sender: Address, to: Address, payload: Vec<u8>, value: u128) -> usize {
    let env = chain.env();
    let (_, baseline) = read_once(&chain.state, &env, &[]);
    let tx = chain.tx(sender, Some(to), payload, value);
    let (outcome, reads) = read_once(&chain.state, &env, std::slice::from_ref(&tx));
    assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0].error);
    chain.block(&[tx]);
    reads - baseline
}

/// What each storage call reads, on a volume `name` of `owner`.
fn call_reads(chain: &mut Chain, owner: Address, name: &str) -> Vec<usize> {
    let fee = params().volume_creation_fee;
    let id = volume_id(&owner, name);
    let volume_call = |call: StorageCall| call.message().encode();
    let relay_call = |call: RelayCall| call.message().encode();
    vec![
        reads_of(
            chain,
            owner,
            STORAGE_MANAGER_ADDRESS,
            volume_call(StorageCall::Create { name: name.into(), relay: RELAY, public: false, max_size_bytes: 10 }),
            fee + 1_000_000,
        ),
        reads_of(
            chain,
            RELAY,
            STORAGE_MANAGER_ADDRESS,
            volume_call(StorageCall::Commit { volume: id, root: H256([1; 32]), size_bytes: 10 }),
            0,
        ),
        reads_of(chain, owner, STORAGE_MANAGER_ADDRESS, volume_call(StorageCall::Deposit { volume: id }), 5),
        reads_of(
            chain,
            owner,
            STORAGE_MANAGER_ADDRESS,
            volume_call(StorageCall::Resize { volume: id, max_size_bytes: 20 }),
            0,
        ),
        reads_of(chain, owner, STORAGE_MANAGER_ADDRESS, volume_call(StorageCall::Delete { volume: id }), 0),
        reads_of(chain, owner, STORAGE_MANAGER_ADDRESS, volume_call(StorageCall::Undelete { volume: id }), 0),
        reads_of(chain, RELAY, RELAY_REGISTRY_ADDRESS, relay_call(RelayCall::Heartbeat), 0),
        reads_of(chain, RELAY, STORAGE_MANAGER_ADDRESS, volume_call(StorageCall::Drop { volume: id }), 0),
    ]
}

#[test]
fn a_calls_work_does_not_grow_with_the_number_of_relays_and_volumes() {
    // Rent is settled lazily and every record is a point lookup: each call reads the same keys
    // whatever the state holds, which is what its fixed price is for.
    let others: Vec<Address> =
        (0..100u8).map(|i| Address([i, 0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])).collect();
    let mut balances: Vec<(Address, u128)> = others.iter().map(|a| (*a, RICH)).collect();
    balances.extend([(RELAY, RICH), (OWNER, RICH)]);
    let mut chain = Chain::new(&balances);
    ok(relay_call(
        &mut chain,
        RELAY,
        &RelayCall::Register(RelaySettings { capacity_bytes: 1 << 40, ..settings() }),
        STAKE,
    ));
    let small = call_reads(&mut chain, OWNER, "first");

    // A hundred more relays, and a hundred more volumes held by this one.
    let fee = params().volume_creation_fee;
    let register = RelayCall::Register(settings());
    let registrations: Vec<_> = others
        .iter()
        .map(|a| chain.system_tx(*a, RELAY_REGISTRY_ADDRESS, register.message(), register.cost(), STAKE))
        .collect();
    chain.block(&registrations);
    let creations: Vec<_> = others
        .iter()
        .map(|a| {
            let call = StorageCall::Create { name: "bulk".into(), relay: RELAY, public: true, max_size_bytes: 10 };
            chain.system_tx(*a, STORAGE_MANAGER_ADDRESS, call.message(), call.cost(), fee + 1_000)
        })
        .collect();
    chain.block(&creations);
    assert_eq!((relay_totals(&chain).relays, volume_totals(&chain).volumes), (101, 101));
    let large = call_reads(&mut chain, OWNER, "second");
    assert_eq!(small, large, "create, commit, deposit, resize, delete, undelete, heartbeat, drop");
    assert!(large.iter().all(|reads| *reads <= 8), "{large:?}");
    let relays: Vec<Address> = others.iter().copied().chain([RELAY]).collect();
    assert_conserved(&chain, &relays);
}

#[test]
fn a_relay_is_paid_for_no_more_than_the_owner_agreed_to() {
    let mut chain = registered_chain();
    let fee = params().volume_creation_fee;
    let deposit = 1_000_000;
    let create = StorageCall::Create { name: "v".into(), relay: RELAY, public: false, max_size_bytes: 100 };
    ok(storage_call(&mut chain, OWNER, &create, fee + deposit));
    let id = volume_id(&OWNER, "v");
    // The attack: the relay raises its capacity as far as it goes and commits the size whose
    // rent is the whole deposit in one block, then touches the volume again to settle.
    let huge = RelaySettings { capacity_bytes: MAX_RELAY_CAPACITY_BYTES, ..settings() };
    ok(relay_call(&mut chain, RELAY, &RelayCall::Update(huge), 0));
    let size_bytes = u64::try_from(deposit / PRICE).unwrap();
    let inflate = StorageCall::Commit { volume: id, root: H256([1; 32]), size_bytes };
    ok(storage_call(&mut chain, RELAY, &inflate, 0));
    ok(storage_call(&mut chain, RELAY, &inflate, 0));
    let record = volume(&chain, id).unwrap();
    assert_eq!((record.rent_paid, record.rent.deposit), (0, deposit), "nothing before the next window");
    assert_eq!(record.size_bytes, size_bytes, "the relay's size is recorded as committed");
    assert_eq!(record.rent.growth.map(|g| g.size_bytes), Some(100), "but billed within the owner's cap");
    assert_conserved(&chain, &[RELAY]);

    // Ten blocks into the window the relay has been paid for 100 bytes a block, not the deposit.
    let window = next_window(chain.height - 1);
    skip_to(&mut chain, window + 10);
    ok(storage_call(&mut chain, RELAY, &inflate, 0));
    let record = volume(&chain, id).unwrap();
    assert_eq!(record.rent_paid, 10 * 100 * PRICE);
    assert_eq!(relay(&chain, RELAY).unwrap().earned, 10 * 100 * PRICE);
    assert_eq!(record.rent.status_at(chain.height, params().volume_grace_blocks), VolumeStatus::Active);
    assert_conserved(&chain, &[RELAY]);

    // The owner lowers the cap: charged at once. Only the owner resizes, within the largest cap.
    let resize = |max_size_bytes| StorageCall::Resize { volume: id, max_size_bytes };
    assert_eq!(code(storage_call(&mut chain, RELAY, &resize(1_000_000), 0)), Some(ExecCode::UnknownVolume));
    assert_eq!(
        code(storage_call(&mut chain, OWNER, &resize(MAX_VOLUME_SIZE_BYTES + 1), 0)),
        Some(ExecCode::VolumeRules)
    );
    ok(storage_call(&mut chain, OWNER, &resize(10), 0));
    let lowered_at = chain.height - 1;
    let record = volume(&chain, id).unwrap();
    assert_eq!((record.max_size_bytes, record.rent.size_bytes, record.rent.growth), (10, 10, None));
    let paid_before = record.rent_paid;
    skip(&mut chain, 5);
    ok(storage_call(&mut chain, OTHER, &StorageCall::Deposit { volume: id }, 1));
    let record = volume(&chain, id).unwrap();
    assert_eq!(record.rent_paid - paid_before, u128::from(chain.height - 1 - lowered_at) * 10 * PRICE);

    // Raised again: the growth waits for the next window, which the owner sees coming.
    ok(storage_call(&mut chain, OWNER, &resize(50), 0));
    let raised_at = chain.height - 1;
    let record = volume(&chain, id).unwrap();
    assert_eq!(record.rent.growth, Some(Growth { size_bytes: 50, from_height: next_window(raised_at) }));
    assert!(next_window(raised_at) - raised_at <= RENT_WINDOW_BLOCKS);
    assert_conserved(&chain, &[RELAY]);
}

#[test]
fn a_relay_drops_the_volumes_nobody_pays_for_and_deregisters() {
    let strangers: Vec<Address> =
        (1..=3u8).map(|i| Address([0x50, i, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])).collect();
    let mut accounts: Vec<(Address, u128)> = strangers.iter().map(|a| (*a, RICH)).collect();
    accounts.extend([(RELAY, RICH), (OWNER, RICH), (OTHER, RICH)]);
    let mut chain = Chain::new(&accounts);
    ok(relay_call(&mut chain, RELAY, &RelayCall::Register(settings()), STAKE));
    let fee = params().volume_creation_fee;
    // Strangers pin the relay with empty volumes, for the creation fee alone: they owe no rent,
    // so they would never run out and be purged.
    let pins: Vec<H256> = strangers
        .iter()
        .map(|stranger| {
            let create = StorageCall::Create { name: "pin".into(), relay: RELAY, public: false, max_size_bytes: 0 };
            ok(storage_call(&mut chain, *stranger, &create, fee));
            volume_id(stranger, "pin")
        })
        .collect();
    // And an owner who deleted hers: the relay's drop keeps her earlier purge.
    let create = StorageCall::Create { name: "mine".into(), relay: RELAY, public: false, max_size_bytes: 0 };
    ok(storage_call(&mut chain, OWNER, &create, fee + 7));
    let mine = volume_id(&OWNER, "mine");
    ok(storage_call(&mut chain, OWNER, &StorageCall::Delete { volume: mine }, 0));
    let deleted_at = chain.height - 1;
    assert_eq!(code(relay_call(&mut chain, RELAY, &RelayCall::Deregister, 0)), Some(ExecCode::RelayBusy));

    // Only the volume's relay drops it, once.
    assert_eq!(
        code(storage_call(&mut chain, OTHER, &StorageCall::Drop { volume: pins[0] }, 0)),
        Some(ExecCode::UnknownVolume)
    );
    for id in pins.iter().chain([&mine]) {
        ok(storage_call(&mut chain, RELAY, &StorageCall::Drop { volume: *id }, 0));
    }
    let dropped_at = chain.height - 1;
    assert_eq!(
        code(storage_call(&mut chain, RELAY, &StorageCall::Drop { volume: pins[0] }, 0)),
        Some(ExecCode::VolumeState)
    );
    let record = volume(&chain, pins[0]).unwrap();
    assert!(record.dropped);
    assert_eq!(record.rent.status_at(chain.height, params().volume_grace_blocks), VolumeStatus::Deleted);
    assert_eq!(volume(&chain, mine).unwrap().rent.deleted_height, Some(deleted_at));
    // Dropped is for good: no undelete, no commit, no resize.
    assert_eq!(
        code(storage_call(&mut chain, strangers[0], &StorageCall::Undelete { volume: pins[0] }, 0)),
        Some(ExecCode::VolumeState)
    );
    let commit = StorageCall::Commit { volume: pins[0], root: H256([1; 32]), size_bytes: 5 };
    assert_eq!(code(storage_call(&mut chain, RELAY, &commit, 0)), Some(ExecCode::VolumeState));
    let resize = StorageCall::Resize { volume: pins[0], max_size_bytes: 5 };
    assert_eq!(code(storage_call(&mut chain, strangers[0], &resize, 0)), Some(ExecCode::VolumeState));
    assert_conserved(&chain, &[RELAY]);

    // Past the grace they are purged; the relay reaps them itself and leaves.
    skip_to(&mut chain, dropped_at + params().volume_grace_blocks);
    let owner_before = balance(&chain.state, OWNER);
    for id in pins.iter().chain([&mine]) {
        ok(storage_call(&mut chain, RELAY, &StorageCall::Reap { volume: *id }, 0));
    }
    assert_eq!(balance(&chain.state, OWNER), owner_before + 7, "the deposit goes back to its owner");
    assert_eq!((relay(&chain, RELAY).unwrap().volumes, volume_totals(&chain).volumes), (0, 0));
    ok(relay_call(&mut chain, RELAY, &RelayCall::Deregister, 0));
    assert_conserved(&chain, &[RELAY]);
}

#[test]
fn a_free_relay_drops_a_volume_with_objects_after_a_grace() {
    // A relay that charges nothing: its volumes never run out either. Its drop stops nothing
    // the owner pays, and leaves the owner the grace to copy the objects out.
    let mut chain = Chain::new(&[(RELAY, RICH), (OWNER, RICH)]);
    ok(relay_call(
        &mut chain,
        RELAY,
        &RelayCall::Register(RelaySettings { price_per_byte_block: 0, ..settings() }),
        STAKE,
    ));
    let fee = params().volume_creation_fee;
    let create = StorageCall::Create { name: "v".into(), relay: RELAY, public: true, max_size_bytes: 500 };
    ok(storage_call(&mut chain, OWNER, &create, fee + 100));
    let id = volume_id(&OWNER, "v");
    ok(storage_call(&mut chain, RELAY, &StorageCall::Commit { volume: id, root: H256([2; 32]), size_bytes: 300 }, 0));
    skip(&mut chain, 2 * RENT_WINDOW_BLOCKS);
    let record = volume(&chain, id).unwrap();
    assert_eq!(record.rent.status_at(chain.height, params().volume_grace_blocks), VolumeStatus::Active);
    ok(storage_call(&mut chain, RELAY, &StorageCall::Drop { volume: id }, 0));
    let record = volume(&chain, id).unwrap();
    let purge = record.rent.purge_height(params().volume_grace_blocks).unwrap();
    assert_eq!(purge, chain.height - 1 + params().volume_grace_blocks);
    skip_to(&mut chain, purge);
    ok(storage_call(&mut chain, OWNER, &StorageCall::Reap { volume: id }, 0));
    assert_eq!(relay(&chain, RELAY).unwrap().used_bytes, 0);
    ok(relay_call(&mut chain, RELAY, &RelayCall::Deregister, 0));
    assert_conserved(&chain, &[RELAY]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    /// Whatever the relay commits and the owners do, the manager holds exactly the deposits,
    /// the registry exactly the stakes, every billed size (in force or to come) is within its
    /// owner's cap, and the relay's counts are the sums over its volumes.
    #[test]
    fn deposits_stakes_and_caps_hold_for_any_sequence(
        ops in proptest::collection::vec((0..9u8, 0..3usize, 0..2_000u64), 1..40),
    ) {
        let owners = [OWNER, OTHER, Address([0x0d; 20])];
        let mut chain = Chain::new(&[(RELAY, RICH), (OWNER, RICH), (OTHER, RICH), (owners[2], RICH)]);
        let big = RelaySettings { capacity_bytes: 1 << 20, ..settings() };
        ok(relay_call(&mut chain, RELAY, &RelayCall::Register(big), STAKE));
        let fee = params().volume_creation_fee;
        let ids: Vec<H256> = owners.iter().map(|owner| volume_id(owner, "v")).collect();
        for (op, who, n) in ops {
            let (owner, id) = (owners[who], ids[who]);
            let call = match op {
                0 => (owner, StorageCall::Create { name: "v".into(), relay: RELAY, public: false, max_size_bytes: n }, fee + u128::from(n) * 40),
                1 | 2 => (RELAY, StorageCall::Commit { volume: id, root: H256([op; 32]), size_bytes: n * 3 }, 0),
                3 => (owner, StorageCall::Resize { volume: id, max_size_bytes: n }, 0),
                4 => (OTHER, StorageCall::Deposit { volume: id }, u128::from(n) + 1),
                5 => (owner, if n % 2 == 0 { StorageCall::Delete { volume: id } } else { StorageCall::Undelete { volume: id } }, 0),
                6 => (RELAY, StorageCall::Drop { volume: id }, 0),
                7 => (OTHER, StorageCall::Reap { volume: id }, 0),
                _ => {
                    skip(&mut chain, n % 60);
                    continue;
                }
            };
            storage_call(&mut chain, call.0, &call.1, call.2);
            assert_conserved(&chain, &[RELAY]);
            let volumes: Vec<VolumeRecord> = ids.iter().filter_map(|id| volume(&chain, *id)).collect();
            for record in &volumes {
                proptest::prop_assert!(record.rent.size_bytes <= record.max_size_bytes);
                let growth = record.rent.growth.map_or(0, |g| g.size_bytes);
                proptest::prop_assert!(growth <= record.max_size_bytes);
                if record.dropped {
                    proptest::prop_assert_eq!((record.rent.size_bytes, growth), (0, 0));
                }
            }
            let relay_record = relay(&chain, RELAY).unwrap();
            proptest::prop_assert_eq!(relay_record.volumes, volumes.len() as u64);
            proptest::prop_assert_eq!(relay_record.used_bytes, volumes.iter().map(|v| v.size_bytes).sum::<u64>());
        }
    }
}
