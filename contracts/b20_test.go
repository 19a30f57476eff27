package contracts

import (
	"bytes"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

var (
	aliceKey, _ = crypto.ToECDSA(crypto.Keccak256([]byte("stocknode contracts test alice")))
	alice       = crypto.PubkeyToAddress(aliceKey.PublicKey) // token admin in most tests
	bob         = common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	carol       = common.HexToAddress("0x00000000000000000000000000000000000ca201")
	dave        = common.HexToAddress("0x0000000000000000000000000000000000da7e00")
	activator   = common.HexToAddress("0xCB00000000000000000000000000000000000000")

	assetABI      = MustLoad(B20Asset)
	stableABI     = MustLoad(B20Stablecoin)
	factoryABI    = MustLoad(B20Factory)
	registryABI   = MustLoad(PolicyRegistry)
	activationABI = MustLoad(ActivationRegistry)
	managerABI    = MustLoad(TokenSupplyManager)
)

func abiArg(name, typ string) abi.ArgumentMarshaling {
	return abi.ArgumentMarshaling{Name: name, Type: typ}
}

func bigInt(v int64) *big.Int { return big.NewInt(v) }

// ether is v * 10^18.
func ether(v int64) *big.Int { return new(big.Int).Mul(big.NewInt(v), big.NewInt(params.Ether)) }

func salt(s string) common.Hash { return crypto.Keccak256Hash([]byte(s)) }

// call encodes a call of method on an Asset token, for initCalls and announce.
func call(t *testing.T, method string, args ...any) []byte {
	t.Helper()
	return pack(t, assetABI, method, args...)
}

// allRoles grants every role to account, as init calls.
func allRoles(t *testing.T, account common.Address) [][]byte {
	var calls [][]byte
	for _, r := range []common.Hash{MintRole, BurnRole, BurnBlockedRole, PauseRole, UnpauseRole, MetadataRole, OperatorRole} {
		calls = append(calls, call(t, "grantRole", r, account))
	}
	return calls
}

// createAsset creates an 18-decimals Asset token administered by creator
// with the given init calls and returns its address.
func createAsset(t *testing.T, c *testChain, creator common.Address, saltText string, initCalls [][]byte) common.Address {
	t.Helper()
	s := salt(saltText)
	if initCalls == nil {
		initCalls = [][]byte{}
	}
	r := c.tx(creator, FactoryAddress, factoryABI, "createB20", VariantAsset, s, AssetParams("Acme Corp", "ACME", creator, 18), initCalls)
	token := common.BytesToAddress(r.ret)
	if want := c.read(FactoryAddress, factoryABI, "getB20Address", VariantAsset, creator, s)[0].(common.Address); token != want {
		t.Fatalf("createB20 returned %s, getB20Address predicted %s", token, want)
	}
	return token
}

// newAsset creates a token with alice as admin holding every role, and
// 1000 tokens minted to alice.
func newAsset(t *testing.T) (*testChain, common.Address) {
	t.Helper()
	c := newTestChain(t)
	token := createAsset(t, c, alice, "asset", allRoles(t, alice))
	c.tx(alice, token, assetABI, "mint", alice, ether(1000))
	return c, token
}

func TestCreateB20(t *testing.T) {
	c := newTestChain(t)
	s := salt("create")
	predicted := c.read(FactoryAddress, factoryABI, "getB20Address", VariantAsset, alice, s)[0].(common.Address)
	if c.readBool(FactoryAddress, factoryABI, "isB20", predicted) || c.readBool(FactoryAddress, factoryABI, "isB20Initialized", predicted) {
		t.Fatal("isB20/isB20Initialized true before creation")
	}
	initCalls := append(allRoles(t, bob), call(t, "updateSupplyCap", ether(1_000_000)), call(t, "updateExtraMetadata", "isin", "US0378331005"))
	r := c.tx(alice, FactoryAddress, factoryABI, "createB20", VariantAsset, s, AssetParams("Acme Corp", "ACME", alice, 8), initCalls)
	token := common.BytesToAddress(r.ret)
	t.Logf("createB20 (Asset, 9 init calls): %d gas", r.gasUsed)
	if token != predicted {
		t.Fatalf("created %s, predicted %s", token, predicted)
	}
	if !c.readBool(FactoryAddress, factoryABI, "isB20", token) || !c.readBool(FactoryAddress, factoryABI, "isB20Initialized", token) {
		t.Fatal("isB20/isB20Initialized false after creation")
	}
	if n := len(c.state.GetCode(token)); n != 45 {
		t.Errorf("token code is %d bytes, want a 45-byte EIP-1167 clone", n)
	}

	created := oneEvent(t, r, FactoryAddress, factoryABI, "B20Created")
	if created["token"] != token || created["variant"] != VariantAsset || created["name"] != "Acme Corp" ||
		created["symbol"] != "ACME" || created["decimals"] != uint8(8) || len(created["variantEventParams"].([]byte)) != 0 {
		t.Errorf("B20Created = %v", created)
	}
	// B20Created comes before the init calls' events.
	if order := logOrder(r, factoryABI, assetABI); order[0] != "RoleGranted" || order[1] != "B20Created" || order[2] != "RoleGranted" {
		t.Errorf("log order %v: want the admin grant, B20Created, then the init calls", order)
	}
	// The init calls ran as the factory, which kept no role.
	grants := events(t, r, token, assetABI, "RoleGranted")
	if len(grants) != 8 || grants[1]["sender"] != FactoryAddress || grants[1]["account"] != bob {
		t.Errorf("RoleGranted events %v", grants)
	}
	for _, role := range []common.Hash{DefaultAdminRole, MintRole, OperatorRole} {
		if c.readBool(token, assetABI, "hasRole", role, FactoryAddress) {
			t.Errorf("factory holds role %s", role)
		}
	}
	for _, tc := range []struct {
		method string
		want   any
	}{
		{"name", "Acme Corp"}, {"symbol", "ACME"}, {"decimals", uint8(8)}, {"totalSupply", bigInt(0)},
		{"supplyCap", ether(1_000_000)}, {"multiplier", ether(1)}, {"contractURI", ""},
	} {
		if got := c.read(token, assetABI, tc.method)[0]; !equalValues([]any{got}, []any{tc.want}) {
			t.Errorf("%s() = %v, want %v", tc.method, got, tc.want)
		}
	}
	if !c.readBool(token, assetABI, "hasRole", DefaultAdminRole, alice) || !c.readBool(token, assetABI, "hasRole", MintRole, bob) {
		t.Error("admin or init-call role missing")
	}
	if got := c.read(token, assetABI, "extraMetadata", "isin")[0]; got != "US0378331005" {
		t.Errorf("extraMetadata(isin) = %v", got)
	}

	// After createB20 returns, the factory has no authority over the token.
	c.reverts(FactoryAddress, token, assetABI, assetABI, "AccessControlUnauthorizedAccount",
		[]any{FactoryAddress, [32]byte(MintRole)}, "mint", alice, bigInt(1))
	// The same creator and salt again: the address is taken.
	c.reverts(alice, FactoryAddress, factoryABI, factoryABI, "TokenAlreadyExists", []any{token},
		"createB20", VariantAsset, s, AssetParams("Other", "OTH", alice, 18), [][]byte{})
	// Another creator with the same salt gets another address.
	if other := createAsset(t, c, bob, "create", nil); other == token {
		t.Error("two creators got the same address")
	}
}

func TestCreateB20Reverts(t *testing.T) {
	c := newTestChain(t)
	badVersion := AssetParams("A", "A", alice, 18)
	badVersion[63] = 2 // the version word follows the tuple offset
	for _, tc := range []struct {
		name      string
		variant   uint8
		params    []byte
		initCalls [][]byte
		errs      *Artifact
		err       string
		args      []any
	}{
		{"unknown variant", 2, AssetParams("A", "A", alice, 18), nil, factoryABI, "InvalidVariant", []any{}},
		{"version 2", VariantAsset, badVersion, nil, factoryABI, "UnsupportedVersion", []any{uint8(2), uint8(0)}},
		{"decimals 5", VariantAsset, AssetParams("A", "A", alice, 5), nil, factoryABI, "InvalidDecimals", []any{uint8(5)}},
		{"decimals 19", VariantAsset, AssetParams("A", "A", alice, 19), nil, factoryABI, "InvalidDecimals", []any{uint8(19)}},
		{"empty name", VariantAsset, AssetParams("", "A", alice, 18), nil, factoryABI, "MissingRequiredField", []any{"name"}},
		{"empty symbol", VariantAsset, AssetParams("A", "", alice, 18), nil, factoryABI, "MissingRequiredField", []any{"symbol"}},
		{"empty currency", VariantStablecoin, StablecoinParams("D", "D", alice, ""), nil, factoryABI, "MissingRequiredField", []any{"currency"}},
		{"lowercase currency", VariantStablecoin, StablecoinParams("D", "D", alice, "usd"), nil, factoryABI, "InvalidCurrency", []any{"usd"}},
		{"init call reason bubbles", VariantAsset, AssetParams("A", "A", alice, 18),
			[][]byte{call(t, "updateSupplyCap", new(big.Int).Lsh(common.Big1, 200))}, assetABI, "InvalidSupplyCap",
			[]any{bigInt(0), new(big.Int).Lsh(common.Big1, 200)}},
		{"init call without reason", VariantAsset, AssetParams("A", "A", alice, 18),
			[][]byte{call(t, "mint", alice, bigInt(1)), {0xde, 0xad, 0xbe, 0xef}}, factoryABI, "InitCallFailed", []any{bigInt(1)}},
		{"mint receiver policy holds in bootstrap", VariantAsset, AssetParams("A", "A", alice, 18),
			[][]byte{call(t, "updatePolicy", MintReceiverPolicy, AlwaysBlock), call(t, "mint", alice, bigInt(1))}, assetABI, "PolicyForbids",
			[]any{[32]byte(MintReceiverPolicy), AlwaysBlock}},
		{"pause holds in bootstrap", VariantAsset, AssetParams("A", "A", alice, 18),
			[][]byte{call(t, "pause", []uint8{FeatureMint}), call(t, "mint", alice, bigInt(1))}, assetABI, "ContractPaused", []any{FeatureMint}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.initCalls == nil {
				tc.initCalls = [][]byte{}
			}
			r := c.txRaw(alice, FactoryAddress, pack(t, factoryABI, "createB20", tc.variant, salt(tc.name), tc.params, tc.initCalls))
			expectError(t, r, tc.errs, tc.err, tc.args, "createB20")
		})
	}
	// An unknown variant has no address.
	if got := c.read(FactoryAddress, factoryABI, "getB20Address", uint8(7), alice, salt("x"))[0]; got != (common.Address{}) {
		t.Errorf("getB20Address(7) = %v, want the zero address", got)
	}
}

