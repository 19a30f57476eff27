// The tokenized-stock protocol through the running node with ethers and the
// committed ABIs, as an app written for Base's B20 would use it: create a
// token with its roles in initCalls, mint, transfer with a memo, be refused
// by an allow-list policy, pause, hit the supply cap, announce a batch mint
// and a multiplier change, set metadata, burn. Every revert is checked by
// its custom-error selector, every step by the events it must emit, and the
// REST API by following the chain within a block or two. ethers runs with
// its default options against / (the Standard view, the default): every
// read after tx.wait() is of latest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ethers } from "ethers";
import { RPC, KEYS, ETHER, artifact, poll } from "./helpers.mjs";

const FACTORY = "0xB20f000000000000000000000000000000000000";
const POLICY_REGISTRY = "0x8453000000000000000000000000000000000002";
const ACTIVATION_REGISTRY = "0x8453000000000000000000000000000000000001";
const SUPPLY_MANAGER = "0x8453000000000000000000000000000000000100";

const provider = new ethers.JsonRpcProvider(RPC);
const admin = new ethers.Wallet(KEYS[8], provider);
const user = new ethers.Wallet(KEYS[9], provider);
const ADMIN = new ethers.Wallet(KEYS[8]).address;
const USER = new ethers.Wallet(KEYS[9]).address;
const OUTSIDER = ethers.getAddress("0x" + "5a".repeat(20));

const assetABI = artifact("B20Asset").abi;
const asset = new ethers.Interface(assetABI);
const factory = new ethers.Contract(FACTORY, artifact("B20Factory").abi, admin);
const policies = new ethers.Contract(POLICY_REGISTRY, artifact("PolicyRegistry").abi, admin);
const activation = new ethers.Contract(ACTIVATION_REGISTRY, artifact("ActivationRegistry").abi, provider);

