// The explorer shows what a user just did, against the node's defaults
// (200 ms blocks): the recipient's address page lists a transaction as soon
// as the RPC answers its receipt (pre-confirmed or sealed, whichever the
// node answers), whether or not the address index has reached its block; and
// the home page's live lists show every block number, once, keeping up
// with five blocks a second, and name the methods called.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Contract, JsonRpcProvider, Network, Wallet, ZeroHash } from "ethers";
import { CHAIN_ID, KEYS, ETHER, poll } from "../js/helpers.mjs";
import { RPC, launch, open, shot } from "./browser.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const network = new Network("stocknode-dev", CHAIN_ID);
const provider = new JsonRpcProvider(RPC, network, { staticNetwork: network, pollingInterval: 50, cacheTimeout: -1 });

// sealed polls until the RPC answers the sealed block's receipt (it has
// the block's hash; a pre-confirmed one has the zero hash).
async function sealed(hash) {
  return poll(`transaction ${hash} sealed`, async () => {
    const r = await provider.getTransactionReceipt(hash);
    return r && r.blockHash !== ZeroHash ? r : undefined;
  });
}

// listed loads path at once and says whether its list (tbody #list) has the
// transaction's row, and whether that row is marked pre-confirmed.
async function listed(page, path, list, hash) {
  await page.goto(RPC + path, { waitUntil: "domcontentloaded" });
  return page.$eval(`#${list}`, (tbody, h) => {
    const row = tbody.querySelector(`tr[data-tx-hash="${h}"]`);
    return row ? { pre: row.dataset.preconfirmed === "true" } : null;
  }, hash).catch(() => null);
}

// exampleToken is the address of the preview chain's first example token.
async function exampleToken(symbol) {
  return poll(`${symbol} in the token list`, async () => {
    const r = await fetch(RPC + "/v1/tokenized-stocks");
    if (!r.ok) return false;
    const { tokens } = await r.json();
    return tokens.find((t) => t.symbol === symbol)?.contract_address;
  });
}

test("the recipient's page lists a transaction as soon as the RPC answers its receipt", async () => {
  const page = await browser.newPage();
  const wallet = new Wallet(KEYS[2], provider);
  const counts = { pre: 0, sealed: 0 };
  // Rounds, each to a recipient of its own: the index trails each seal by
  // a moment, so some pages are read before it has the block.
  for (let round = 0; round < 8; round++) {
    const to = Wallet.createRandom().address;
    const tx = await wallet.sendTransaction({ to, value: 1000n + BigInt(round) });
    const receipt = await tx.wait(); // pre-confirmed or sealed, as the RPC answers
    const first = await listed(page, `/address/${to}`, "address-txs", tx.hash);
    assert.ok(first, `round ${round}: /address/${to} lacks ${tx.hash} right after its receipt (block ${receipt.blockNumber})`);
    counts[first.pre ? "pre" : "sealed"]++;
    await sealed(tx.hash);
    const then = await listed(page, `/address/${to}`, "address-txs", tx.hash);
    assert.deepEqual(then, { pre: false }, `round ${round}: /address/${to} lacks ${tx.hash} sealed right after its sealed receipt`);
  }
  console.log(`listed at once after tx.wait(): ${counts.pre} pre-confirmed, ${counts.sealed} sealed`);

  // A token transfer: on the recipient's token transfers, and the token
  // among its holdings.
  const xrbt = await exampleToken("XRBT");
  const holder = new Wallet(KEYS[0], provider);
  const token = new Contract(xrbt, ["function transfer(address to, uint256 amount) returns (bool)"], holder);
  const to = Wallet.createRandom().address;
  const tx = await token.transfer(to, 3n * ETHER);
  await tx.wait();
  assert.ok(await listed(page, `/address/${to}?view=transfers`, "address-transfers", tx.hash), "the token transfer right after its receipt");
  await sealed(tx.hash);
  assert.deepEqual(await listed(page, `/address/${to}?view=transfers`, "address-transfers", tx.hash), { pre: false });
  const holdings = await page.$$eval("#holdings tr[data-token]", (rows) => rows.map((r) => r.dataset.token.toLowerCase()));
  assert.ok(holdings.includes(xrbt.toLowerCase()), `XRBT among the recipient's holdings ${holdings}`);
  await shot(page, "address-right-after-receipt");
  await page.close();
});

test("the home page's latest blocks show every block number, once, keeping up", async () => {
  const page = await open(browser, RPC, "/");
  // Every state of the list, from the rendered page on.
  await page.evaluate(() => {
    const tbody = document.getElementById("latest-blocks");
    window.blockLists = [];
    const record = () => window.blockLists.push([...tbody.rows].map((r) => Number(r.dataset.blockNumber)));
    record();
    new MutationObserver(record).observe(tbody, { childList: true });
  });
  const first = await page.evaluate(() => window.blockLists[0][0]);
  // About ten seconds: fifty blocks after the rendered head.
  await page.waitForFunction((n) => Number(document.querySelector("#latest-blocks tr")?.dataset.blockNumber) >= n,
    { timeout: 20_000, polling: "mutation" }, first + 50);
  // Keeping up: the list reaches the chain's head within a second.
  const head = await provider.getBlockNumber();
  await page.waitForFunction((n) => Number(document.querySelector("#latest-blocks tr")?.dataset.blockNumber) >= n,
    { timeout: 1000, polling: "mutation" }, head);
  const lists = await page.evaluate(() => window.blockLists);
  const seen = new Set();
  for (const list of lists) {
    for (let i = 1; i < list.length; i++) {
      assert.equal(list[i], list[i - 1] - 1, `the list skips or repeats a number: ${list.join(" ")}`);
    }
    list.forEach((n) => seen.add(n));
  }
  const numbers = [...seen].sort((a, b) => a - b);
  const missing = [];
  for (let n = first; n <= numbers.at(-1); n++) if (!seen.has(n)) missing.push(n);
  assert.deepEqual(missing, [], `block numbers never listed between ${first} and ${numbers.at(-1)}`);
  console.log(`${lists.length} states of the list, blocks ${first} to ${numbers.at(-1)}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the home page's live lists name the methods called", async () => {
  const page = await open(browser, RPC, "/");
  await page.waitForSelector('#live-status[data-state="live"]', { timeout: 5000 });
  const xrbt = await exampleToken("XRBT");
  const token = new Contract(xrbt, ["function transfer(address to, uint256 amount) returns (bool)"], new Wallet(KEYS[0], provider));
  const tx = await token.transfer(Wallet.createRandom().address, 1n);
  // The row comes in live, pre-confirmed or sealed, with its method.
  const row = `tr[data-tx-hash="${tx.hash}"]`;
  await page.waitForSelector(`#preconfirmed-txs ${row}, #latest-txs ${row}`, { timeout: 5000 });
  assert.equal(await page.$eval(row, (tr) => tr.querySelector(".fn")?.textContent), "transfer");
  await page.waitForSelector(`#latest-txs ${row}[data-preconfirmed="false"]`, { timeout: 5000 });
  assert.equal(await page.$eval(row, (tr) => tr.querySelector(".fn")?.textContent), "transfer");
  await shot(page, "home-live-method");
  assert.deepEqual(page.errors, []);
  await page.close();
});