func TestStablecoin(t *testing.T) {
	c := newTestChain(t)
	s := salt("usd")
	predicted := c.read(FactoryAddress, factoryABI, "getB20Address", VariantStablecoin, alice, s)[0].(common.Address)
	r := c.tx(alice, FactoryAddress, factoryABI, "createB20", VariantStablecoin, s, StablecoinParams("Dollar", "USDX", alice, "USD"),
		[][]byte{pack(t, stableABI, "grantRole", MintRole, alice)})
	token := common.BytesToAddress(r.ret)
	if token != predicted {
		t.Fatalf("created %s, predicted %s", token, predicted)
	}
	if asset := c.read(FactoryAddress, factoryABI, "getB20Address", VariantAsset, alice, s)[0].(common.Address); asset == token {
		t.Error("the Asset and Stablecoin variants share an address")
	}
	created := oneEvent(t, r, FactoryAddress, factoryABI, "B20Created")
	if created["variant"] != VariantStablecoin || created["decimals"] != uint8(6) {
		t.Errorf("B20Created = %v", created)
	}
	// variantEventParams = abi.encode((uint8 version, string currency)).
	want := packParams(tupleArgs(abiArg("version", "uint8"), abiArg("currency", "string")), struct {
		Version  uint8
		Currency string
	}{1, "USD"})
	if got := created["variantEventParams"].([]byte); !bytes.Equal(got, want) {
		t.Errorf("variantEventParams = %x, want %x", got, want)
	}
	if got := c.read(token, stableABI, "currency")[0]; got != "USD" {
		t.Errorf("currency() = %v", got)
	}
	if got := c.read(token, stableABI, "decimals")[0]; got != uint8(6) {
		t.Errorf("decimals() = %v", got)
	}
	c.tx(alice, token, stableABI, "mint", bob, bigInt(5_000_000))
	c.tx(bob, token, stableABI, "transfer", carol, bigInt(1_000_000))
	if got := c.readBig(token, stableABI, "balanceOf", carol); got.Int64() != 1_000_000 {
		t.Errorf("carol holds %v", got)
	}
}

