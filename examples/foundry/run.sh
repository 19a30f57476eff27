#!/usr/bin/env bash
# Foundry against the preview network: `forge script` creates a stock token
# through Base's B20 factory (MINT_ROLE and a supply cap in initCalls) and
# mints (script/StockToken.s.sol); cast reads the balance back from the node,
# and shows the node's reverts: an eth_call of mint without MINT_ROLE, and a
# `cast send` past the supply cap that cast refuses to send.
#
#   make run                          # another shell
#   bash examples/foundry/run.sh
#
# STOCKNODE_RPC (default http://127.0.0.1:8545) names the node, STOCKNODE_KEY
# the issuer's key (default: development account 5, funded by the preview
# genesis); FORGE and CAST name the binaries (default: forge and cast on
# PATH). It prints what it did and exits 1 at the first step that is wrong.
set -euo pipefail
cd "$(dirname "$0")"

export STOCKNODE_RPC="${STOCKNODE_RPC:-http://127.0.0.1:8545}"
export STOCKNODE_KEY="${STOCKNODE_KEY:-0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba}"
export ETH_RPC_URL="$STOCKNODE_RPC" # cast's node
FORGE="${FORGE:-forge}"
CAST="${CAST:-cast}"

fail() { echo "FAILED: $*" >&2; exit 1; }

echo "node $STOCKNODE_RPC: chain $("$CAST" chain-id), block $("$CAST" block-number), issuer $("$CAST" wallet address "$STOCKNODE_KEY")"

# 1. forge script: simulated on the node's latest state, then sent
# (--broadcast), every receipt awaited. run() returns the token and holder.
out=$("$FORGE" script script/StockToken.s.sol --rpc-url stocknode --broadcast 2>&1) || { echo "$out"; fail "forge script"; }
echo "1. forge script script/StockToken.s.sol --broadcast:"
sed -n '/== Return ==/,/ONCHAIN EXECUTION/p' <<<"$out" | grep -v -e '^$' -e '^=*$' -e '^## ' | sed 's/^/   /'
grep -q 'ONCHAIN EXECUTION COMPLETE & SUCCESSFUL' <<<"$out" || fail "forge did not report its transactions successful"
token=$(sed -n 's/^token: address \(0x[0-9a-fA-F]\{40\}\)$/\1/p' <<<"$out")
holder=$(sed -n 's/^holder: address \(0x[0-9a-fA-F]\{40\}\)$/\1/p' <<<"$out")
[[ -n $token && -n $holder ]] || fail "no token and holder in forge's output"
# forge records what it sent in broadcast/ (FOUNDRY_BROADCAST); cast reads the receipts.
sent="${FOUNDRY_BROADCAST:-broadcast}/StockToken.s.sol/$("$CAST" chain-id)/run-latest.json"
hashes=$(grep -o '"hash": *"0x[0-9a-f]\{64\}"' "$sent" | grep -o '0x[0-9a-f]*')
[[ $(wc -w <<<"$hashes") == 2 ]] || fail "want 2 transactions (createB20, mint) in $sent, got: $hashes"
for hash in $hashes; do
	status=$("$CAST" receipt "$hash" status)
	echo "   cast receipt $hash: status $status, block $("$CAST" receipt "$hash" blockNumber), gas used $("$CAST" receipt "$hash" gasUsed)"
	[[ $status == true || $status == 1* ]] || fail "$hash failed: status $status"
done

# 2. cast reads the token from the node.
symbol=$("$CAST" call "$token" "symbol()(string)")
balance=$("$CAST" call "$token" "balanceOf(address)(uint256)" "$holder")
supply=$("$CAST" call "$token" "totalSupply()(uint256)")
echo "2. cast call $token: symbol() $symbol, balanceOf(holder) $balance, totalSupply() $supply"
[[ $symbol == '"XFRG"' ]] || fail "symbol() is $symbol"
[[ ${balance%% *} == 1000000000 ]] || fail "balanceOf(holder) is $balance, want 1000000000 (1000 at 6 decimals)"

# 3. Reverts on the node. An eth_call of mint from the holder, who lacks
# MINT_ROLE: the node answers "execution reverted" with the custom error in
# its data, and cast decode-error decodes it.
if err=$("$CAST" call --from "$holder" "$token" "mint(address,uint256)" "$holder" 1 2>&1); then
	fail "a mint without MINT_ROLE did not revert: $err"
fi
data=$(grep -o '0x[0-9a-f]\{8,\}' <<<"$err" | tail -1)
[[ $data == $("$CAST" sig "AccessControlUnauthorizedAccount(address,bytes32)")* ]] || fail "want AccessControlUnauthorizedAccount, got: $err"
echo "3. cast call --from holder mint(holder, 1): $err"
echo "   cast decode-error: AccessControlUnauthorizedAccount($("$CAST" decode-error --sig "AccessControlUnauthorizedAccount(address,bytes32)" "$data" | paste -sd, -)); MINT_ROLE is $("$CAST" keccak MINT_ROLE)"

# A mint past the supply cap from the issuer: cast estimates the gas first,
# the estimate reverts with SupplyCapExceeded, and nothing is sent.
nonce=$("$CAST" nonce --block pending "$("$CAST" wallet address "$STOCKNODE_KEY")")
if err=$("$CAST" send --private-key "$STOCKNODE_KEY" "$token" "mint(address,uint256)" "$holder" 1000000000000 2>&1); then
	fail "a mint past the cap was sent: $err"
fi
data=$(grep -o '0x[0-9a-f]\{8,\}' <<<"$err" | tail -1)
[[ $data == $("$CAST" sig "SupplyCapExceeded(uint256,uint256)")* ]] || fail "want SupplyCapExceeded, got: $err"
echo "   cast send mint(holder, 1000000 tokens): $err"
echo "   cast decode-error: SupplyCapExceeded($("$CAST" decode-error --sig "SupplyCapExceeded(uint256,uint256)" "$data" | paste -sd, -))"
[[ $("$CAST" nonce --block pending "$("$CAST" wallet address "$STOCKNODE_KEY")") == "$nonce" ]] || fail "the refused mint was sent"
[[ $("$CAST" call "$token" "balanceOf(address)(uint256)" "$holder") == "$balance" ]] || fail "the balance changed"
echo "every step as expected"