const role = (name) => ethers.id(name);
const amt = (n) => BigInt(n) * ETHER;
const BASE = RPC.replace(/\/*$/, "");

let token; // the token contract, admin as signer
let tokenAddr;

// send waits for a transaction's receipt and checks it succeeded.
async function send(txPromise) {
  const tx = await txPromise;
  const receipt = await tx.wait();
  assert.equal(receipt.status, 1, "transaction succeeded");
  return receipt;
}

// events names the events of a receipt's logs, decoded with iface, in order.
function events(receipt, iface, address) {
  return receipt.logs
    .filter((l) => !address || l.address.toLowerCase() === address.toLowerCase())
    .map((l) => iface.parseLog(l)?.name)
    .filter(Boolean);
}

// reverts checks that the call reverts with the custom error `name`: its
// selector in the revert data, as eth_call returns it, and ethers' decoding
// of it by the contract's ABI (revert.name, the arguments in revert.args).
async function reverts(call, iface, name) {
  const selector = iface.getError(name).selector;
  try {
    await call();
  } catch (e) {
    const data = e.data ?? e.info?.error?.data ?? e.error?.data;
    assert.ok(typeof data === "string" && data.startsWith(selector), `want ${name} (${selector}), got ${data ?? e.message}`);
    assert.ok(ethers.isError(e, "CALL_EXCEPTION"), `${e.code}: ${e.message}`);
    assert.equal(e.revert?.name, name, `ethers decoded ${e.revert?.signature ?? "no revert"} (${e.shortMessage})`);
    assert.equal(e.revert.args.length, iface.getError(name).inputs.length);
    return;
  }
  assert.fail(`want revert ${name}, the call succeeded`);
}

// restToken polls GET /v1/tokenized-stocks until pred holds for the token.
async function restToken(what, pred) {
  return poll(`REST: ${what}`, async () => {
    const res = await fetch(BASE + "/v1/tokenized-stocks");
    if (res.status !== 200) return undefined;
    const t = (await res.json()).tokens.find((x) => x.contract_address === tokenAddr);
    return t && pred(t) ? t : undefined;
  }, { timeout: 5000 });
}

test("the protocol is at Base's addresses and activated", async () => {
  for (const addr of [FACTORY, POLICY_REGISTRY, ACTIVATION_REGISTRY, SUPPLY_MANAGER]) {
    assert.notEqual(await provider.getCode(addr), "0x", `${addr} has code`);
  }
  assert.equal(await activation.isActivated(ethers.id("base.b20_asset")), true);
  assert.equal(await activation.isActivated(ethers.id("base.policy_registry")), true);
});

test("createB20 with roles in initCalls creates the predicted token", async () => {
  const salt = ethers.hexlify(ethers.randomBytes(32));
  const params = ethers.AbiCoder.defaultAbiCoder().encode(
    ["tuple(uint8 version, string name, string symbol, address admin, uint8 decimals)"],
    [[1, "Lifecycle Test Co. (test)", "LIFE", ADMIN, 18]],
  );
  const initCalls = ["MINT_ROLE", "BURN_ROLE", "PAUSE_ROLE", "UNPAUSE_ROLE", "METADATA_ROLE", "OPERATOR_ROLE"].map((r) =>
    asset.encodeFunctionData("grantRole", [role(r), ADMIN]),
  );
  initCalls.push(asset.encodeFunctionData("updateSupplyCap", [amt(1_000_000)]));
  tokenAddr = await factory.getB20Address(0, ADMIN, salt);
  const receipt = await send(factory.createB20(0, salt, params, initCalls));
  const created = receipt.logs.map((l) => factory.interface.parseLog(l)).find((e) => e?.name === "B20Created");
  assert.ok(created, "B20Created emitted");
  assert.equal(created.args.token, tokenAddr, "getB20Address predicted the token");
  assert.equal(created.args.symbol, "LIFE");
  assert.ok(events(receipt, asset, tokenAddr).includes("RoleGranted"));
  assert.ok(events(receipt, asset, tokenAddr).includes("SupplyCapUpdated"));
  assert.equal(await factory.isB20(tokenAddr), true);
  assert.equal(await factory.isB20Initialized(tokenAddr), true);
  token = new ethers.Contract(tokenAddr, assetABI, admin);
  assert.equal(await token.decimals(), 18n);
  assert.equal(await token.hasRole(role("MINT_ROLE"), ADMIN), true);
  await reverts(() => factory.createB20.staticCall(0, salt, params, []), factory.interface, "TokenAlreadyExists");
  await restToken("the new token appears", (t) => t.symbol === "LIFE" && t.total_supply === 0);
});

test("mint, transfer and transferWithMemo", async () => {
  let r = await send(token.mint(ADMIN, amt(1000)));
  assert.deepEqual(events(r, asset, tokenAddr), ["Transfer"]);
  await restToken("mint changes total_supply", (t) => t.total_supply === 1000);
  r = await send(token.transfer(USER, amt(100)));
  assert.deepEqual(events(r, asset, tokenAddr), ["Transfer"]);
  const memo = ethers.encodeBytes32String("invoice 42");
  r = await send(token.transferWithMemo(USER, amt(1), memo));
  assert.deepEqual(events(r, asset, tokenAddr), ["Transfer", "Memo"], "Memo follows Transfer");
  assert.equal(await token.balanceOf(USER), amt(101));
  await reverts(() => token.connect(user).mint.staticCall(USER, 1n), asset, "AccessControlUnauthorizedAccount");
  await reverts(() => token.connect(user).transfer.staticCall(ADMIN, amt(1000)), asset, "InsufficientBalance");
});

test("an allow-list policy refuses a transfer with PolicyForbids", async () => {
  const pid = await policies.createPolicyWithAccounts.staticCall(ADMIN, 1, [ADMIN]);
  const r = await send(policies.createPolicyWithAccounts(ADMIN, 1, [ADMIN]));
  assert.ok(events(r, policies.interface, POLICY_REGISTRY).includes("PolicyCreated"));
  assert.equal(await policies.isAuthorized(pid, ADMIN), true);
  assert.equal(await policies.isAuthorized(pid, OUTSIDER), false);
  assert.equal(await policies.isAuthorized(424242n, OUTSIDER), false, "isAuthorized never reverts");
  const scope = await token.TRANSFER_RECEIVER_POLICY();
  assert.equal(scope, ethers.id("TRANSFER_RECEIVER_POLICY"));
  const u = await send(token.updatePolicy(scope, pid));
  assert.deepEqual(events(u, asset, tokenAddr), ["PolicyUpdated"]);
  assert.equal(await token.policyId(scope), pid);
  await reverts(() => token.transfer.staticCall(OUTSIDER, 1n), asset, "PolicyForbids");
  await send(token.transfer(ADMIN, 1n)); // an allowed receiver still works
  await send(token.updatePolicy(scope, 0n)); // ALWAYS_ALLOW again
  await send(token.transfer(OUTSIDER, 1n));
});

test("pause and unpause TRANSFER", async () => {
  let r = await send(token.pause([0]));
  assert.deepEqual(events(r, asset, tokenAddr), ["Paused"]);
  assert.equal(await token.isPaused(0), true);
  await reverts(() => token.transfer.staticCall(USER, 1n), asset, "ContractPaused");
  await restToken("pause changes paused_features", (t) => t.paused_features.length === 1 && t.paused_features[0] === 0);
  r = await send(token.unpause([0]));
  assert.deepEqual(events(r, asset, tokenAddr), ["Unpaused"]);
  await send(token.transfer(USER, 1n));
  await restToken("unpause clears paused_features", (t) => t.paused_features.length === 0);
});

test("the supply cap", async () => {
  const supply = await token.totalSupply();
  await send(token.updateSupplyCap(supply + amt(10)));
  assert.equal(await token.supplyCap(), supply + amt(10));
  await reverts(() => token.mint.staticCall(USER, amt(11)), asset, "SupplyCapExceeded");
  await send(token.mint(USER, amt(10)));
  await send(token.updateSupplyCap(amt(1_000_000)));
});

test("announce a batch mint and a multiplier change; ids are single-use", async () => {
  const batch = asset.encodeFunctionData("batchMint", [[ADMIN, USER], [amt(10), amt(20)]]);
  const split = asset.encodeFunctionData("updateMultiplier", [amt(2)]);
  const before = await token.totalSupply();
  const r = await send(token.announce([batch, split], "split-2026-1", "2-for-1 split", "ipfs://example/split"));
  const names = events(r, asset, tokenAddr);
  assert.equal(names[0], "Announcement");
  assert.equal(names.at(-1), "EndAnnouncement");
  assert.ok(names.includes("MultiplierUpdated"));
  assert.equal(names.filter((n) => n === "Transfer").length, 2);
  // A repeat of the read above, at latest: the node holds the receipt from
  // its sender past ethers' 250 ms request cache (--rpc.receipt-hold).
  assert.equal(await token.totalSupply(), before + amt(30));
  assert.equal(await token.multiplier(), amt(2));
  assert.equal(await token.isAnnouncementIdUsed("split-2026-1"), true);
  const raw = await token.balanceOf(USER);
  assert.equal(await token.scaledBalanceOf(USER), raw * 2n);
  await reverts(() => token.announce.staticCall([], "split-2026-1", "again", ""), asset, "AnnouncementIdAlreadyUsed");
  await restToken("the multiplier and the batch reach REST", (t) => t.multiplier === 2 && t.total_supply === Number(ethers.formatEther(before + amt(30))));
});

test("metadata: ISIN, name and symbol", async () => {
  let r = await send(token.updateExtraMetadata("isin", "XX0000000B09"));
  assert.deepEqual(events(r, asset, tokenAddr), ["ExtraMetadataUpdated"]);
  assert.equal(await token.extraMetadata("isin"), "XX0000000B09");
  r = await send(token.updateName("Lifecycle Renamed Co. (test)"));
  assert.deepEqual(events(r, asset, tokenAddr), ["NameUpdated", "EIP712DomainChanged"], "the name is part of the EIP-712 domain");
  r = await send(token.updateSymbol("LIF2"));
  assert.deepEqual(events(r, asset, tokenAddr), ["SymbolUpdated"]);
  await restToken("metadata reaches REST", (t) => t.isin === "XX0000000B09" && t.symbol === "LIF2");
});

test("burn", async () => {
  const before = await token.totalSupply();
  const r = await send(token.burn(amt(5)));
  assert.deepEqual(events(r, asset, tokenAddr), ["Transfer"]);
  assert.equal(await token.totalSupply({ blockTag: r.blockNumber }), before - amt(5), "at the burn's block (see announce)");
  const res = await poll("REST total supply after burn", async () => {
    const res = await fetch(`${BASE}/v1/tokenized-stocks/total-supply/${tokenAddr}`);
    const v = await res.json();
    return v === Number(ethers.formatEther(before - amt(5))) ? v : undefined;
  }, { timeout: 5000 });
  assert.ok(res > 0);
});