func TestTransfers(t *testing.T) {
	c, token := newAsset(t)
	r := c.tx(alice, token, assetABI, "transfer", bob, ether(100))
	t.Logf("transfer to a new holder: %d gas", r.gasUsed)
	r = c.tx(alice, token, assetABI, "transfer", bob, ether(1))
	t.Logf("transfer to an existing holder: %d gas", r.gasUsed)
	if r.gasUsed > 60_000 {
		t.Errorf("a transfer costs %d gas, more than 60k", r.gasUsed)
	}
	tr := oneEvent(t, r, token, assetABI, "Transfer")
	if tr["from"] != alice || tr["to"] != bob || tr["amount"].(*big.Int).Cmp(ether(1)) != 0 {
		t.Errorf("Transfer = %v", tr)
	}

	memo := [32]byte{'i', 'n', 'v', '-', '4', '2'}
	r = c.tx(alice, token, assetABI, "transferWithMemo", carol, ether(2), memo)
	if order := logOrder(r, assetABI); !slices.Equal(order, []string{"Transfer", "Memo"}) {
		t.Errorf("transferWithMemo logs %v, want Transfer then Memo", order)
	}
	if m := oneEvent(t, r, token, assetABI, "Memo"); m["caller"] != alice || m["memo"] != memo {
		t.Errorf("Memo = %v", m)
	}

	c.tx(bob, token, assetABI, "approve", carol, ether(10))
	r = c.tx(carol, token, assetABI, "transferFromWithMemo", bob, dave, ether(4), memo)
	if order := logOrder(r, assetABI); !slices.Equal(order, []string{"Transfer", "Memo"}) {
		t.Errorf("transferFromWithMemo logs %v", order)
	}
	if got := c.readBig(token, assetABI, "allowance", bob, carol); got.Cmp(ether(6)) != 0 {
		t.Errorf("allowance after transferFrom = %v, want 6e18", got)
	}
	c.reverts(carol, token, assetABI, assetABI, "InsufficientAllowance", []any{carol, ether(6), ether(7)},
		"transferFrom", bob, dave, ether(7))
	c.reverts(dave, token, assetABI, assetABI, "InsufficientBalance", []any{dave, ether(4), ether(5)},
		"transfer", bob, ether(5))
	c.reverts(alice, token, assetABI, assetABI, "InvalidReceiver", []any{common.Address{}}, "transfer", common.Address{}, bigInt(1))
	c.reverts(alice, token, assetABI, assetABI, "InvalidReceiver", []any{token}, "transfer", token, bigInt(1))
	c.reverts(alice, token, assetABI, assetABI, "InvalidSpender", []any{common.Address{}}, "approve", common.Address{}, bigInt(1))

	// An allowance of 2^256 - 1 is not spent.
	maxUint := new(big.Int).Sub(new(big.Int).Lsh(common.Big1, 256), common.Big1)
	c.tx(alice, token, assetABI, "approve", dave, maxUint)
	c.tx(dave, token, assetABI, "transferFrom", alice, dave, ether(1))
	if got := c.readBig(token, assetABI, "allowance", alice, dave); got.Cmp(maxUint) != 0 {
		t.Errorf("infinite allowance became %v", got)
	}

	balances := map[common.Address]*big.Int{alice: ether(1000 - 101 - 2 - 1), bob: ether(101 - 4), carol: ether(2), dave: ether(5)}
	for who, want := range balances {
		if got := c.readBig(token, assetABI, "balanceOf", who); got.Cmp(want) != 0 {
			t.Errorf("balanceOf(%s) = %v, want %v", who, got, want)
		}
	}
}

func TestMintAndBurn(t *testing.T) {
	c, token := newAsset(t)
	memo := [32]byte{1}
	r := c.tx(alice, token, assetABI, "mintWithMemo", bob, ether(5), memo)
	if order := logOrder(r, assetABI); !slices.Equal(order, []string{"Transfer", "Memo"}) {
		t.Errorf("mintWithMemo logs %v", order)
	}
	if tr := oneEvent(t, r, token, assetABI, "Transfer"); tr["from"] != (common.Address{}) || tr["to"] != bob {
		t.Errorf("mint Transfer = %v", tr)
	}
	r = c.tx(alice, token, assetABI, "burn", ether(100))
	if tr := oneEvent(t, r, token, assetABI, "Transfer"); tr["from"] != alice || tr["to"] != (common.Address{}) {
		t.Errorf("burn Transfer = %v", tr)
	}
	c.tx(alice, token, assetABI, "burnWithMemo", ether(1), memo)
	if got := c.readBig(token, assetABI, "totalSupply"); got.Cmp(ether(1000+5-100-1)) != 0 {
		t.Errorf("totalSupply = %v", got)
	}
	c.reverts(alice, token, assetABI, assetABI, "InsufficientBalance", []any{alice, ether(899), ether(900)}, "burn", ether(900))
	c.reverts(alice, token, assetABI, assetABI, "InvalidReceiver", []any{common.Address{}}, "mint", common.Address{}, bigInt(1))
	c.reverts(alice, token, assetABI, assetABI, "InvalidReceiver", []any{token}, "mint", token, bigInt(1))
}

