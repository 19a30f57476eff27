package e2e

import (
	"context"
	"math/big"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/contracts"
)

// castFails runs cast, which must fail, and returns what it printed.
func castFails(t *testing.T, cast string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, cast, args...).CombinedOutput()
	if err == nil {
		t.Fatalf("cast %s succeeded: %s", strings.Join(args, " "), out)
	}
	t.Logf("cast %s:\n%s", strings.Join(args, " "), truncate(string(out), 600))
	return strings.TrimSpace(string(out))
}

// Foundry's `cast call` on a reverting call prints the node's error message
// and data. With --rpc.revert-reasons the message says why, as anvil's
// does: a B20 token's custom error by name with its arguments (mint without
// MINT_ROLE), a reason string, a panic's meaning; the code stays -32000 and
// the data the revert bytes. Without it (the default) the message is
// exactly "execution reverted", and cast shows the data only.
func TestCastRevertReasons(t *testing.T) {
	cast := castBinary(t)
	admin, user := devAccount(t, 1), devAccount(t, 2)
	salt := common.HexToHash("0x5e1f")
	factory := contracts.MustLoad(contracts.B20Factory).ABI
	create, err := factory.Pack("createB20", contracts.VariantAsset, salt, contracts.AssetParams("Revert Co", "RVT", admin.addr, 18), [][]byte{})
	if err != nil {
		t.Fatal(err)
	}
	token := contracts.B20Address(contracts.VariantAsset, admin.addr, salt)
	unauthorized := "AccessControlUnauthorizedAccount(" + user.addr.Hex() + ", " + contracts.MintRole.Hex() + ")"
	id := contracts.MustLoad(contracts.B20Asset).ABI.Errors["AccessControlUnauthorizedAccount"].ID
	selector := hexutil.Encode(id[:4])

	// Runtime code that reverts with Error("nope"), and one that divides
	// by zero as solc's checked arithmetic does (Panic(0x12)).
	reverter := "0x00000000000000000000000000000000000000cd"
	nope := "0x7f08c379a0" + strings.Repeat("0", 56) + "600052" + "6020600452" + "6004602452" + "7f6e6f7065" + strings.Repeat("0", 56) + "604452" + "60646000fd"
	divByZero := "0x7f4e487b71" + strings.Repeat("0", 56) + "600052" + "6012600452" + "60246000fd"

	for _, tt := range []struct {
		flags   []string
		reasons bool
	}{{[]string{"--rpc.revert-reasons"}, true}, {nil, false}} {
		name := "default"
		if tt.reasons {
			name = "revert-reasons"
		}
		t.Run(name, func(t *testing.T) {
			n := startNode(t, tt.flags...)
			c, _ := n.dial(t)
			ctx := testContext(t, 2*time.Minute)
			to := contracts.FactoryAddress
			if r := waitSealed(t, ctx, c, send(t, ctx, c, admin, &to, new(big.Int), create).Hash()); r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("createB20: status %d", r.Status)
			}
			rpcURL := []string{"--rpc-url", n.URL}

			out := castFails(t, cast, append([]string{"call", token.Hex(), "mint(address,uint256)", user.addr.Hex(), "1", "--from", user.addr.Hex()}, rpcURL...)...)
			if !strings.Contains(out, "error code -32000") || !strings.Contains(out, `data: "`+selector) {
				t.Errorf("mint without the role: cast printed %q, want code -32000 and the data", out)
			}
			if got := strings.Contains(out, "execution reverted: "+unauthorized+","); got != tt.reasons {
				t.Errorf("mint without the role: cast printed %q; the custom error named: %v, want %v", out, got, tt.reasons)
			}
			if !tt.reasons && !strings.Contains(out, "execution reverted, data:") {
				t.Errorf("mint without the role: cast printed %q, want the message exactly \"execution reverted\"", out)
			}

			out = castFails(t, cast, append([]string{"call", reverter, "--override-code", reverter + ":" + nope}, rpcURL...)...)
			if got := strings.Contains(out, "execution reverted: nope,"); got != tt.reasons {
				t.Errorf("Error(\"nope\"): cast printed %q; the reason given: %v, want %v", out, got, tt.reasons)
			}
			out = castFails(t, cast, append([]string{"call", reverter, "--override-code", reverter + ":" + divByZero}, rpcURL...)...)
			if got := strings.Contains(out, "execution reverted: panic: division or modulo by zero (0x12),"); got != tt.reasons {
				t.Errorf("Panic(0x12): cast printed %q; the meaning given: %v, want %v", out, got, tt.reasons)
			}
			out = castFails(t, cast, append([]string{"estimate", token.Hex(), "mint(address,uint256)", user.addr.Hex(), "1", "--from", user.addr.Hex()}, rpcURL...)...)
			if got := strings.Contains(out, "execution reverted: "+unauthorized); got != tt.reasons {
				t.Errorf("estimate of mint without the role: cast printed %q; the custom error named: %v, want %v", out, got, tt.reasons)
			}
		})
	}
}
