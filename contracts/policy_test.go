package contracts

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// createPolicy creates a simple policy administered by admin and returns its id.
func createPolicy(t *testing.T, c *testChain, admin common.Address, policyType uint8, members ...common.Address) uint64 {
	t.Helper()
	var r *result
	if len(members) == 0 {
		r = c.tx(admin, PolicyRegistryAddress, registryABI, "createPolicy", admin, policyType)
	} else {
		r = c.tx(admin, PolicyRegistryAddress, registryABI, "createPolicyWithAccounts", admin, policyType, members)
	}
	out, err := registryABI.ABI.Unpack("createPolicy", r.ret)
	if err != nil {
		t.Fatal(err)
	}
	return out[0].(uint64)
}

func createComposite(t *testing.T, c *testChain, admin common.Address, policyType uint8, children ...uint64) uint64 {
	t.Helper()
	r := c.tx(admin, PolicyRegistryAddress, registryABI, "createCompositePolicy", admin, policyType, children)
	return new(big.Int).SetBytes(r.ret).Uint64()
}

func authorized(c *testChain, policy uint64, account common.Address) bool {
	return c.readBool(PolicyRegistryAddress, registryABI, "isAuthorized", policy, account)
}

func TestPolicyRegistry(t *testing.T) {
	c := newTestChain(t)

	// Ids: type in the top byte, a registry-wide counter from 2 below.
	r := c.tx(alice, PolicyRegistryAddress, registryABI, "createPolicyWithAccounts", bob, PolicyAllowlist, []common.Address{carol, dave})
	allow := new(big.Int).SetBytes(r.ret).Uint64()
	if allow != 1<<56|2 {
		t.Errorf("first policy id = %#x, want 0x0100000000000002", allow)
	}
	created := oneEvent(t, r, PolicyRegistryAddress, registryABI, "PolicyCreated")
	if created["policyId"] != allow || created["creator"] != alice || created["policyType"] != PolicyAllowlist {
		t.Errorf("PolicyCreated = %v", created)
	}
	if e := oneEvent(t, r, PolicyRegistryAddress, registryABI, "PolicyAdminUpdated"); e["previousAdmin"] != (common.Address{}) || e["newAdmin"] != bob {
		t.Errorf("PolicyAdminUpdated = %v", e)
	}
	if e := oneEvent(t, r, PolicyRegistryAddress, registryABI, "AllowlistUpdated"); e["allowed"] != true || len(e["accounts"].([]common.Address)) != 2 {
		t.Errorf("AllowlistUpdated = %v", e)
	}
	block := createPolicy(t, c, bob, PolicyBlocklist, carol)
	if block != 3 {
		t.Errorf("second policy id = %#x, want 3", block)
	}

	for _, tc := range []struct {
		name    string
		policy  uint64
		account common.Address
		want    bool
	}{
		{"always-allow", AlwaysAllow, carol, true},
		{"always-block", AlwaysBlock, carol, false},
		{"allowlist member", allow, carol, true},
		{"allowlist non-member", allow, alice, false},
		{"blocklist member", block, carol, false},
		{"blocklist non-member", block, alice, true},
		{"unknown allowlist id", 1<<56 | 999, carol, false},
		{"unknown blocklist id", 999, carol, false},
		{"malformed type byte", 9<<56 | 2, carol, false},
		{"max id", ^uint64(0), carol, false},
	} {
		if got := authorized(c, tc.policy, tc.account); got != tc.want {
			t.Errorf("%s: isAuthorized = %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		policy uint64
		want   bool
	}{{AlwaysAllow, true}, {AlwaysBlock, true}, {allow, true}, {block, true}, {4, false}, {1<<56 | 3, false}, {9<<56 | 2, false}} {
		if got := c.readBool(PolicyRegistryAddress, registryABI, "policyExists", tc.policy); got != tc.want {
			t.Errorf("policyExists(%#x) = %v", tc.policy, got)
		}
	}

	// Membership updates and their gates, in the registry's order: existence, type, admin, batch.
	r = c.tx(bob, PolicyRegistryAddress, registryABI, "updateAllowlist", allow, false, []common.Address{carol})
	if e := oneEvent(t, r, PolicyRegistryAddress, registryABI, "AllowlistUpdated"); e["updater"] != bob || e["allowed"] != false {
		t.Errorf("AllowlistUpdated = %v", e)
	}
	if authorized(c, allow, carol) {
		t.Error("removed member still authorized")
	}
	c.tx(bob, PolicyRegistryAddress, registryABI, "updateBlocklist", block, true, []common.Address{alice})
	if authorized(c, block, alice) {
		t.Error("blocked account authorized")
	}
	tooMany := make([]common.Address, 65)
	for _, tc := range []struct {
		name   string
		from   common.Address
		method string
		args   []any
		err    string
		errArg []any
	}{
		{"unknown policy", bob, "updateAllowlist", []any{uint64(1<<56 | 77), true, []common.Address{}}, "PolicyNotFound", []any{}},
		{"wrong type", bob, "updateAllowlist", []any{block, true, []common.Address{}}, "IncompatiblePolicyType", []any{}},
		{"not admin", alice, "updateAllowlist", []any{allow, true, []common.Address{}}, "Unauthorized", []any{}},
		{"batch too large", bob, "updateBlocklist", []any{block, true, tooMany}, "BatchSizeTooLarge", []any{bigInt(64)}},
		{"create with 65", bob, "createPolicyWithAccounts", []any{bob, PolicyAllowlist, tooMany}, "BatchSizeTooLarge", []any{bigInt(64)}},
		{"zero admin", bob, "createPolicy", []any{common.Address{}, PolicyAllowlist}, "ZeroAddress", []any{}},
		{"composite via createPolicy", bob, "createPolicy", []any{bob, PolicyUnion}, "IncompatiblePolicyType", []any{}},
		{"built-in has no admin", bob, "updateAllowlist", []any{AlwaysBlock, true, []common.Address{bob}}, "Unauthorized", []any{}},
		{"stage on unknown", bob, "stageUpdateAdmin", []any{uint64(42), carol}, "PolicyNotFound", []any{}},
		{"stage by non-admin", carol, "stageUpdateAdmin", []any{allow, carol}, "Unauthorized", []any{}},
		{"finalize with none staged", carol, "finalizeUpdateAdmin", []any{allow}, "NoPendingAdmin", []any{}},
		{"renounce by non-admin", carol, "renounceAdmin", []any{allow}, "Unauthorized", []any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.reverts(tc.from, PolicyRegistryAddress, registryABI, registryABI, tc.err, tc.errArg, tc.method, tc.args...)
		})
	}
	// 64 accounts is the limit, not over it.
	exactly64 := make([]common.Address, 64)
	for i := range exactly64 {
		exactly64[i] = common.BigToAddress(big.NewInt(int64(i + 1)))
	}
	c.tx(bob, PolicyRegistryAddress, registryABI, "updateBlocklist", block, true, exactly64)
}

func TestPolicyAdminTransfer(t *testing.T) {
	c := newTestChain(t)
	policy := createPolicy(t, c, bob, PolicyAllowlist)
	r := c.tx(bob, PolicyRegistryAddress, registryABI, "stageUpdateAdmin", policy, carol)
	if e := oneEvent(t, r, PolicyRegistryAddress, registryABI, "PolicyAdminStaged"); e["currentAdmin"] != bob || e["pendingAdmin"] != carol {
		t.Errorf("PolicyAdminStaged = %v", e)
	}
	if got := c.read(PolicyRegistryAddress, registryABI, "pendingPolicyAdmin", policy)[0]; got != carol {
		t.Errorf("pendingPolicyAdmin = %v", got)
	}
	// Staging changes nothing yet.
	if got := c.read(PolicyRegistryAddress, registryABI, "policyAdmin", policy)[0]; got != bob {
		t.Errorf("policyAdmin before finalize = %v", got)
	}
	c.reverts(dave, PolicyRegistryAddress, registryABI, registryABI, "Unauthorized", []any{}, "finalizeUpdateAdmin", policy)
	r = c.tx(carol, PolicyRegistryAddress, registryABI, "finalizeUpdateAdmin", policy)
	if e := oneEvent(t, r, PolicyRegistryAddress, registryABI, "PolicyAdminUpdated"); e["previousAdmin"] != bob || e["newAdmin"] != carol {
		t.Errorf("PolicyAdminUpdated = %v", e)
	}
	if got := c.read(PolicyRegistryAddress, registryABI, "pendingPolicyAdmin", policy)[0]; got != (common.Address{}) {
		t.Errorf("pending admin not cleared: %v", got)
	}
	c.reverts(bob, PolicyRegistryAddress, registryABI, registryABI, "Unauthorized", []any{}, "updateAllowlist", policy, true, []common.Address{bob})
	c.tx(carol, PolicyRegistryAddress, registryABI, "updateAllowlist", policy, true, []common.Address{bob})

	// Staging the zero address clears a nomination.
	c.tx(carol, PolicyRegistryAddress, registryABI, "stageUpdateAdmin", policy, dave)
	c.tx(carol, PolicyRegistryAddress, registryABI, "stageUpdateAdmin", policy, common.Address{})
	c.reverts(dave, PolicyRegistryAddress, registryABI, registryABI, "NoPendingAdmin", []any{}, "finalizeUpdateAdmin", policy)

	// Renouncing freezes the members; queries keep working.
	c.tx(carol, PolicyRegistryAddress, registryABI, "stageUpdateAdmin", policy, dave)
	r = c.tx(carol, PolicyRegistryAddress, registryABI, "renounceAdmin", policy)
	if e := oneEvent(t, r, PolicyRegistryAddress, registryABI, "PolicyAdminUpdated"); e["newAdmin"] != (common.Address{}) {
		t.Errorf("PolicyAdminUpdated on renounce = %v", e)
	}
	c.reverts(carol, PolicyRegistryAddress, registryABI, registryABI, "Unauthorized", []any{}, "updateAllowlist", policy, true, []common.Address{carol})
	c.reverts(dave, PolicyRegistryAddress, registryABI, registryABI, "NoPendingAdmin", []any{}, "finalizeUpdateAdmin", policy)
	if !authorized(c, policy, bob) || !c.readBool(PolicyRegistryAddress, registryABI, "policyExists", policy) {
		t.Error("a renounced policy stopped answering")
	}
}

func TestCompositePolicies(t *testing.T) {
	c := newTestChain(t)
	kyc := createPolicy(t, c, bob, PolicyAllowlist, alice, carol)      // alice, carol
	sanctions := createPolicy(t, c, bob, PolicyBlocklist, carol, dave) // not carol, not dave
	union := createComposite(t, c, bob, PolicyUnion, kyc, sanctions)
	intersect := createComposite(t, c, bob, PolicyIntersect, kyc, sanctions)
	if union>>56 != uint64(PolicyUnion) || intersect>>56 != uint64(PolicyIntersect) {
		t.Errorf("composite ids %#x, %#x lack their type byte", union, intersect)
	}
	for _, tc := range []struct {
		account          common.Address
		union, intersect bool
	}{
		{alice, true, true},  // in kyc, not sanctioned
		{carol, true, false}, // in kyc, sanctioned
		{dave, false, false}, // not in kyc, sanctioned
		{bob, true, false},   // not in kyc, not sanctioned
	} {
		if got := authorized(c, union, tc.account); got != tc.union {
			t.Errorf("UNION(%s) = %v, want %v", tc.account, got, tc.union)
		}
		if got := authorized(c, intersect, tc.account); got != tc.intersect {
			t.Errorf("INTERSECT(%s) = %v, want %v", tc.account, got, tc.intersect)
		}
	}
	// Children are evaluated live.
	c.tx(bob, PolicyRegistryAddress, registryABI, "updateBlocklist", sanctions, false, []common.Address{carol})
	if !authorized(c, intersect, carol) {
		t.Error("INTERSECT did not follow its child's change")
	}
	if got := c.read(PolicyRegistryAddress, registryABI, "compositePolicyChildIds", union)[0].([]uint64); len(got) != 2 || got[0] != kyc {
		t.Errorf("compositePolicyChildIds = %v", got)
	}

	third := createPolicy(t, c, bob, PolicyAllowlist, dave)
	r := c.tx(bob, PolicyRegistryAddress, registryABI, "updateComposite", union, []uint64{kyc, sanctions, third})
	if e := oneEvent(t, r, PolicyRegistryAddress, registryABI, "CompositePolicyUpdated"); len(e["childPolicyIds"].([]uint64)) != 3 {
		t.Errorf("CompositePolicyUpdated = %v", e)
	}
	for _, tc := range []struct {
		name     string
		method   string
		args     []any
		err      string
		errArgs  []any
		fromAddr common.Address
	}{
		{"one child", "createCompositePolicy", []any{bob, PolicyUnion, []uint64{kyc}}, "ChildPoliciesOutsideOfRange", []any{}, bob},
		{"five children", "createCompositePolicy", []any{bob, PolicyUnion, []uint64{kyc, sanctions, third, kyc, sanctions}}, "ChildPoliciesOutsideOfRange", []any{}, bob},
		{"simple type", "createCompositePolicy", []any{bob, PolicyAllowlist, []uint64{kyc, sanctions}}, "IncompatiblePolicyType", []any{}, bob},
		{"zero admin", "createCompositePolicy", []any{common.Address{}, PolicyUnion, []uint64{kyc, sanctions}}, "ZeroAddress", []any{}, bob},
		{"composite child", "createCompositePolicy", []any{bob, PolicyUnion, []uint64{kyc, union}}, "InvalidChildPolicy", []any{union}, bob},
		{"built-in child", "createCompositePolicy", []any{bob, PolicyUnion, []uint64{kyc, AlwaysBlock}}, "InvalidChildPolicy", []any{AlwaysBlock}, bob},
		{"unknown child wins over invalid", "createCompositePolicy", []any{bob, PolicyUnion, []uint64{union, 1<<56 | 500}}, "PolicyNotFound", []any{}, bob},
		{"update a simple policy", "updateComposite", []any{kyc, []uint64{kyc, sanctions}}, "IncompatiblePolicyType", []any{}, bob},
		{"update by non-admin", "updateComposite", []any{union, []uint64{kyc, sanctions}}, "Unauthorized", []any{}, carol},
		{"membership of a composite", "updateAllowlist", []any{union, true, []common.Address{bob}}, "IncompatiblePolicyType", []any{}, bob},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.reverts(tc.fromAddr, PolicyRegistryAddress, registryABI, registryABI, tc.err, tc.errArgs, tc.method, tc.args...)
		})
	}
}