func TestRoles(t *testing.T) {
	c, token := newAsset(t)
	for _, tc := range []struct {
		role   common.Hash
		method string
		args   []any
	}{
		{MintRole, "mint", []any{bob, bigInt(1)}},
		{MintRole, "mintWithMemo", []any{bob, bigInt(1), [32]byte{}}},
		{MintRole, "batchMint", []any{[]common.Address{bob}, []*big.Int{bigInt(1)}}},
		{BurnRole, "burn", []any{bigInt(1)}},
		{BurnBlockedRole, "burnBlocked", []any{alice, bigInt(1)}},
		{PauseRole, "pause", []any{[]uint8{FeatureTransfer}}},
		{UnpauseRole, "unpause", []any{[]uint8{FeatureTransfer}}},
		{MetadataRole, "updateName", []any{"x"}},
		{MetadataRole, "updateSymbol", []any{"x"}},
		{MetadataRole, "updateContractURI", []any{"x"}},
		{MetadataRole, "updateExtraMetadata", []any{"isin", "x"}},
		{OperatorRole, "updateMultiplier", []any{ether(2)}},
		{OperatorRole, "announce", [][]any{{[][]byte{}, "id", "d", "u"}}[0]},
		{DefaultAdminRole, "updatePolicy", []any{TransferSenderPolicy, AlwaysAllow}},
		{DefaultAdminRole, "updateSupplyCap", []any{ether(1)}},
		{DefaultAdminRole, "grantRole", []any{MintRole, bob}},
		{DefaultAdminRole, "revokeRole", []any{MintRole, alice}},
		{DefaultAdminRole, "setRoleAdmin", []any{MintRole, OperatorRole}},
		{DefaultAdminRole, "renounceLastAdmin", nil},
	} {
		t.Run(tc.method, func(t *testing.T) {
			c.reverts(bob, token, assetABI, assetABI, "AccessControlUnauthorizedAccount", []any{bob, [32]byte(tc.role)}, tc.method, tc.args...)
		})
	}

	// grant, revoke, renounce.
	r := c.tx(alice, token, assetABI, "grantRole", MintRole, bob)
	if g := oneEvent(t, r, token, assetABI, "RoleGranted"); g["account"] != bob || g["sender"] != alice {
		t.Errorf("RoleGranted = %v", g)
	}
	c.tx(bob, token, assetABI, "mint", bob, bigInt(1))
	c.tx(alice, token, assetABI, "revokeRole", MintRole, bob)
	c.reverts(bob, token, assetABI, assetABI, "AccessControlUnauthorizedAccount", []any{bob, [32]byte(MintRole)}, "mint", bob, bigInt(1))
	c.reverts(alice, token, assetABI, assetABI, "AccessControlBadConfirmation", []any{}, "renounceRole", MintRole, bob)
	c.tx(alice, token, assetABI, "renounceRole", BurnRole, alice)
	if c.readBool(token, assetABI, "hasRole", BurnRole, alice) {
		t.Error("renounced role still held")
	}

	// setRoleAdmin: OPERATOR_ROLE holders administer MINT_ROLE.
	r = c.tx(alice, token, assetABI, "setRoleAdmin", MintRole, OperatorRole)
	if e := oneEvent(t, r, token, assetABI, "RoleAdminChanged"); e["newAdminRole"] != [32]byte(OperatorRole) {
		t.Errorf("RoleAdminChanged = %v", e)
	}
	c.tx(alice, token, assetABI, "grantRole", OperatorRole, carol)
	c.tx(carol, token, assetABI, "grantRole", MintRole, dave)
	if !c.readBool(token, assetABI, "hasRole", MintRole, dave) {
		t.Error("operator could not grant MINT_ROLE")
	}

	// The last default admin: neither revocable nor renounceable, only renounceLastAdmin.
	c.reverts(alice, token, assetABI, assetABI, "LastAdminCannotRenounce", []any{}, "revokeRole", DefaultAdminRole, alice)
	c.reverts(alice, token, assetABI, assetABI, "LastAdminCannotRenounce", []any{}, "renounceRole", DefaultAdminRole, alice)
	c.tx(alice, token, assetABI, "grantRole", DefaultAdminRole, bob)
	c.reverts(alice, token, assetABI, assetABI, "NotSoleAdmin", []any{}, "renounceLastAdmin")
	c.tx(bob, token, assetABI, "renounceRole", DefaultAdminRole, bob)
	r = c.tx(alice, token, assetABI, "renounceLastAdmin")
	if order := logOrder(r, assetABI); !slices.Equal(order, []string{"RoleRevoked", "LastAdminRenounced"}) {
		t.Errorf("renounceLastAdmin logs %v", order)
	}
	// No role can be granted any more, even by a role's own admin.
	c.reverts(carol, token, assetABI, assetABI, "AccessControlUnauthorizedAccount", []any{carol, [32]byte(OperatorRole)}, "grantRole", MintRole, bob)
	c.reverts(alice, token, assetABI, assetABI, "AccessControlUnauthorizedAccount", []any{alice, [32]byte(DefaultAdminRole)}, "grantRole", DefaultAdminRole, alice)
	// Existing roles keep working.
	c.tx(dave, token, assetABI, "mint", dave, bigInt(1))
}

