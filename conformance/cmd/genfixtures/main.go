//lint:file-ignore ST1005 C, C2 and D are the fixture chain's contract names, capitalised as in the spec's tests

// Command genfixtures writes the conformance fixtures, conformance/tests/
// {method}/{name}.io, in the execution-apis test format:
//
//	// optional comment lines
//	>> {request}
//	<< {expected response}
//
// The expected responses are computed from the test chain alone, with
// go-ethereum's consensus code (blocks, receipts and state of a core.BlockChain
// that imported conformance/chain/chain.rlp; core.ApplyMessage on a copy of a
// block's state for eth_call), and shaped by the execution-apis schemas (see
// format.go). No node's RPC code is involved.
//
// A fixture whose expected response is an error is matched by presence only
// (any error passes), unless its name ends in "-code": then the error code and,
// when the fixture has one, the error data must match too.
//
//	go run ./conformance/cmd/genfixtures [-chain conformance/chain] [-out conformance/tests]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"

	"github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

func main() {
	chainDir := flag.String("chain", "conformance/chain", "directory with genesis.json and chain.rlp")
	out := flag.String("out", "conformance/tests", "output directory (replaced)")
	flag.Parse()
	g, err := load(*chainDir)
	if err != nil {
		log.Fatal(err)
	}
	defer g.bc.Stop()
	if err := g.check(); err != nil {
		log.Fatalf("the chain is not the one the fixtures describe: %v", err)
	}
	g.cases()
	if err := g.write(*out); err != nil {
		log.Fatal(err)
	}
}

type fixture struct {
	method, name, comment string
	params                []any
	result                any // used when err == nil
	err                   obj // expected error object
}

type gen struct {
	bc       *core.BlockChain
	config   *params.ChainConfig
	genesis  *core.Genesis
	blocks   []*types.Block   // by number, 0 = genesis
	receipts []types.Receipts // by number
	signer   types.Signer
	fixtures []fixture
}

// load imports chain.rlp (geth's export format: genesis first) into a fresh
// archive core.BlockChain with the genesis of genesis.json.
func load(dir string) (*gen, error) {
	genesisJSON, err := os.ReadFile(filepath.Join(dir, "genesis.json"))
	if err != nil {
		return nil, err
	}
	genesis := new(core.Genesis)
	if err := json.Unmarshal(genesisJSON, genesis); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []*types.Block
	stream := rlp.NewStream(bufio.NewReader(f), 0)
	for {
		b := new(types.Block)
		if err := stream.Decode(b); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decode chain.rlp: %w", err)
		}
		if b.NumberU64() > 0 {
			blocks = append(blocks, b)
		}
	}
	cfg := core.DefaultConfig()
	cfg.StateScheme = rawdb.HashScheme
	cfg.ArchiveMode = true
	bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), genesis, fixturechain.Engine(), cfg)
	if err != nil {
		return nil, err
	}
	if n, err := bc.InsertChain(blocks); err != nil {
		bc.Stop()
		return nil, fmt.Errorf("import block %d: %w", blocks[n].NumberU64(), err)
	}
	g := &gen{bc: bc, config: bc.Config(), genesis: genesis, signer: types.LatestSignerForChainID(bc.Config().ChainID)}
	for n := uint64(0); n <= bc.CurrentBlock().Number.Uint64(); n++ {
		b := bc.GetBlockByNumber(n)
		g.blocks = append(g.blocks, b)
		g.receipts = append(g.receipts, bc.GetReceiptsByHash(b.Hash()))
	}
	return g, nil
}

func (g *gen) head() *types.Block { return g.blocks[len(g.blocks)-1] }

func (g *gen) sender(tx *types.Transaction) common.Address {
	from, err := types.Sender(g.signer, tx)
	if err != nil {
		panic(err)
	}
	return from
}

func createAddress(from common.Address, nonce uint64) common.Address {
	return crypto.CreateAddress(from, nonce)
}

func (g *gen) blobBaseFee(h *types.Header) *big.Int { return eip4844.CalcBlobFee(g.config, h) }

func (g *gen) tx(block, index int) *types.Transaction { return g.blocks[block].Transactions()[index] }

// state returns a copy of the state after block n.
func (g *gen) state(n uint64) *state.StateDB {
	h := g.blocks[n].Header()
	st, err := g.bc.StateAt(h.Root, h.Number, h.Time)
	if err != nil {
		panic(fmt.Sprintf("state of block %d: %v", n, err))
	}
	return st
}

// callMsg is an eth_call request.
type callMsg struct {
	from       common.Address
	to         *common.Address
	value      *big.Int
	data       []byte
	gas        uint64
	accessList types.AccessList
	override   func(*state.StateDB)
}

// call executes msg on the state after block n, in block n's context, as
// eth_call does: no fee is charged (gas price 0, base fee check off), the
// nonce and the sender's code are not checked.
func (g *gen) call(n uint64, msg callMsg) *core.ExecutionResult {
	st := g.state(n)
	if msg.override != nil {
		msg.override(st)
	}
	h := g.blocks[n].Header()
	evm := vm.NewEVM(core.NewEVMBlockContext(h, g.bc, nil), st, g.config, vm.Config{NoBaseFee: true})
	if msg.gas == 0 {
		msg.gas = 50_000_000
	}
	value := new(uint256.Int)
	if msg.value != nil {
		value = uint256.MustFromBig(msg.value)
	}
	m := &core.Message{
		From: msg.from, To: msg.to, Value: value, GasLimit: msg.gas,
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int),
		Data: msg.data, AccessList: msg.accessList,
	}
	m.SkipNonceCheck().SkipEOACheck()
	res, err := core.ApplyMessage(evm, m, core.NewGasPool(msg.gas))
	if err != nil {
		panic(fmt.Sprintf("eth_call simulation at block %d: %v", n, err))
	}
	return res
}

