// Compiles LoadToken.sol with the solc-js that e2e/ pins (e2e/node_modules,
// `cd e2e && npm ci`) and writes LoadToken.json: {contractName, compiler,
// abi, deployedBytecode}. LoadToken.json is committed, so `make compare`
// never needs node to compile:
//
//	node compare/token/compile.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../../e2e/package.json"));
const solc = require("solc");
const source = readFileSync(join(here, "LoadToken.sol"), "utf8");

const input = {
  language: "Solidity",
  sources: { "LoadToken.sol": { content: source } },
  settings: {
    evmVersion: "cancun",
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { "*": { "*": ["abi", "evm.deployedBytecode.object", "storageLayout"] } },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input)));
for (const e of output.errors ?? []) console.error(e.formattedMessage);
if ((output.errors ?? []).some((e) => e.severity === "error")) process.exit(1);

const c = output.contracts["LoadToken.sol"].LoadToken;
const slot = (label) => c.storageLayout.storage.find((s) => s.label === label)?.slot;
if (slot("balanceOf") !== "0" || slot("totalSupply") !== "1") {
  console.error("unexpected storage layout", JSON.stringify(c.storageLayout.storage));
  process.exit(1);
}
const artifact = {
  contractName: "LoadToken",
  compiler: `solc-js ${solc.version()}`,
  abi: c.abi,
  deployedBytecode: "0x" + c.evm.deployedBytecode.object,
};
writeFileSync(join(here, "LoadToken.json"), JSON.stringify(artifact, null, 2) + "\n");
console.log(`wrote LoadToken.json (${solc.version()}, ${c.evm.deployedBytecode.object.length / 2} bytes of runtime code)`);