func TestPause(t *testing.T) {
	c, token := newAsset(t)
	c.tx(alice, token, assetABI, "approve", bob, ether(10))
	c.reverts(alice, token, assetABI, assetABI, "EmptyFeatureSet", []any{}, "pause", []uint8{})
	r := c.tx(alice, token, assetABI, "pause", []uint8{FeatureTransfer, FeatureBurn, FeatureTransfer})
	if p := oneEvent(t, r, token, assetABI, "Paused"); !slices.Equal(p["features"].([]uint8), []uint8{0, 2, 0}) || p["updater"] != alice {
		t.Errorf("Paused = %v", p)
	}
	if got := c.read(token, assetABI, "pausedFeatures")[0].([]uint8); !slices.Equal(got, []uint8{FeatureTransfer, FeatureBurn}) {
		t.Errorf("pausedFeatures() = %v", got)
	}
	for _, tc := range []struct {
		feature uint8
		paused  bool
	}{{FeatureTransfer, true}, {FeatureMint, false}, {FeatureBurn, true}} {
		if got := c.readBool(token, assetABI, "isPaused", tc.feature); got != tc.paused {
			t.Errorf("isPaused(%d) = %v", tc.feature, got)
		}
	}
	for _, tc := range []struct {
		feature uint8
		method  string
		args    []any
	}{
		{FeatureTransfer, "transfer", []any{bob, bigInt(1)}},
		{FeatureTransfer, "transferWithMemo", []any{bob, bigInt(1), [32]byte{}}},
		{FeatureTransfer, "transferFrom", []any{alice, carol, bigInt(1)}},
		{FeatureBurn, "burn", []any{bigInt(1)}},
		{FeatureBurn, "burnBlocked", []any{alice, bigInt(1)}},
	} {
		from := alice
		if tc.method == "transferFrom" {
			from = bob
		}
		c.reverts(from, token, assetABI, assetABI, "ContractPaused", []any{tc.feature}, tc.method, tc.args...)
	}
	c.tx(alice, token, assetABI, "mint", bob, bigInt(1)) // minting is not paused
	c.tx(alice, token, assetABI, "pause", []uint8{FeatureMint})
	c.reverts(alice, token, assetABI, assetABI, "ContractPaused", []any{FeatureMint}, "mint", bob, bigInt(1))
	c.reverts(alice, token, assetABI, assetABI, "ContractPaused", []any{FeatureMint}, "batchMint", []common.Address{bob}, []*big.Int{bigInt(1)})

	r = c.tx(alice, token, assetABI, "unpause", []uint8{FeatureTransfer, FeatureMint})
	oneEvent(t, r, token, assetABI, "Unpaused")
	if got := c.read(token, assetABI, "pausedFeatures")[0].([]uint8); !slices.Equal(got, []uint8{FeatureBurn}) {
		t.Errorf("pausedFeatures() after unpause = %v", got)
	}
	c.tx(alice, token, assetABI, "transfer", bob, bigInt(1))
	c.tx(alice, token, assetABI, "mint", bob, bigInt(1))
}

func TestSupplyCap(t *testing.T) {
	c, token := newAsset(t)
	maxCap := new(big.Int).Sub(new(big.Int).Lsh(common.Big1, 128), common.Big1)
	if got := c.readBig(token, assetABI, "supplyCap"); got.Cmp(maxCap) != 0 {
		t.Errorf("default supplyCap = %v, want 2^128-1", got)
	}
	c.reverts(alice, token, assetABI, assetABI, "InvalidSupplyCap", []any{ether(1000), ether(999)}, "updateSupplyCap", ether(999))
	tooBig := new(big.Int).Add(maxCap, common.Big1)
	c.reverts(alice, token, assetABI, assetABI, "InvalidSupplyCap", []any{ether(1000), tooBig}, "updateSupplyCap", tooBig)
	r := c.tx(alice, token, assetABI, "updateSupplyCap", ether(1010))
	if e := oneEvent(t, r, token, assetABI, "SupplyCapUpdated"); e["oldSupplyCap"].(*big.Int).Cmp(maxCap) != 0 || e["newSupplyCap"].(*big.Int).Cmp(ether(1010)) != 0 {
		t.Errorf("SupplyCapUpdated = %v", e)
	}
	c.reverts(alice, token, assetABI, assetABI, "SupplyCapExceeded", []any{ether(1010), ether(1011)}, "mint", bob, ether(11))
	// batchMint counts cumulatively and is all or nothing.
	c.reverts(alice, token, assetABI, assetABI, "SupplyCapExceeded", []any{ether(1010), ether(1012)},
		"batchMint", []common.Address{bob, carol}, []*big.Int{ether(6), ether(6)})
	c.tx(alice, token, assetABI, "mint", bob, ether(10))
	if got := c.readBig(token, assetABI, "balanceOf", carol); got.Sign() != 0 {
		t.Error("a reverted batchMint minted")
	}
}

func TestBatchMint(t *testing.T) {
	c, token := newAsset(t)
	r := c.tx(alice, token, assetABI, "batchMint", []common.Address{bob, carol}, []*big.Int{ether(1), ether(2)})
	if n := len(events(t, r, token, assetABI, "Transfer")); n != 2 {
		t.Errorf("batchMint emitted %d Transfer events", n)
	}
	c.reverts(alice, token, assetABI, assetABI, "LengthMismatch", []any{bigInt(2), bigInt(1)},
		"batchMint", []common.Address{bob, carol}, []*big.Int{ether(1)})
	c.reverts(alice, token, assetABI, assetABI, "EmptyBatch", []any{}, "batchMint", []common.Address{}, []*big.Int{})
	c.reverts(alice, token, assetABI, assetABI, "InvalidReceiver", []any{token},
		"batchMint", []common.Address{bob, token}, []*big.Int{ether(1), ether(1)})
}