func TestTokenPolicies(t *testing.T) {
	c, token := newAsset(t)
	c.tx(alice, token, assetABI, "transfer", bob, ether(10))
	kyc := createPolicy(t, c, alice, PolicyAllowlist, alice, bob)

	// Receiver allowlist: carol is not on it.
	r := c.tx(alice, token, assetABI, "updatePolicy", TransferReceiverPolicy, kyc)
	if e := oneEvent(t, r, token, assetABI, "PolicyUpdated"); e["policyScope"] != [32]byte(TransferReceiverPolicy) || e["oldPolicyId"] != AlwaysAllow || e["newPolicyId"] != kyc {
		t.Errorf("PolicyUpdated = %v", e)
	}
	if got := c.read(token, assetABI, "policyId", TransferReceiverPolicy)[0]; got != kyc {
		t.Errorf("policyId(receiver) = %v", got)
	}
	c.reverts(bob, token, assetABI, assetABI, "PolicyForbids", []any{[32]byte(TransferReceiverPolicy), kyc}, "transfer", carol, ether(1))
	c.tx(bob, token, assetABI, "transfer", alice, ether(1))
	c.tx(alice, PolicyRegistryAddress, registryABI, "updateAllowlist", kyc, true, []common.Address{carol})
	c.tx(bob, token, assetABI, "transfer", carol, ether(1))

	// ALWAYS_BLOCK on the sender slot stops every transfer.
	c.tx(alice, token, assetABI, "updatePolicy", TransferSenderPolicy, AlwaysBlock)
	c.reverts(bob, token, assetABI, assetABI, "PolicyForbids", []any{[32]byte(TransferSenderPolicy), AlwaysBlock}, "transfer", alice, ether(1))
	c.tx(alice, token, assetABI, "updatePolicy", TransferSenderPolicy, AlwaysAllow)

	// Executor policy: checked against msg.sender, on transfer and transferFrom, before balances.
	executors := createPolicy(t, c, alice, PolicyAllowlist, alice)
	c.tx(alice, token, assetABI, "updatePolicy", TransferExecutorPolicy, executors)
	c.reverts(bob, token, assetABI, assetABI, "PolicyForbids", []any{[32]byte(TransferExecutorPolicy), executors}, "transfer", alice, ether(1000))
	c.tx(alice, token, assetABI, "approve", bob, ether(5))
	c.reverts(bob, token, assetABI, assetABI, "PolicyForbids", []any{[32]byte(TransferExecutorPolicy), executors}, "transferFrom", alice, carol, ether(1))
	c.tx(alice, token, assetABI, "transfer", carol, ether(1))
	c.tx(alice, token, assetABI, "updatePolicy", TransferExecutorPolicy, AlwaysAllow)

	// Mint receiver: a composite (KYC'd and not sanctioned).
	sanctions := createPolicy(t, c, alice, PolicyBlocklist, carol)
	both := createComposite(t, c, alice, PolicyIntersect, kyc, sanctions)
	c.tx(alice, token, assetABI, "updatePolicy", MintReceiverPolicy, both)
	c.reverts(alice, token, assetABI, assetABI, "PolicyForbids", []any{[32]byte(MintReceiverPolicy), both}, "mint", carol, ether(1))
	c.reverts(alice, token, assetABI, assetABI, "PolicyForbids", []any{[32]byte(MintReceiverPolicy), both}, "mint", dave, ether(1))
	c.tx(alice, token, assetABI, "mint", bob, ether(1))

	// Slot and id validation.
	unknownScope := [32]byte{0x42}
	c.reverts(alice, token, assetABI, assetABI, "UnsupportedPolicyType", []any{unknownScope}, "updatePolicy", unknownScope, AlwaysAllow)
	r = c.apply(alice, token, pack(t, assetABI, "policyId", unknownScope), false)
	expectError(t, r, assetABI, "UnsupportedPolicyType", []any{unknownScope}, "policyId")
	c.reverts(alice, token, assetABI, assetABI, "PolicyNotFound", []any{uint64(1<<56 | 4242)}, "updatePolicy", TransferSenderPolicy, uint64(1<<56|4242))

	// burnBlocked: only accounts the sender policy does not authorize.
	c.tx(alice, token, assetABI, "updatePolicy", TransferSenderPolicy, sanctions)
	c.reverts(alice, token, assetABI, assetABI, "AccountNotBlocked", []any{bob}, "burnBlocked", bob, ether(1))
	carolBalance := c.readBig(token, assetABI, "balanceOf", carol)
	r = c.tx(alice, token, assetABI, "burnBlocked", carol, carolBalance)
	if e := oneEvent(t, r, token, assetABI, "BurnedBlocked"); e["caller"] != alice || e["from"] != carol || e["amount"].(*big.Int).Cmp(carolBalance) != 0 {
		t.Errorf("BurnedBlocked = %v", e)
	}
	if tr := oneEvent(t, r, token, assetABI, "Transfer"); tr["from"] != carol || tr["to"] != (common.Address{}) {
		t.Errorf("burnBlocked Transfer = %v", tr)
	}
}