// check verifies that the chain holds what the fixtures are about, so that a
// change of the generator cannot silently make them meaningless.
func (g *gen) check() error {
	if len(g.blocks) != fixturechain.Blocks+1 {
		return fmt.Errorf("%d blocks, want %d", len(g.blocks)-1, fixturechain.Blocks)
	}
	if g.config.ChainID.Uint64() != fixturechain.ChainID {
		return fmt.Errorf("chain id %v", g.config.ChainID)
	}
	seenTypes := map[byte]bool{}
	for n, b := range g.blocks {
		if n > 0 && b.Time() != fixturechain.GenesisTime+uint64(n)*fixturechain.BlockTime {
			return fmt.Errorf("block %d time %d", n, b.Time())
		}
		for i, tx := range b.Transactions() {
			seenTypes[tx.Type()] = true
			if r := g.receipts[n][i]; r.TxHash != tx.Hash() {
				return fmt.Errorf("block %d receipt %d is for %s", n, i, r.TxHash)
			} else if r.EffectiveGasPrice != nil && r.EffectiveGasPrice.Cmp(effectiveGasPrice(tx, b.BaseFee())) != 0 {
				return fmt.Errorf("block %d tx %d: effective gas price %v, computed %v", n, i, r.EffectiveGasPrice, effectiveGasPrice(tx, b.BaseFee()))
			}
		}
	}
	for typ := byte(0); typ <= 4; typ++ {
		if !seenTypes[typ] {
			return fmt.Errorf("no transaction of type %d", typ)
		}
	}
	st := g.state(uint64(fixturechain.BlockLast))
	if !bytes.Equal(st.GetCode(fixturechain.C), fixturechain.RuntimeCode()) || !bytes.Equal(st.GetCode(fixturechain.C2), fixturechain.RuntimeCode()) {
		return errors.New("C or C2 does not hold the test contract")
	}
	if code := st.GetCode(fixturechain.AddrD); !bytes.Equal(code, types7702(fixturechain.C)) {
		return fmt.Errorf("D's code %x is not a delegation to C", code)
	}
	for _, f := range []struct {
		block, tx int
		status    uint64
	}{{fixturechain.BlockFailures, 0, 0}, {fixturechain.BlockFailures, 1, 0}, {fixturechain.BlockSetCode, 0, 1}, {fixturechain.BlockSetAndEmit, 0, 1}} {
		if s := g.receipts[f.block][f.tx].Status; s != f.status {
			return fmt.Errorf("block %d tx %d: status %d, want %d", f.block, f.tx, s, f.status)
		}
	}
	if len(g.blocks[fixturechain.BlockEmpty].Withdrawals()) == 0 || len(g.blocks[fixturechain.BlockEmpty].Transactions()) != 0 {
		return errors.New("block 6 should be empty with withdrawals")
	}
	return nil
}

func types7702(target common.Address) []byte { return types.AddressToDelegation(target) }

// add records a fixture expecting result.
func (g *gen) add(method, name, comment string, result any, params ...any) {
	if params == nil {
		params = []any{}
	}
	g.fixtures = append(g.fixtures, fixture{method: method, name: name, comment: comment, params: params, result: result})
}

// addErr records a fixture expecting an error. Only its presence is checked
// unless the name ends in "-code".
func (g *gen) addErr(method, name, comment string, e obj, params ...any) {
	if params == nil {
		params = []any{}
	}
	g.fixtures = append(g.fixtures, fixture{method: method, name: name, comment: comment, params: params, err: e})
}

func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// render returns the fixture files by path relative to the tests directory.
func (g *gen) render() (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, f := range g.fixtures {
		path := filepath.Join(f.method, f.name+".io")
		if _, dup := files[path]; dup {
			return nil, fmt.Errorf("duplicate fixture %s", path)
		}
		var buf bytes.Buffer
		for _, line := range strings.Split(f.comment, "\n") {
			if line != "" {
				fmt.Fprintf(&buf, "// %s\n", line)
			}
		}
		req := []byte(`{"jsonrpc":"2.0","id":1,"method":` + string(marshal(f.method)) + `,"params":` + string(marshal(f.params)) + `}`)
		var resp []byte
		if f.err != nil {
			resp = []byte(`{"jsonrpc":"2.0","id":1,"error":` + string(marshal(f.err)) + `}`)
		} else {
			resp = []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(marshal(f.result)) + `}`)
		}
		fmt.Fprintf(&buf, ">> %s\n<< %s\n", req, resp)
		files[path] = buf.Bytes()
	}
	return files, nil
}

// write replaces out with the fixtures and prints the count per method.
func (g *gen) write(out string) error {
	files, err := g.render()
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	for path, content := range files {
		full := filepath.Join(out, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, content, 0o644); err != nil {
			return err
		}
	}
	counts := map[string]int{}
	for _, f := range g.fixtures {
		counts[f.method]++
	}
	methods := make([]string, 0, len(counts))
	for m := range counts {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		fmt.Printf("%-42s %3d\n", m, counts[m])
	}
	fmt.Printf("%-42s %3d\n", "total", len(g.fixtures))
	return nil
}