func TestMultiplier(t *testing.T) {
	c, token := newAsset(t)
	if got := c.readBig(token, assetABI, "WAD_PRECISION"); got.Cmp(ether(1)) != 0 {
		t.Errorf("WAD_PRECISION = %v", got)
	}
	r := c.tx(alice, token, assetABI, "updateMultiplier", ether(2))
	if e := oneEvent(t, r, token, assetABI, "MultiplierUpdated"); e["multiplier"].(*big.Int).Cmp(ether(2)) != 0 {
		t.Errorf("MultiplierUpdated = %v", e)
	}
	if got := c.readBig(token, assetABI, "scaledBalanceOf", alice); got.Cmp(ether(2000)) != 0 {
		t.Errorf("scaledBalanceOf = %v, want 2000e18", got)
	}
	if got := c.readBig(token, assetABI, "balanceOf", alice); got.Cmp(ether(1000)) != 0 {
		t.Errorf("balanceOf changed with the multiplier: %v", got)
	}
	c.tx(alice, token, assetABI, "updateMultiplier", big.NewInt(1_500_000_000_000_000_000)) // 1.5
	x := bigInt(12345)
	scaled := c.readBig(token, assetABI, "toScaledBalance", x)
	if scaled.Int64() != 18517 {
		t.Errorf("toScaledBalance(12345) = %v at 1.5, want 18517", scaled)
	}
	if raw := c.readBig(token, assetABI, "toRawBalance", scaled); new(big.Int).Sub(x, raw).Int64() > 1 {
		t.Errorf("round trip of %v gave %v", x, raw)
	}
	c.reverts(alice, token, assetABI, assetABI, "InvalidAmount", []any{}, "updateMultiplier", bigInt(0))
	c.reverts(alice, token, assetABI, assetABI, "InvalidAmount", []any{}, "updateMultiplier", new(big.Int).Lsh(common.Big1, 128))
}

func TestAnnounce(t *testing.T) {
	c, token := newAsset(t)
	inner := [][]byte{
		call(t, "batchMint", []common.Address{bob, carol}, []*big.Int{ether(10), ether(20)}),
		call(t, "updateMultiplier", ether(2)),
	}
	r := c.tx(alice, token, assetABI, "announce", inner, "split-2026-1", "2-for-1 split", "ipfs://split")
	want := []string{"Announcement", "Transfer", "Transfer", "MultiplierUpdated", "EndAnnouncement"}
	if order := logOrder(r, assetABI); !slices.Equal(order, want) {
		t.Errorf("announce logs %v, want %v", order, want)
	}
	if a := oneEvent(t, r, token, assetABI, "Announcement"); a["caller"] != alice || a["id"] != "split-2026-1" || a["uri"] != "ipfs://split" {
		t.Errorf("Announcement = %v", a)
	}
	if got := c.readBig(token, assetABI, "scaledBalanceOf", carol); got.Cmp(ether(40)) != 0 {
		t.Errorf("carol's scaled balance = %v, want 40e18", got)
	}
	if !c.readBool(token, assetABI, "isAnnouncementIdUsed", "split-2026-1") || c.readBool(token, assetABI, "isAnnouncementIdUsed", "other") {
		t.Error("isAnnouncementIdUsed wrong")
	}
	c.reverts(alice, token, assetABI, assetABI, "AnnouncementIdAlreadyUsed", []any{"split-2026-1"},
		"announce", [][]byte{}, "split-2026-1", "again", "")

	announceCall := call(t, "announce", [][]byte{}, "nested", "", "")
	failing := call(t, "burn", ether(5000))
	for _, tc := range []struct {
		name  string
		calls [][]byte
		err   string
		args  []any
	}{
		{"malformed", [][]byte{{0x01, 0x02}}, "InternalCallMalformed", []any{[]byte{0x01, 0x02}}},
		{"nested announce", [][]byte{announceCall}, "AnnouncementInProgress", []any{}},
		{"failing inner call", [][]byte{inner[1], failing}, "InternalCallFailed", []any{failing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.reverts(alice, token, assetABI, assetABI, tc.err, tc.args, "announce", tc.calls, tc.name, "", "")
			if c.readBool(token, assetABI, "isAnnouncementIdUsed", tc.name) {
				t.Error("a reverted announce used its id")
			}
		})
	}
	// A Panic in an inner call propagates unchanged.
	r = c.txRaw(alice, token, call(t, "announce", [][]byte{call(t, "toScaledBalance", new(big.Int).Lsh(common.Big1, 255))}, "panic", "", ""))
	if !r.failed || len(r.ret) != 36 || !bytes.Equal(r.ret[:4], panicSelector) || r.ret[35] != 0x11 {
		t.Errorf("inner overflow reverted with %s, want Panic(17)", describeRevert(r.ret))
	}
	// The inner calls keep the caller's identity: bob, an operator without MINT_ROLE, cannot batchMint.
	c.tx(alice, token, assetABI, "grantRole", OperatorRole, bob)
	c.reverts(bob, token, assetABI, assetABI, "InternalCallFailed", []any{inner[0]}, "announce", inner[:1], "bob", "", "")
}