// TestBootstrapSkipsTransferPolicies: while its init calls run, the factory
// passes role checks and transfer policies, but not the mint receiver policy.
func TestBootstrapSkipsTransferPolicies(t *testing.T) {
	c := newTestChain(t)
	// The init calls configure a token whose every transfer policy is ALWAYS_BLOCK and
	// which mints to alice; minting to alice passes the (untouched) mint receiver slot.
	token := createAsset(t, c, alice, "locked", [][]byte{
		call(t, "updatePolicy", TransferSenderPolicy, AlwaysBlock),
		call(t, "updatePolicy", TransferReceiverPolicy, AlwaysBlock),
		call(t, "updatePolicy", TransferExecutorPolicy, AlwaysBlock),
		call(t, "mint", alice, ether(1)),
		call(t, "approve", alice, ether(1)),
	})
	if got := c.readBig(token, assetABI, "balanceOf", alice); got.Cmp(ether(1)) != 0 {
		t.Fatalf("bootstrap mint gave %v", got)
	}
	// After creation, the policies hold for everyone.
	c.reverts(alice, token, assetABI, assetABI, "PolicyForbids", []any{[32]byte(TransferExecutorPolicy), AlwaysBlock}, "transfer", bob, ether(1))
	if got := c.readBig(token, assetABI, "allowance", FactoryAddress, alice); got.Cmp(ether(1)) != 0 {
		t.Errorf("bootstrap approve by the factory: allowance %v", got)
	}
}
