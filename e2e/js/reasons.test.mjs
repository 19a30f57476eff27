// ethers and viem against a node started with --rpc.revert-reasons (go
// test's TestJavaScriptRevertReasons): a reverted eth_call's message says
// why ("execution reverted: <reason>"), the code stays -32000 and the data
// the revert bytes. ethers decodes the data whatever the message says. viem
// (2.40) decodes the data of a -32000 error into a ContractFunctionRevertedError
// only when the message is exactly "execution reverted": it still shows the
// reason in its message, but errorName and args are gone, which is why the
// option is off by default. A custom error the node does not ship (the test
// Token's Unauthorized) keeps the plain message, and viem decodes it.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { ethers } from "ethers";
import { BaseError, ContractFunctionRevertedError, createPublicClient, defineChain, getAddress, http } from "viem";
import { RPC, CHAIN_ID, KEYS, TOKEN, artifact } from "./helpers.mjs";

const FACTORY = "0xB20f000000000000000000000000000000000000";
const provider = new ethers.JsonRpcProvider(RPC);
const admin = new ethers.Wallet(KEYS[0], provider);
const user = new ethers.Wallet(KEYS[1], provider);
const MINT_ROLE = ethers.id("MINT_ROLE");
const assetABI = artifact("B20Asset").abi;

const chain = defineChain({ id: CHAIN_ID, name: "stocknode dev", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [RPC] } } });
const viem = createPublicClient({ chain, transport: http(RPC) });

let b20; // a B20 Asset token, admin's
let token; // the test Token

before(async () => {
  const factory = new ethers.Contract(FACTORY, artifact("B20Factory").abi, admin);
  const salt = ethers.id("reasons");
  const params = ethers.AbiCoder.defaultAbiCoder().encode(
    ["tuple(uint8 version, string name, string symbol, address admin, uint8 decimals)"],
    [[1, "Reason Co", "RSN", admin.address, 18]],
  );
  const addr = await factory.getB20Address(0, admin.address, salt);
  await (await factory.createB20(0, salt, params, [])).wait();
  b20 = new ethers.Contract(addr, assetABI, user);
  const deployed = await new ethers.ContractFactory(TOKEN.abi, TOKEN.bytecode, admin).deploy("Stock Token", "STK", 1000n);
  await deployed.waitForDeployment();
  token = new ethers.Contract(await deployed.getAddress(), TOKEN.abi, admin);
});

// rpcError is the node's own answer to eth_call(tx), read without a client library.
async function rpcError(tx) {
  const res = await fetch(RPC, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [tx, "latest"] }) });
  const body = await res.json();
  assert.ok(body.error, `eth_call succeeded: ${JSON.stringify(body)}`);
  return body.error;
}

// viemRevert is the ContractFunctionRevertedError viem finds in err, if any.
function viemRevert(err) {
  assert.ok(err instanceof BaseError, String(err));
  return err.walk((e) => e instanceof ContractFunctionRevertedError);
}

test("a B20 custom error: named in the message, decoded by ethers, not by viem", async () => {
  const data = b20.interface.encodeFunctionData("mint", [user.address, 1n]);
  const e = await rpcError({ from: user.address, to: await b20.getAddress(), data });
  assert.equal(e.code, -32000);
  assert.equal(e.message, `execution reverted: AccessControlUnauthorizedAccount(${user.address}, ${MINT_ROLE})`);
  assert.ok(e.data.startsWith(b20.interface.getError("AccessControlUnauthorizedAccount").selector), e.data);

  await assert.rejects(b20.mint.staticCall(user.address, 1n), (err) => {
    assert.ok(ethers.isError(err, "CALL_EXCEPTION"), `${err.code}: ${err.message}`);
    assert.equal(err.revert?.name, "AccessControlUnauthorizedAccount");
    assert.equal(err.revert.args[0], user.address);
    assert.equal(err.revert.args[1], MINT_ROLE);
    return true;
  });

  await assert.rejects(
    viem.simulateContract({ address: await b20.getAddress(), abi: assetABI, functionName: "mint", args: [user.address, 1n], account: user.address }),
    (err) => {
      assert.match(err.message, /AccessControlUnauthorizedAccount\(0x/);
      assert.equal(viemRevert(err), null, "viem decoded a -32000 revert whose message is not exactly \"execution reverted\": --rpc.revert-reasons could be on by default");
      return true;
    },
  );
});

test("Error(string): the reason in the message, decoded by ethers, not by viem", async () => {
  const e = await rpcError({ to: await token.getAddress(), data: token.interface.encodeFunctionData("fail") });
  assert.equal(e.code, -32000);
  assert.equal(e.message, "execution reverted: nope");

  await assert.rejects(token.fail(), (err) => {
    assert.ok(ethers.isError(err, "CALL_EXCEPTION"), `${err.code}: ${err.message}`);
    assert.equal(err.reason, "nope");
    assert.equal(err.revert?.name, "Error");
    return true;
  });

  await assert.rejects(viem.simulateContract({ address: await token.getAddress(), abi: TOKEN.abi, functionName: "fail" }), (err) => {
    assert.match(err.message, /nope/);
    assert.equal(viemRevert(err), null, "viem decoded a -32000 revert whose message is not exactly \"execution reverted\"");
    return true;
  });
});

test("a custom error the node does not ship: the plain message, decoded by both", async () => {
  const e = await rpcError({ from: admin.address, to: await token.getAddress(), data: token.interface.encodeFunctionData("failCustom") });
  assert.equal(e.code, -32000);
  assert.equal(e.message, "execution reverted");

  await assert.rejects(token.failCustom(), (err) => err.revert?.name === "Unauthorized" && err.revert.args[0] === admin.address);
  await assert.rejects(viem.simulateContract({ address: await token.getAddress(), abi: TOKEN.abi, functionName: "failCustom", account: admin.address }), (err) => {
    const revert = viemRevert(err);
    assert.ok(revert, err.shortMessage);
    assert.equal(revert.data?.errorName, "Unauthorized");
    assert.equal(getAddress(revert.data.args[0]), admin.address);
    return true;
  });
});
