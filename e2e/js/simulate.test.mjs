// viem's simulateCalls (eth_simulateV1) against stocknode: calls from an
// account funded by a state override, ether transfers traced as logs, the
// asset changes of an example stock token, reverts with their reason and
// validation (with simulateBlocks: simulateCalls adds a call without fees,
// which validation refuses on a chain with a base fee). Nothing here sends a
// transaction, so the file needs no key of its own: it simulates from the
// address of key 1, which holds the example stock tokens (the ethers suite
// sends from it; a simulation only reads its balances, all on one state).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createPublicClient, decodeEventLog, defineChain, erc20Abi, getAddress, http, parseEther, parseGwei } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RPC, CHAIN_ID, KEYS, poll } from "./helpers.mjs";

const chain = defineChain({
  id: CHAIN_ID,
  name: "stocknode dev",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [RPC] } },
});
const client = createPublicClient({ chain, transport: http(RPC) });
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const holder = privateKeyToAccount(KEYS[1]).address;
const ETH_ADDRESS = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
const transferEvent = erc20Abi.filter((x) => x.type === "event" && x.name === "Transfer");

// revertCode always reverts with Error("nope").
const z = "00".repeat(28);
const revertCode = "0x7f08c379a0" + z + "600052" + "6020600452" + "6004602452" + "7f6e6f7065" + z + "604452" + "60646000fd";

test("simulateCalls: transfers from an account a state override funds, traced as Transfer logs", async () => {
  const from = fresh();
  const [to1, to2] = [fresh(), fresh()];
  const latest = await client.getBlockNumber();
  const { block, results } = await client.simulateCalls({
    account: from,
    calls: [
      { to: to1, value: parseEther("1") },
      { to: to2, value: 5n },
    ],
    stateOverrides: [{ address: from, balance: parseEther("2") }],
    traceTransfers: true,
  });
  assert.ok(block.number > latest, `simulated block ${block.number} is not after latest ${latest}`);
  assert.equal(results.length, 2);
  const want = [
    [to1, parseEther("1")],
    [to2, 5n],
  ];
  for (const [i, r] of results.entries()) {
    assert.equal(r.status, "success", `call ${i}: ${r.error}`);
    assert.equal(r.gasUsed, 21000n);
    assert.equal(r.logs.length, 1, `call ${i}: one traced transfer`);
    const log = r.logs[0];
    assert.equal(log.address, ETH_ADDRESS);
    const ev = decodeEventLog({ abi: transferEvent, data: log.data, topics: log.topics });
    assert.deepEqual([ev.args.from, ev.args.to, ev.args.value], [getAddress(from), getAddress(want[i][0]), want[i][1]]);
    assert.equal(log.blockHash, block.hash);
  }
});

test("simulateCalls with traceAssetChanges: an example stock token and ether", async () => {
  const tokens = await poll("example tokens listed", async () => {
    const res = await fetch(RPC.replace(/\/*$/, "") + "/v1/tokenized-stocks");
    if (res.status !== 200) return undefined;
    const b = await res.json();
    return b.tokens.some((t) => t.symbol === "XRBT") ? b.tokens : undefined;
  });
  const xrbt = getAddress(tokens.find((t) => t.symbol === "XRBT").contract_address);
  const to = fresh();
  const { results, assetChanges } = await client.simulateCalls({
    account: holder,
    calls: [
      { to: xrbt, abi: erc20Abi, functionName: "transfer", args: [to, parseEther("3")] },
      { to, value: 7n },
    ],
    traceAssetChanges: true,
  });
  assert.deepEqual(
    results.map((r) => r.status),
    ["success", "success"],
  );
  assert.equal(results[0].result, true);
  const eth = assetChanges.find((c) => c.token.address === ETH_ADDRESS);
  assert.ok(eth, `no ether change in ${JSON.stringify(assetChanges, (_, v) => (typeof v === "bigint" ? String(v) : v))}`);
  assert.equal(eth.value.diff, -7n);
  const stock = assetChanges.find((c) => getAddress(c.token.address) === xrbt);
  assert.ok(stock, "no change of the stock token");
  assert.equal(stock.token.symbol, "XRBT");
  assert.equal(stock.token.decimals, 18);
  assert.equal(stock.value.diff, -parseEther("3"));
  assert.equal(stock.value.pre - stock.value.post, parseEther("3"));
});

test("simulateCalls: a reverted call fails with its reason, the others run", async () => {
  const reverter = fresh();
  const to = fresh();
  const { results } = await client.simulateCalls({
    account: holder,
    calls: [{ to: reverter, data: "0x" }, { to, value: 1n }],
    stateOverrides: [{ address: reverter, code: revertCode }],
  });
  assert.equal(results[0].status, "failure");
  assert.match(results[0].error.message, /nope/);
  assert.equal(results[1].status, "success");
});

test("simulateBlocks with validation: fees at the base fee of the head's successor, funds checked", async () => {
  const from = fresh();
  const head = await client.getBlock({ blockTag: "latest" });
  const [block] = await client.simulateBlocks({
    blocks: [
      {
        calls: [{ account: from, to: fresh(), value: 1n, maxFeePerGas: parseGwei("100"), gas: 21000n }],
        stateOverrides: [{ address: from, balance: parseEther("1") }],
      },
    ],
    validation: true,
  });
  assert.equal(block.calls[0].status, "success");
  assert.ok(block.number > head.number, `simulated block ${block.number} is not after the head ${head.number}`);
  assert.ok(block.baseFeePerGas >= parseGwei("1"), `base fee ${block.baseFeePerGas} below the preview network's floor`);
  // Without the funds for the gas the simulation as a whole fails (-38014).
  await assert.rejects(
    client.simulateBlocks({ blocks: [{ calls: [{ account: fresh(), to: fresh(), value: 1n, maxFeePerGas: parseGwei("100") }] }], validation: true }),
    /insufficient funds/,
  );
});

test("simulateCalls on pending: the first block takes the pending block's number", async () => {
  const pending = await client.getBlock({ blockTag: "pending" });
  const from = fresh();
  const { block, results } = await client.simulateCalls({
    account: from,
    blockTag: "pending",
    calls: [{ to: fresh(), value: 1n }],
    stateOverrides: [{ address: from, balance: parseEther("1") }],
  });
  const after = await client.getBlock({ blockTag: "pending" });
  assert.equal(results[0].status, "success");
  // Blocks may seal between the requests (one every 200 ms, more than one
  // on a loaded machine): the simulated block is pending's as it was read
  // before or after, or in between.
  assert.ok(block.number >= pending.number && block.number <= after.number, `simulated block ${block.number}, pending ${pending.number} before and ${after.number} after`);
});
