// Package contracts holds stocknode's B20 protocol contracts: Solidity
// versions of Base's tokenized-stock precompiles (the B20 factory, the
// PolicyRegistry, the ActivationRegistry, the Asset and Stablecoin token
// variants), ABI-compatible with base/base-std, plus stocknode's own
// TokenSupplyManager. The chain places them in its genesis at Base's
// addresses (Predeploys), so an app written against Base's B20 precompiles
// runs here unchanged.
//
// The compiled artifacts (artifacts/*.json) are committed and embedded; `make
// contracts` rebuilds them from src/*.sol. See README.md.
package contracts

import (
	"embed"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

//go:embed artifacts/*.json
var artifactFiles embed.FS

// The fixed addresses of the protocol's contracts.
var (
	// ActivationRegistryAddress is Base's ActivationRegistry.
	ActivationRegistryAddress = common.HexToAddress("0x8453000000000000000000000000000000000001")
	// PolicyRegistryAddress is Base's PolicyRegistry.
	PolicyRegistryAddress = common.HexToAddress("0x8453000000000000000000000000000000000002")
	// FactoryAddress is Base's B20 factory.
	FactoryAddress = common.HexToAddress("0xB20f000000000000000000000000000000000000")
	// TokenSupplyManagerAddress is stocknode's TokenSupplyManager (not Base's).
	TokenSupplyManagerAddress = common.HexToAddress("0x8453000000000000000000000000000000000100")
	// AssetImplementationAddress holds the B20Asset code that every Asset
	// token, an EIP-1167 clone, delegates to (stocknode's, not Base's).
	AssetImplementationAddress = common.HexToAddress("0x8453000000000000000000000000000000000101")
	// StablecoinImplementationAddress holds the B20Stablecoin code that every
	// Stablecoin token delegates to (stocknode's, not Base's).
	StablecoinImplementationAddress = common.HexToAddress("0x8453000000000000000000000000000000000102")
)

// Artifact names, as Load takes them.
const (
	ActivationRegistry = "ActivationRegistry"
	PolicyRegistry     = "PolicyRegistry"
	B20Factory         = "B20Factory"
	B20Asset           = "B20Asset"
	B20Stablecoin      = "B20Stablecoin"
	TokenSupplyManager = "TokenSupplyManager"
)

// Token variants, the createB20 and getB20Address discriminator.
const (
	VariantAsset      uint8 = 0
	VariantStablecoin uint8 = 1
)

// Pausable features of a token (IB20.PausableFeature).
const (
	FeatureTransfer uint8 = 0
	FeatureMint     uint8 = 1
	FeatureBurn     uint8 = 2
)

// Policy types (IPolicyRegistry.PolicyType); also the top byte of a policy id.
const (
	PolicyBlocklist uint8 = 0
	PolicyAllowlist uint8 = 1
	PolicyUnion     uint8 = 2
	PolicyIntersect uint8 = 3
)

// The built-in policies.
const (
	// AlwaysAllow authorizes everyone (an empty blocklist); it is every policy
	// slot's initial value.
	AlwaysAllow uint64 = 0
	// AlwaysBlock authorizes no one (an empty allowlist).
	AlwaysBlock uint64 = 1<<56 | 1
)

// Role hashes: keccak256 of the role's name, DEFAULT_ADMIN_ROLE being zero.
var (
	DefaultAdminRole = common.Hash{}
	MintRole         = crypto.Keccak256Hash([]byte("MINT_ROLE"))
	BurnRole         = crypto.Keccak256Hash([]byte("BURN_ROLE"))
	BurnBlockedRole  = crypto.Keccak256Hash([]byte("BURN_BLOCKED_ROLE"))
	PauseRole        = crypto.Keccak256Hash([]byte("PAUSE_ROLE"))
	UnpauseRole      = crypto.Keccak256Hash([]byte("UNPAUSE_ROLE"))
	MetadataRole     = crypto.Keccak256Hash([]byte("METADATA_ROLE"))
	OperatorRole     = crypto.Keccak256Hash([]byte("OPERATOR_ROLE"))
)

// Policy scopes, the names of a token's policy slots: keccak256 of the name.
var (
	TransferSenderPolicy   = crypto.Keccak256Hash([]byte("TRANSFER_SENDER_POLICY"))
	TransferReceiverPolicy = crypto.Keccak256Hash([]byte("TRANSFER_RECEIVER_POLICY"))
	TransferExecutorPolicy = crypto.Keccak256Hash([]byte("TRANSFER_EXECUTOR_POLICY"))
	MintReceiverPolicy     = crypto.Keccak256Hash([]byte("MINT_RECEIVER_POLICY"))
)

// ActivationRegistry feature ids: keccak256 of the feature's name. All three
// are activated at genesis.
var (
	FeatureIDB20Asset       = crypto.Keccak256Hash([]byte("base.b20_asset"))
	FeatureIDB20Stablecoin  = crypto.Keccak256Hash([]byte("base.b20_stablecoin"))
	FeatureIDPolicyRegistry = crypto.Keccak256Hash([]byte("base.policy_registry"))
)

// Artifact is one compiled contract.
type Artifact struct {
	Name             string
	ABI              abi.ABI
	Bytecode         []byte // init code
	DeployedBytecode []byte // runtime code
}

var (
	loadOnce  sync.Once
	loaded    map[string]*Artifact
	errLoaded error
)

// Load returns the artifact of contract name (ActivationRegistry,
// PolicyRegistry, B20Factory, B20Asset, B20Stablecoin, TokenSupplyManager).
// Artifacts are parsed once and shared: do not modify them.
func Load(name string) (*Artifact, error) {
	loadOnce.Do(func() { loaded, errLoaded = loadAll() })
	if errLoaded != nil {
		return nil, errLoaded
	}
	a, ok := loaded[name]
	if !ok {
		return nil, fmt.Errorf("contracts: no artifact %q", name)
	}
	return a, nil
}

// MustLoad is Load that panics on error.
func MustLoad(name string) *Artifact {
	a, err := Load(name)
	if err != nil {
		panic(err)
	}
	return a
}

// Predeploys returns the genesis accounts of the protocol: the runtime code
// of the ActivationRegistry, PolicyRegistry, B20 factory, TokenSupplyManager
// and the two token implementations at their fixed addresses, each with nonce
// 1, no balance and no storage (all-zero storage is their initial state).
func Predeploys() types.GenesisAlloc {
	alloc := types.GenesisAlloc{}
	for _, p := range []struct {
		addr common.Address
		name string
	}{
		{ActivationRegistryAddress, ActivationRegistry},
		{PolicyRegistryAddress, PolicyRegistry},
		{FactoryAddress, B20Factory},
		{TokenSupplyManagerAddress, TokenSupplyManager},
		{AssetImplementationAddress, B20Asset},
		{StablecoinImplementationAddress, B20Stablecoin},
	} {
		alloc[p.addr] = types.Account{
			Code:    common.CopyBytes(MustLoad(p.name).DeployedBytecode),
			Nonce:   1,
			Balance: new(big.Int),
		}
	}
	return alloc
}

// AssetParams encodes the Asset variant's createB20 params:
// abi.encode(B20AssetCreateParams{version: 1, name, symbol, initialAdmin, decimals}).
// An admin of the zero address creates a token without admin; decimals must
// be in [6, 18].
func AssetParams(name, symbol string, admin common.Address, decimals uint8) []byte {
	return packParams(assetParamsArgs, struct {
		Version      uint8
		Name         string
		Symbol       string
		InitialAdmin common.Address
		Decimals     uint8
	}{1, name, symbol, admin, decimals})
}

// StablecoinParams encodes the Stablecoin variant's createB20 params:
// abi.encode(B20StablecoinCreateParams{version: 1, name, symbol, initialAdmin, currency}).
// The currency must be uppercase A-Z; the token has 6 decimals.
func StablecoinParams(name, symbol string, admin common.Address, currency string) []byte {
	return packParams(stablecoinParamsArgs, struct {
		Version      uint8
		Name         string
		Symbol       string
		InitialAdmin common.Address
		Currency     string
	}{1, name, symbol, admin, currency})
}

var (
	assetParamsArgs = tupleArgs(
		abi.ArgumentMarshaling{Name: "version", Type: "uint8"},
		abi.ArgumentMarshaling{Name: "name", Type: "string"},
		abi.ArgumentMarshaling{Name: "symbol", Type: "string"},
		abi.ArgumentMarshaling{Name: "initialAdmin", Type: "address"},
		abi.ArgumentMarshaling{Name: "decimals", Type: "uint8"},
	)
	stablecoinParamsArgs = tupleArgs(
		abi.ArgumentMarshaling{Name: "version", Type: "uint8"},
		abi.ArgumentMarshaling{Name: "name", Type: "string"},
		abi.ArgumentMarshaling{Name: "symbol", Type: "string"},
		abi.ArgumentMarshaling{Name: "initialAdmin", Type: "address"},
		abi.ArgumentMarshaling{Name: "currency", Type: "string"},
	)
)

func tupleArgs(components ...abi.ArgumentMarshaling) abi.Arguments {
	t, err := abi.NewType("tuple", "", components)
	if err != nil {
		panic(err)
	}
	return abi.Arguments{{Name: "params", Type: t}}
}

func packParams(args abi.Arguments, v any) []byte {
	b, err := args.Pack(v)
	if err != nil {
		panic(fmt.Sprintf("contracts: encoding params: %v", err)) // the types are fixed above
	}
	return b
}

// artifactJSON is the file format compile.mjs writes.
type artifactJSON struct {
	ContractName     string          `json:"contractName"`
	Compiler         string          `json:"compiler"`
	ABI              json.RawMessage `json:"abi"`
	Bytecode         string          `json:"bytecode"`
	DeployedBytecode string          `json:"deployedBytecode"`
}

func loadAll() (map[string]*Artifact, error) {
	entries, err := artifactFiles.ReadDir("artifacts")
	if err != nil {
		return nil, err
	}
	out := map[string]*Artifact{}
	for _, e := range entries {
		raw, err := artifactFiles.ReadFile("artifacts/" + e.Name())
		if err != nil {
			return nil, err
		}
		a, err := parseArtifact(raw)
		if err != nil {
			return nil, fmt.Errorf("contracts: %s: %w", e.Name(), err)
		}
		if want := strings.TrimSuffix(e.Name(), ".json"); a.Name != want {
			return nil, fmt.Errorf("contracts: %s holds contract %q", e.Name(), a.Name)
		}
		out[a.Name] = a
	}
	return out, nil
}

func parseArtifact(raw []byte) (*Artifact, error) {
	var f artifactJSON
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	parsed, err := abi.JSON(strings.NewReader(string(f.ABI)))
	if err != nil {
		return nil, fmt.Errorf("abi: %w", err)
	}
	code, err := hexutil.Decode(f.Bytecode)
	if err != nil {
		return nil, fmt.Errorf("bytecode: %w", err)
	}
	runtime, err := hexutil.Decode(f.DeployedBytecode)
	if err != nil {
		return nil, fmt.Errorf("deployedBytecode: %w", err)
	}
	return &Artifact{Name: f.ContractName, ABI: parsed, Bytecode: code, DeployedBytecode: runtime}, nil
}