func TestMetadata(t *testing.T) {
	c, token := newAsset(t)
	r := c.tx(alice, token, assetABI, "updateExtraMetadata", "isin", "US0378331005")
	if e := oneEvent(t, r, token, assetABI, "ExtraMetadataUpdated"); e["key"] != "isin" || e["value"] != "US0378331005" {
		t.Errorf("ExtraMetadataUpdated = %v", e)
	}
	if got := c.read(token, assetABI, "extraMetadata", "isin")[0]; got != "US0378331005" {
		t.Errorf("extraMetadata(isin) = %v", got)
	}
	c.tx(alice, token, assetABI, "updateExtraMetadata", "isin", "")
	if got := c.read(token, assetABI, "extraMetadata", "isin")[0]; got != "" {
		t.Errorf("removed entry reads %v", got)
	}
	c.reverts(alice, token, assetABI, assetABI, "InvalidMetadataKey", []any{}, "updateExtraMetadata", "", "x")

	r = c.tx(alice, token, assetABI, "updateName", "Acme Holdings")
	if order := logOrder(r, assetABI); !slices.Equal(order, []string{"NameUpdated", "EIP712DomainChanged"}) {
		t.Errorf("updateName logs %v", order)
	}
	r = c.tx(alice, token, assetABI, "updateSymbol", "ACMH")
	if e := oneEvent(t, r, token, assetABI, "SymbolUpdated"); e["newSymbol"] != "ACMH" || e["updater"] != alice {
		t.Errorf("SymbolUpdated = %v", e)
	}
	r = c.tx(alice, token, assetABI, "updateContractURI", "https://acme.example/token.json")
	oneEvent(t, r, token, assetABI, "ContractURIUpdated")
	for method, want := range map[string]string{"name": "Acme Holdings", "symbol": "ACMH", "contractURI": "https://acme.example/token.json"} {
		if got := c.read(token, assetABI, method)[0]; got != want {
			t.Errorf("%s() = %v, want %v", method, got, want)
		}
	}
}

func TestPermit(t *testing.T) {
	c, token := newAsset(t)
	domain := c.read(token, assetABI, "eip712Domain")
	if domain[0] != [1]byte{0x0f} || domain[1] != "Acme Corp" || domain[2] != "1" ||
		domain[3].(*big.Int).Int64() != testChainID || domain[4] != token {
		t.Errorf("eip712Domain() = %v", domain)
	}
	deadline := new(big.Int).SetUint64(c.time + 3600)
	sign := func(owner common.Address, value *big.Int, nonce int64) (uint8, [32]byte, [32]byte) {
		separator := c.read(token, assetABI, "DOMAIN_SEPARATOR")[0].([32]byte)
		typeHash := crypto.Keccak256Hash([]byte("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"))
		structHash := crypto.Keccak256(typeHash[:], common.LeftPadBytes(owner[:], 32), common.LeftPadBytes(bob[:], 32),
			common.LeftPadBytes(value.Bytes(), 32), common.LeftPadBytes(big.NewInt(nonce).Bytes(), 32), common.LeftPadBytes(deadline.Bytes(), 32))
		digest := crypto.Keccak256([]byte("\x19\x01"), separator[:], structHash)
		sig, err := crypto.Sign(digest, aliceKey)
		if err != nil {
			t.Fatal(err)
		}
		return sig[64] + 27, [32]byte(sig[:32]), [32]byte(sig[32:64])
	}
	v, r, s := sign(alice, ether(7), 0)
	res := c.tx(carol, token, assetABI, "permit", alice, bob, ether(7), deadline, v, r, s)
	if a := oneEvent(t, res, token, assetABI, "Approval"); a["owner"] != alice || a["spender"] != bob {
		t.Errorf("Approval = %v", a)
	}
	if got := c.readBig(token, assetABI, "allowance", alice, bob); got.Cmp(ether(7)) != 0 {
		t.Errorf("allowance after permit = %v", got)
	}
	if got := c.readBig(token, assetABI, "nonces", alice); got.Int64() != 1 {
		t.Errorf("nonce after permit = %v", got)
	}
	// Replaying the signature (nonce 0) recovers another signer.
	res = c.txRaw(carol, token, pack(t, assetABI, "permit", alice, bob, ether(7), deadline, v, r, s))
	expectError(t, res, assetABI, "InvalidSigner", nil, "replayed permit")
	v, r, s = sign(carol, ether(7), 0) // alice's key, carol claimed as owner
	res = c.txRaw(carol, token, pack(t, assetABI, "permit", carol, bob, ether(7), deadline, v, r, s))
	expectError(t, res, assetABI, "InvalidSigner", nil, "permit for another owner")
	past := new(big.Int).SetUint64(c.time - 1)
	c.reverts(carol, token, assetABI, assetABI, "ExpiredSignature", []any{past}, "permit", alice, bob, ether(7), past, v, r, s)
	// Renaming the token changes the domain, so old signatures die.
	before := c.read(token, assetABI, "DOMAIN_SEPARATOR")[0]
	c.tx(alice, token, assetABI, "updateName", "Renamed")
	if c.read(token, assetABI, "DOMAIN_SEPARATOR")[0] == before {
		t.Error("DOMAIN_SEPARATOR did not follow the name")
	}
}

func TestImplementationIsInert(t *testing.T) {
	c := newTestChain(t)
	for _, impl := range []struct {
		addr common.Address
		a    *Artifact
		init []any
	}{
		{AssetImplementationAddress, assetABI, []any{"X", "X", uint8(18), alice}},
		{StablecoinImplementationAddress, stableABI, []any{"X", "X", alice, "USD"}},
	} {
		// Nobody, not even the factory's address, can initialise an implementation.
		for _, from := range []common.Address{alice, FactoryAddress} {
			c.reverts(from, impl.addr, impl.a, impl.a, "Unauthorized", []any{}, "initialize", impl.init...)
		}
		c.reverts(alice, impl.addr, impl.a, impl.a, "AccessControlUnauthorizedAccount", []any{alice, [32]byte(MintRole)}, "mint", alice, bigInt(1))
		c.reverts(alice, impl.addr, impl.a, impl.a, "AccessControlUnauthorizedAccount", []any{alice, [32]byte(DefaultAdminRole)}, "grantRole", MintRole, alice)
	}
	// Nor can a token be initialised twice, even by the factory's address.
	token := createAsset(t, c, alice, "t", nil)
	c.reverts(FactoryAddress, token, assetABI, assetABI, "Unauthorized", []any{}, "initialize", "Y", "Y", uint8(18), bob)
	c.reverts(alice, token, assetABI, assetABI, "Unauthorized", []any{}, "initialize", "Y", "Y", uint8(18), bob)
}

