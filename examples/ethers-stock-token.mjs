// A stock token with ethers v6 and the B20 ABIs, as an app written for
// Base's tokenized stocks does it: create the token through the factory with
// its roles and a supply cap in the creation transaction, mint, transfer with
// a memo, pause, and read the token back through the Tokenized Stocks REST
// API. ethers has its default options.
//
//   make run                          # another shell
//   (cd examples && npm ci)           # once
//   node examples/ethers-stock-token.mjs
//
// STOCKNODE_RPC (default http://127.0.0.1:8545) names the node, STOCKNODE_KEY
// the issuer's key (default: development account 2, funded by the preview
// genesis). It prints what it did and exits 1 at the first step that is wrong.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AbiCoder, Contract, Interface, JsonRpcProvider, Wallet, encodeBytes32String, formatUnits, hexlify, id, parseUnits, randomBytes } from "ethers";

const RPC = (process.env.STOCKNODE_RPC || "http://127.0.0.1:8545").replace(/\/*$/, "");
const KEY = process.env.STOCKNODE_KEY || "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";

// The B20 factory's address is Base's. The ABIs are the repository's
// artifacts (contracts/artifacts), which hold every function, event and error
// of Base's IB20Factory.json and IB20Asset.json (base-std's script/smoke/abi):
// an app that loads Base's files instead works the same.
const FACTORY = "0xB20f000000000000000000000000000000000000";
const abi = (name) => JSON.parse(readFileSync(new URL(`../contracts/artifacts/${name}.json`, import.meta.url), "utf8")).abi;
const ASSET = 0; // createB20's variant: 0 Asset (a stock), 1 Stablecoin
const TRANSFER = 0; // PausableFeature: 0 TRANSFER, 1 MINT, 2 BURN

const provider = new JsonRpcProvider(RPC);
const issuer = new Wallet(KEY, provider);
const factory = new Contract(FACTORY, abi("B20Factory"), issuer);
const assetABI = abi("B20Asset");

// revertName runs a call that must revert and returns its custom error's
// name, decoded by ethers from the ABI.
async function revertName(call) {
  try {
    await call();
  } catch (err) {
    if (err.revert) return `${err.revert.name}(${err.revert.args.join(", ")})`;
    throw err;
  }
  assert.fail("the call did not revert");
}

// restToken polls GET /v1/tokenized-stocks until the token's entry satisfies
// want: the API reads the latest sealed block, re-read once per new head.
async function restToken(address, want) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await fetch(`${RPC}/v1/tokenized-stocks`);
    if (res.ok) {
      const token = (await res.json()).tokens.find((t) => t.contract_address === address);
      if (token && want(token)) return token;
    }
    if (Date.now() > deadline) assert.fail(`GET /v1/tokenized-stocks: ${address} does not show what is expected within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main() {
  const { chainId } = await provider.getNetwork();
  console.log(`node ${RPC}: chain ${chainId}, block ${await provider.getBlockNumber()}, issuer ${issuer.address}`);
  const holder = Wallet.createRandom().address;
  const outsider = Wallet.createRandom().address;
  const asset = new Interface(assetABI); // the token's, to encode initCalls

  // 1. createB20(variant, salt, params, initCalls). params is the ABI encoding
  // of (uint8 version = 1, string name, string symbol, address admin, uint8
  // decimals). The admin gets DEFAULT_ADMIN_ROLE only, which grants roles but
  // does not mint or pause: the initCalls grant MINT_ROLE and PAUSE_ROLE
  // (a role's id is keccak256 of its name, ethers' id()) and
  // set the supply cap, run by the factory on the new token before
  // createB20 returns.
  const decimals = 6;
  const units = (n) => parseUnits(String(n), decimals);
  const symbol = "XMPL" + hexlify(randomBytes(2)).slice(2).toUpperCase();
  const params = AbiCoder.defaultAbiCoder().encode(
    ["tuple(uint8 version, string name, string symbol, address admin, uint8 decimals)"],
    [[1, "Example Stock Co. (example)", symbol, issuer.address, decimals]],
  );
  const initCalls = [
    asset.encodeFunctionData("grantRole", [id("MINT_ROLE"), issuer.address]),
    asset.encodeFunctionData("grantRole", [id("PAUSE_ROLE"), issuer.address]),
    asset.encodeFunctionData("updateSupplyCap", [units(1_000_000)]),
  ];
  const salt = hexlify(randomBytes(32));
  const predicted = await factory.getB20Address(ASSET, issuer.address, salt);
  let tx = await factory.createB20(ASSET, salt, params, initCalls);
  let receipt = await tx.wait();
  assert.equal(receipt.status, 1, "createB20 succeeded");
  const created = receipt.logs.map((l) => factory.interface.parseLog(l)).find((e) => e?.name === "B20Created");
  assert.ok(created, "createB20 emitted B20Created");
  const address = created.args.token;
  assert.equal(address, predicted, "getB20Address predicted the token's address");
  console.log(`1. createB20 ${symbol}: ${tx.hash}, block ${receipt.blockNumber}, gas ${receipt.gasUsed}: token ${address} (getB20Address predicted it)`);
  const token = new Contract(address, assetABI, issuer);
  const [mintRole, pauseRole, cap] = await Promise.all([
    token.hasRole(await token.MINT_ROLE(), issuer.address),
    token.hasRole(await token.PAUSE_ROLE(), issuer.address),
    token.supplyCap(),
  ]);
  console.log(`   hasRole(MINT_ROLE) ${mintRole}, hasRole(PAUSE_ROLE) ${pauseRole}, supplyCap ${formatUnits(cap, decimals)}`);
  assert.ok(mintRole && pauseRole);
  assert.equal(cap, units(1_000_000));
  // Without MINT_ROLE, mint reverts: here, from an account that lacks it.
  const refused = await revertName(() => token.connect(new Wallet(hexlify(randomBytes(32)), provider)).mint.staticCall(holder, 1n));
  console.log(`   mint from an account without MINT_ROLE: reverts ${refused}`);
  assert.match(refused, /^AccessControlUnauthorizedAccount\(/);

  // 2. mint, within the cap; above it, SupplyCapExceeded.
  tx = await token.mint(issuer.address, units(1000));
  receipt = await tx.wait();
  assert.equal(receipt.status, 1);
  const balance = await token.balanceOf(issuer.address);
  console.log(`2. mint 1000 ${symbol}: ${tx.hash}, block ${receipt.blockNumber}; balanceOf(issuer) ${formatUnits(balance, decimals)}`);
  assert.equal(balance, units(1000));
  const overCap = await revertName(() => token.mint.staticCall(issuer.address, units(1_000_000)));
  console.log(`   mint 1,000,000 more: reverts ${overCap}`);
  assert.match(overCap, /^SupplyCapExceeded\(/);

  // 3. transferWithMemo: a Transfer event and a Memo event with the bytes32.
  const memo = encodeBytes32String("order 2026-0042");
  tx = await token.transferWithMemo(holder, units(25), memo);
  receipt = await tx.wait();
  assert.equal(receipt.status, 1);
  const events = receipt.logs.map((l) => token.interface.parseLog(l));
  assert.deepEqual(events.map((e) => e.name), ["Transfer", "Memo"]);
  assert.equal(events[1].args.memo, memo);
  const held = await token.balanceOf(holder);
  console.log(`3. transferWithMemo 25 to ${holder}: ${tx.hash}, block ${receipt.blockNumber}; events ${events.map((e) => e.name).join(", ")}; memo "order 2026-0042"; balanceOf(holder) ${formatUnits(held, decimals)}`);
  assert.equal(held, units(25));

  // 4. pause transfers: a transfer now reverts ContractPaused(0).
  tx = await token.pause([TRANSFER]);
  receipt = await tx.wait();
  assert.equal(receipt.status, 1);
  const paused = await token.isPaused(TRANSFER);
  const whilePaused = await revertName(() => token.transfer.staticCall(outsider, 1n));
  console.log(`4. pause([TRANSFER]): ${tx.hash}, block ${receipt.blockNumber}; isPaused(TRANSFER) ${paused}; a transfer reverts ${whilePaused}`);
  assert.equal(paused, true);
  assert.match(whilePaused, /^ContractPaused\(/);

  // 5. The REST API: the token as the node's index reads it at the latest
  // sealed block, and its total supply as a bare number.
  const rest = await restToken(address, (t) => t.paused_features.includes(TRANSFER));
  console.log(`5. GET /v1/tokenized-stocks: ${JSON.stringify(rest)}`);
  assert.equal(rest.symbol, symbol);
  assert.equal(rest.decimals, decimals);
  assert.equal(rest.total_supply, 1000);
  assert.deepEqual(rest.paused_features, [TRANSFER]);
  const supply = await (await fetch(`${RPC}/v1/tokenized-stocks/total-supply/${address}`)).json();
  console.log(`   GET /v1/tokenized-stocks/total-supply/${address}: ${supply}`);
  assert.equal(supply, 1000);
  console.log("every step as expected");
}

try {
  await main();
} catch (err) {
  console.error(`FAILED: ${err.stack || err.message}`);
  process.exitCode = 1;
} finally {
  provider.destroy();
}
