// An allow-list policy that refuses a transfer, with ethers v6: an issuer
// creates an ALLOWLIST policy in the PolicyRegistry, creates a stock token
// whose TRANSFER_RECEIVER_POLICY is that list (and mints, in the same
// transaction), then transfers to an account on the list (it goes through),
// to one that is not (ethers does not send it: the node's gas estimate
// reverts with PolicyForbids), adds that account to the list and transfers
// again. ethers has its default options.
//
//   make run                          # another shell
//   (cd examples && npm ci)           # once
//   node examples/ethers-allowlist.mjs
//
// STOCKNODE_RPC (default http://127.0.0.1:8545) names the node, STOCKNODE_KEY
// the issuer's key (default: development account 3, funded by the preview
// genesis). It prints what it did and exits 1 at the first step that is wrong.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AbiCoder, Contract, Interface, JsonRpcProvider, Wallet, hexlify, id, randomBytes } from "ethers";

const RPC = (process.env.STOCKNODE_RPC || "http://127.0.0.1:8545").replace(/\/*$/, "");
const KEY = process.env.STOCKNODE_KEY || "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";

// Base's addresses; the ABIs are the repository's artifacts, a superset of
// Base's IB20Factory, IB20Asset and IPolicyRegistry (base-std's script/smoke/abi).
const FACTORY = "0xB20f000000000000000000000000000000000000";
const POLICY_REGISTRY = "0x8453000000000000000000000000000000000002";
const abi = (name) => JSON.parse(readFileSync(new URL(`../contracts/artifacts/${name}.json`, import.meta.url), "utf8")).abi;
const ALLOWLIST = 1; // PolicyType: 0 BLOCKLIST, 1 ALLOWLIST (2 UNION, 3 INTERSECT: composites)
const ASSET = 0;

const provider = new JsonRpcProvider(RPC);
const issuer = new Wallet(KEY, provider);
const registry = new Contract(POLICY_REGISTRY, abi("PolicyRegistry"), issuer);
const factory = new Contract(FACTORY, abi("B20Factory"), issuer);
const assetABI = abi("B20Asset");

// sent waits for a transaction and checks that it succeeded.
async function sent(txPromise) {
  const tx = await txPromise;
  const receipt = await tx.wait();
  assert.equal(receipt.status, 1, `${tx.hash} succeeded`);
  return receipt;
}

async function main() {
  const { chainId } = await provider.getNetwork();
  console.log(`node ${RPC}: chain ${chainId}, block ${await provider.getBlockNumber()}, issuer ${issuer.address}`);
  const alice = Wallet.createRandom().address; // on the list
  const bob = Wallet.createRandom().address; // not, at first

  // 1. The policy: an allow-list administered by the issuer, holding the
  // issuer and alice. Its id is in the PolicyCreated event.
  let receipt = await sent(registry.createPolicyWithAccounts(issuer.address, ALLOWLIST, [issuer.address, alice]));
  const created = receipt.logs.map((l) => registry.interface.parseLog(l)).find((e) => e?.name === "PolicyCreated");
  const policyId = created.args.policyId;
  console.log(`1. createPolicyWithAccounts(ALLOWLIST, [issuer, alice]): ${receipt.hash}, block ${receipt.blockNumber}: policy ${policyId}`);
  assert.equal(await registry.isAuthorized(policyId, alice), true);
  assert.equal(await registry.isAuthorized(policyId, bob), false);
  console.log(`   isAuthorized(alice) true, isAuthorized(bob) false`);

  // 2. The token, with the list on its receiver slot: initCalls grant the
  // issuer MINT_ROLE, mint 1000 and set TRANSFER_RECEIVER_POLICY, all in the
  // creation transaction.
  const asset = new Interface(assetABI);
  const params = AbiCoder.defaultAbiCoder().encode(
    ["tuple(uint8 version, string name, string symbol, address admin, uint8 decimals)"],
    [[1, "Allow-listed Stock Co. (example)", "XALW", issuer.address, 18]],
  );
  const initCalls = [
    asset.encodeFunctionData("grantRole", [id("MINT_ROLE"), issuer.address]),
    asset.encodeFunctionData("mint", [issuer.address, 1000n]),
    asset.encodeFunctionData("updatePolicy", [id("TRANSFER_RECEIVER_POLICY"), policyId]),
  ];
  receipt = await sent(factory.createB20(ASSET, hexlify(randomBytes(32)), params, initCalls));
  const address = receipt.logs.map((l) => factory.interface.parseLog(l)).find((e) => e?.name === "B20Created").args.token;
  const token = new Contract(address, assetABI, issuer);
  const scope = await token.TRANSFER_RECEIVER_POLICY();
  console.log(`2. createB20 XALW: ${receipt.hash}, block ${receipt.blockNumber}: token ${address}, policyId(TRANSFER_RECEIVER_POLICY) ${await token.policyId(scope)}, balanceOf(issuer) ${await token.balanceOf(issuer.address)}`);
  assert.equal(await token.policyId(scope), policyId);

  // 3. To alice: allowed.
  receipt = await sent(token.transfer(alice, 100n));
  console.log(`3. transfer 100 to alice: ${receipt.hash}, block ${receipt.blockNumber}; balanceOf(alice) ${await token.balanceOf(alice)}`);
  assert.equal(await token.balanceOf(alice), 100n);

  // 4. To bob: refused. ethers estimates the gas before it signs, the
  // estimate reverts, and ethers throws CALL_EXCEPTION with the revert data;
  // nothing is sent. The token's interface decodes the custom error.
  try {
    await token.transfer(bob, 100n);
    assert.fail("a transfer to bob, who is not on the allow-list, was sent");
  } catch (err) {
    assert.equal(err.code, "CALL_EXCEPTION", err.message);
    assert.equal(err.action, "estimateGas", "refused before it was signed");
    const refused = token.interface.parseError(err.data);
    assert.equal(refused?.name, "PolicyForbids", err.message);
    assert.deepEqual([...refused.args], [scope, policyId]);
    console.log(`4. transfer 100 to bob: ${err.code} in ${err.action}, data ${err.data}: ${refused.name}(TRANSFER_RECEIVER_POLICY, ${refused.args[1]}); not sent`);
  }
  assert.equal(await token.balanceOf(bob), 0n);

  // 5. The policy's admin adds bob; the same transfer goes through.
  receipt = await sent(registry.updateAllowlist(policyId, true, [bob]));
  console.log(`5. updateAllowlist(policy ${policyId}, true, [bob]): ${receipt.hash}, block ${receipt.blockNumber}`);
  receipt = await sent(token.transfer(bob, 100n));
  console.log(`   transfer 100 to bob: ${receipt.hash}, block ${receipt.blockNumber}; balanceOf(bob) ${await token.balanceOf(bob)}`);
  assert.equal(await token.balanceOf(bob), 100n);
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