func TestActivationRegistry(t *testing.T) {
	c := newTestChain(t)
	for _, tc := range []struct {
		feature common.Hash
		want    bool
	}{
		{FeatureIDB20Asset, true},
		{FeatureIDPolicyRegistry, true},
		{FeatureIDB20Stablecoin, true},
		{crypto.Keccak256Hash([]byte("base.something_else")), false},
	} {
		if got := c.readBool(ActivationRegistryAddress, activationABI, "isActivated", tc.feature); got != tc.want {
			t.Errorf("isActivated(%s) = %v, want %v", tc.feature, got, tc.want)
		}
	}
	if got := c.read(ActivationRegistryAddress, activationABI, "admin")[0]; got != activator {
		t.Errorf("admin() = %v", got)
	}
	other := crypto.Keccak256Hash([]byte("base.something_else"))
	r := c.apply(alice, ActivationRegistryAddress, pack(t, activationABI, "checkActivated", other), false)
	expectError(t, r, activationABI, "FeatureNotActivated", []any{[32]byte(other)}, "checkActivated")
	c.reverts(alice, ActivationRegistryAddress, activationABI, activationABI, "Unauthorized", []any{alice}, "deactivate", FeatureIDB20Asset)
	c.reverts(activator, ActivationRegistryAddress, activationABI, activationABI, "AlreadyActivated", []any{[32]byte(FeatureIDB20Asset)}, "activate", FeatureIDB20Asset)

	// Deactivating the Asset variant stops its creation, and only its.
	r = c.tx(activator, ActivationRegistryAddress, activationABI, "deactivate", FeatureIDB20Asset)
	oneEvent(t, r, ActivationRegistryAddress, activationABI, "FeatureDeactivated")
	c.reverts(alice, FactoryAddress, factoryABI, factoryABI, "FeatureNotActivated", []any{[32]byte(FeatureIDB20Asset)},
		"createB20", VariantAsset, salt("a"), AssetParams("A", "A", alice, 18), [][]byte{})
	c.tx(alice, FactoryAddress, factoryABI, "createB20", VariantStablecoin, salt("s"), StablecoinParams("S", "S", alice, "EUR"), [][]byte{})
	c.reverts(activator, ActivationRegistryAddress, activationABI, activationABI, "FeatureNotActivated", []any{[32]byte(FeatureIDB20Asset)}, "deactivate", FeatureIDB20Asset)
	c.tx(activator, ActivationRegistryAddress, activationABI, "activate", FeatureIDB20Asset)
	createAsset(t, c, alice, "a", nil)
	// A feature off at genesis can be switched on.
	c.tx(activator, ActivationRegistryAddress, activationABI, "activate", other)
	if !c.readBool(ActivationRegistryAddress, activationABI, "isActivated", other) {
		t.Error("activate did not activate")
	}
}

// TestGas reports what the common operations cost as transactions (intrinsic
// gas included) and fails if one grows past a generous bound.
func TestGas(t *testing.T) {
	c := newTestChain(t)
	for _, tc := range []struct {
		name  string
		run   func() *result
		bound uint64
	}{
		{"createB20, no init calls", func() *result {
			return c.tx(alice, FactoryAddress, factoryABI, "createB20", VariantAsset, salt("g1"), AssetParams("Acme Corp", "ACME", alice, 18), [][]byte{})
		}, 250_000},
		{"createB20, MINT_ROLE + supply cap + ISIN", func() *result {
			return c.tx(alice, FactoryAddress, factoryABI, "createB20", VariantAsset, salt("g2"), AssetParams("Acme Corp", "ACME", alice, 18), [][]byte{
				call(t, "grantRole", MintRole, alice),
				call(t, "updateSupplyCap", ether(1_000_000)),
				call(t, "updateExtraMetadata", "isin", "US0378331005"),
			})
		}, 400_000},
	} {
		r := tc.run()
		t.Logf("%s: %d gas", tc.name, r.gasUsed)
		if r.gasUsed > tc.bound {
			t.Errorf("%s: %d gas, over %d", tc.name, r.gasUsed, tc.bound)
		}
	}
	token := common.BytesToAddress(c.read(FactoryAddress, factoryABI, "getB20Address", VariantAsset, alice, salt("g2"))[0].(common.Address).Bytes())
	for _, tc := range []struct {
		name  string
		run   func() *result
		bound uint64
	}{
		{"mint to a new holder", func() *result { return c.tx(alice, token, assetABI, "mint", alice, ether(100)) }, 90_000},
		{"transfer to a new holder", func() *result { return c.tx(alice, token, assetABI, "transfer", bob, ether(1)) }, 70_000},
		{"transfer to a holder", func() *result { return c.tx(alice, token, assetABI, "transfer", bob, ether(1)) }, 50_000},
	} {
		r := tc.run()
		t.Logf("%s: %d gas", tc.name, r.gasUsed)
		if r.gasUsed > tc.bound {
			t.Errorf("%s: %d gas, over %d", tc.name, r.gasUsed, tc.bound)
		}
	}
	// With an allowlist on the receiver slot, a transfer also calls the registry.
	kyc := createPolicy(t, c, alice, PolicyAllowlist, bob)
	c.tx(alice, token, assetABI, "updatePolicy", TransferReceiverPolicy, kyc)
	r := c.tx(alice, token, assetABI, "transfer", bob, ether(1))
	t.Logf("transfer to a holder, receiver allowlist: %d gas", r.gasUsed)
}
