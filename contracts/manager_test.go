package contracts

import (
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestTokenSupplyManager(t *testing.T) {
	c := newTestChain(t)
	m := TokenSupplyManagerAddress
	// alice creates the token and hands the desk MINT_ROLE and BURN_ROLE in the same transaction.
	token := createAsset(t, c, alice, "desk", [][]byte{
		call(t, "grantRole", MintRole, m),
		call(t, "grantRole", BurnRole, m),
	})

	// Only the token's admin appoints operators, and only on B20 tokens.
	c.reverts(bob, m, managerABI, managerABI, "NotTokenAdmin", []any{token, bob}, "setOperator", token, bob, ether(100))
	c.reverts(alice, m, managerABI, managerABI, "NotB20Token", []any{dave}, "setOperator", dave, bob, ether(100))
	c.reverts(alice, m, managerABI, managerABI, "ZeroOperator", []any{}, "setOperator", token, common.Address{}, ether(100))
	r := c.tx(alice, m, managerABI, "setOperator", token, bob, ether(100))
	if e := oneEvent(t, r, m, managerABI, "OperatorSet"); e["token"] != token || e["operator"] != bob || e["admin"] != alice || e["mintAllowance"].(*big.Int).Cmp(ether(100)) != 0 {
		t.Errorf("OperatorSet = %v", e)
	}
	if !c.readBool(m, managerABI, "isOperator", token, bob) || c.readBool(m, managerABI, "isOperator", token, carol) {
		t.Error("isOperator wrong")
	}

	// Minting spends the allowance.
	r = c.tx(bob, m, managerABI, "mint", token, carol, ether(60))
	if e := oneEvent(t, r, m, managerABI, "OperatorMinted"); e["operator"] != bob || e["to"] != carol || e["remainingAllowance"].(*big.Int).Cmp(ether(40)) != 0 {
		t.Errorf("OperatorMinted = %v", e)
	}
	if tr := oneEvent(t, r, token, assetABI, "Transfer"); tr["to"] != carol || tr["amount"].(*big.Int).Cmp(ether(60)) != 0 {
		t.Errorf("token Transfer = %v", tr)
	}
	if got := c.readBig(m, managerABI, "mintAllowance", token, bob); got.Cmp(ether(40)) != 0 {
		t.Errorf("mintAllowance = %v, want 40e18", got)
	}
	c.reverts(bob, m, managerABI, managerABI, "MintAllowanceExceeded", []any{token, bob, ether(40), ether(41)}, "mint", token, carol, ether(41))
	memo := [32]byte{'w', 'i', 'r', 'e'}
	r = c.tx(bob, m, managerABI, "mintWithMemo", token, carol, ether(40), memo)
	if order := logOrder(r, managerABI, assetABI); !slices.Equal(order, []string{"OperatorMinted", "Transfer", "Memo"}) {
		t.Errorf("mintWithMemo logs %v", order)
	}
	c.reverts(bob, m, managerABI, managerABI, "MintAllowanceExceeded", []any{token, bob, bigInt(0), bigInt(1)}, "mint", token, carol, bigInt(1))
	c.reverts(carol, m, managerABI, managerABI, "NotOperator", []any{token, carol}, "mint", token, carol, bigInt(1))

	// The admin tops the allowance up (it replaces, not adds).
	c.tx(alice, m, managerABI, "setOperator", token, bob, ether(5))
	c.tx(bob, m, managerABI, "mint", token, bob, ether(5))
	// The token's own rules still apply: a cap, then a missing role.
	c.tx(alice, token, assetABI, "updateSupplyCap", ether(105))
	c.tx(alice, m, managerABI, "setOperator", token, bob, ether(5))
	c.reverts(bob, m, managerABI, assetABI, "SupplyCapExceeded", []any{ether(105), ether(106)}, "mint", token, bob, ether(1))

	// Burning: the operator approves the desk, which pulls and burns.
	c.tx(bob, token, assetABI, "approve", m, ether(3))
	r = c.tx(bob, m, managerABI, "burn", token, ether(2))
	if e := oneEvent(t, r, m, managerABI, "OperatorBurned"); e["operator"] != bob || e["amount"].(*big.Int).Cmp(ether(2)) != 0 {
		t.Errorf("OperatorBurned = %v", e)
	}
	c.tx(bob, m, managerABI, "burnWithMemo", token, ether(1), memo)
	if got := c.readBig(token, assetABI, "totalSupply"); got.Cmp(ether(102)) != 0 {
		t.Errorf("totalSupply after burns = %v, want 102e18", got)
	}
	if got := c.readBig(token, assetABI, "balanceOf", bob); got.Cmp(ether(2)) != 0 {
		t.Errorf("bob after burns = %v, want 2e18", got)
	}
	c.reverts(bob, m, managerABI, assetABI, "InsufficientAllowance", []any{m, bigInt(0), ether(1)}, "burn", token, ether(1))
	c.reverts(carol, m, managerABI, managerABI, "NotOperator", []any{token, carol}, "burn", token, ether(1))

	// Without MINT_ROLE the desk cannot mint.
	c.tx(alice, token, assetABI, "revokeRole", MintRole, m)
	c.reverts(bob, m, managerABI, assetABI, "AccessControlUnauthorizedAccount", []any{m, [32]byte(MintRole)}, "mint", token, bob, bigInt(1))

	// Removal.
	c.reverts(bob, m, managerABI, managerABI, "NotTokenAdmin", []any{token, bob}, "removeOperator", token, bob)
	r = c.tx(alice, m, managerABI, "removeOperator", token, bob)
	if e := oneEvent(t, r, m, managerABI, "OperatorRemoved"); e["operator"] != bob || e["admin"] != alice {
		t.Errorf("OperatorRemoved = %v", e)
	}
	if c.readBool(m, managerABI, "isOperator", token, bob) || c.readBig(m, managerABI, "mintAllowance", token, bob).Sign() != 0 {
		t.Error("removed operator remains")
	}
	c.reverts(alice, m, managerABI, managerABI, "NotOperator", []any{token, bob}, "removeOperator", token, bob)

	// Operators are per token: another token's admin has no say here.
	other := createAsset(t, c, carol, "other", nil)
	c.reverts(carol, m, managerABI, managerABI, "NotTokenAdmin", []any{token, carol}, "setOperator", token, carol, ether(1))
	c.tx(carol, m, managerABI, "setOperator", other, dave, ether(1))
	if c.readBool(m, managerABI, "isOperator", token, dave) {
		t.Error("an operator of one token counts for another")
	}
}
