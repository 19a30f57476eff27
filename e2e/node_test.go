package e2e

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// binary is the stocknode executable, and natsBinary the NATS server of
// the failover topology (cmd/stocknode-nats), built once by TestMain.
var binary, natsBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stocknode-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "stocknode")
	build := exec.Command("go", "build", "-o", binary, "./cmd/stocknode")
	build.Dir = ".." // the module root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build stocknode:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	natsBinary = filepath.Join(dir, "stocknode-nats")
	build = exec.Command("go", "build", "-o", natsBinary, "./cmd/stocknode-nats")
	build.Dir = ".."
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build stocknode-nats:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const chainID = 84538453

// The standard development accounts (anvil, hardhat), funded in --dev.
var devKeys = []string{
	"0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
	"0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
	"0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
	"0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
}

type account struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func devAccount(t testing.TB, i int) account {
	t.Helper()
	key, err := crypto.HexToECDSA(strings.TrimPrefix(devKeys[i], "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return account{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// freshAddress is an address nobody has used: its balances start at zero.
func freshAddress(t testing.TB) common.Address {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(key.PublicKey)
}

// node is a running `stocknode --dev` whose log the test keeps.
type node struct {
	t    testing.TB
	URL  string // http://host:port
	WS   string // ws://host:port/ws ("" with --ws=false)
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and its log is read
	err  error         // the exit status, after done

	mu  sync.Mutex
	log []string
}

var (
	listeningRe   = regexp.MustCompile(`msg="JSON-RPC listening" url=(\S+)`)
	wsListeningRe = regexp.MustCompile(`msg="WebSocket listening" url=(\S+)`)
)

// startNode runs `stocknode --dev --http.port 0 extra...`, waits until it
// listens (over HTTP and, unless extra has --ws=false, over WebSocket) and
// stops it with SIGINT when the test ends. A test that fails shows the end
// of the node's log.
func startNode(t testing.TB, extra ...string) *node {
	t.Helper()
	args := append([]string{"--dev", "--http.port", "0"}, extra...)
	n := &node{t: t, cmd: exec.Command(binary, args...), done: make(chan struct{})}
	stderr, err := n.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	// stdout lists the accounts; nobody reads it.
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url, wsURL := make(chan string, 1), make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stderr)
		scanner.Buffer(make([]byte, 64*1024), 1024*1024)
		for scanner.Scan() {
			line := scanner.Text()
			n.mu.Lock()
			n.log = append(n.log, line)
			n.mu.Unlock()
			if m := listeningRe.FindStringSubmatch(line); m != nil {
				select {
				case url <- m[1]:
				default:
				}
			}
			if m := wsListeningRe.FindStringSubmatch(line); m != nil {
				select {
				case wsURL <- m[1]:
				default:
				}
			}
		}
		n.err = n.cmd.Wait()
		close(n.done)
	}()
	t.Cleanup(n.stop)
	select {
	case n.URL = <-url:
	case <-n.done:
		t.Fatalf("stocknode %v exited (%v) before listening; log:\n%s", args, n.err, n.tail(0))
	case <-time.After(30 * time.Second):
		t.Fatalf("stocknode %v did not log its JSON-RPC URL within 30s; log:\n%s", args, n.tail(0))
	}
	if !slices.Contains(extra, "--ws=false") {
		// The node logs the WebSocket URL right after the JSON-RPC one.
		select {
		case n.WS = <-wsURL:
		case <-n.done:
			t.Fatalf("stocknode %v exited (%v) before logging its WebSocket URL; log:\n%s", args, n.err, n.tail(0))
		case <-time.After(10 * time.Second):
			t.Fatalf("stocknode %v did not log its WebSocket URL within 10s of its JSON-RPC URL; log:\n%s", args, n.tail(0))
		}
	}
	return n
}

// kill ends the node with SIGKILL, as a crash would: no clean shutdown,
// and its exit status is expected.
func (n *node) kill() {
	n.cmd.Process.Kill()
	<-n.done
	n.err = nil
}

// wait waits up to d for the node to exit by itself (a sequencer that
// must stop) and returns its exit status, which the test then owns: stop
// no longer reports it. A node still running after d fails the test.
func (n *node) wait(d time.Duration) error {
	n.t.Helper()
	select {
	case <-n.done:
	case <-time.After(d):
		n.t.Fatalf("stocknode still running %v after it was expected to exit; log:\n%s", d, n.tail(20))
	}
	err := n.err
	n.err = nil
	return err
}

// stop interrupts the node and expects a clean exit.
func (n *node) stop() {
	select {
	case <-n.done:
	default:
		n.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-n.done:
		case <-time.After(15 * time.Second):
			n.cmd.Process.Kill()
			<-n.done
			n.t.Errorf("stocknode did not stop within 15s of SIGINT; log:\n%s", n.tail(40))
			return
		}
	}
	if n.err != nil {
		n.t.Errorf("stocknode exited with %v after SIGINT; log:\n%s", n.err, n.tail(40))
	} else if n.t.Failed() {
		n.t.Logf("stocknode log (last lines):\n%s", n.tail(40))
	}
}

// tail returns the last k lines of the log (all of them for k = 0).
func (n *node) tail(k int) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	lines := n.log
	if k > 0 && len(lines) > k {
		lines = lines[len(lines)-k:]
	}
	return strings.Join(lines, "\n")
}

// dial returns an ethclient and its rpc.Client, closed at test end.
func (n *node) dial(t testing.TB) (*ethclient.Client, *rpc.Client) {
	t.Helper()
	rc, err := rpc.Dial(n.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	return ethclient.NewClient(rc), rc
}

// dialWS returns an ethclient and its rpc.Client connected over the node's
// WebSocket endpoint, closed at test end.
func (n *node) dialWS(t testing.TB) (*ethclient.Client, *rpc.Client) {
	t.Helper()
	if n.WS == "" {
		t.Fatal("the node serves no WebSocket endpoint")
	}
	rc, err := rpc.Dial(n.WS)
	if err != nil {
		t.Fatalf("rpc.Dial(%s): %v", n.WS, err)
	}
	t.Cleanup(rc.Close)
	return ethclient.NewClient(rc), rc
}

// testContext is a context for one test's RPC calls.
func testContext(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// artifact is contracts/Token.json, written by contracts/compile.mjs.
type artifact struct {
	ABI      json.RawMessage `json:"abi"`
	Bytecode string          `json:"bytecode"`
}

var (
	tokenOnce sync.Once
	tokenABI  abi.ABI
	tokenCode []byte
	tokenErr  error
)

// loadToken reads the committed Token artifact.
func loadToken(t testing.TB) (abi.ABI, []byte) {
	t.Helper()
	tokenOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join("contracts", "Token.json"))
		if err != nil {
			tokenErr = err
			return
		}
		var a artifact
		if tokenErr = json.Unmarshal(raw, &a); tokenErr != nil {
			return
		}
		if tokenABI, tokenErr = abi.JSON(strings.NewReader(string(a.ABI))); tokenErr != nil {
			return
		}
		tokenCode, tokenErr = hexutil.Decode(a.Bytecode)
	})
	if tokenErr != nil {
		t.Fatalf("contracts/Token.json: %v", tokenErr)
	}
	return tokenABI, tokenCode
}

// pack ABI-encodes a call of method.
func pack(t testing.TB, a abi.ABI, method string, args ...any) []byte {
	t.Helper()
	data, err := a.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// signTx builds, signs and returns an EIP-1559 transaction from `from` with
// the node's own suggestions: pending nonce, tip, base fee and gas estimate.
func signTx(t testing.TB, ctx context.Context, c *ethclient.Client, from account, to *common.Address, value *big.Int, data []byte) *types.Transaction {
	t.Helper()
	nonce, err := c.PendingNonceAt(ctx, from.addr)
	if err != nil {
		t.Fatalf("PendingNonceAt: %v", err)
	}
	return signTxNonce(t, ctx, c, from, nonce, to, value, data)
}

// signTxNonce is signTx with the nonce given, for senders that count their
// own nonces.
func signTxNonce(t testing.TB, ctx context.Context, c *ethclient.Client, from account, nonce uint64, to *common.Address, value *big.Int, data []byte) *types.Transaction {
	t.Helper()
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatalf("SuggestGasTipCap: %v", err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatalf("HeaderByNumber(nil): %v", err)
	}
	gas, err := c.EstimateGas(ctx, ethCallMsg(from.addr, to, value, data))
	if err != nil {
		t.Fatalf("EstimateGas: %v", err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx := types.NewTx(&types.DynamicFeeTx{
		ChainID:   big.NewInt(chainID),
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: feeCap,
		Gas:       gas,
		To:        to,
		Value:     value,
		Data:      data,
	})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(big.NewInt(chainID)), from.key)
	if err != nil {
		t.Fatal(err)
	}
	return signed
}

// send signs and sends a transaction and returns it.
func send(t testing.TB, ctx context.Context, c *ethclient.Client, from account, to *common.Address, value *big.Int, data []byte) *types.Transaction {
	t.Helper()
	tx := signTx(t, ctx, c, from, to, value, data)
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatalf("SendTransaction: %v", err)
	}
	return tx
}

// waitSealed polls until tx is in a sealed block (`latest` has reached the
// receipt's block) and returns the receipt as the sealed block reports it.
// The head is read first: a receipt read after it whose block is at most
// that head is the sealed block's, not a pre-confirmed one.
func waitSealed(t testing.TB, ctx context.Context, c *ethclient.Client, hash common.Hash) *types.Receipt {
	t.Helper()
	for {
		head, herr := c.BlockNumber(ctx)
		if herr != nil {
			t.Fatalf("BlockNumber: %v", herr)
		}
		receipt, err := c.TransactionReceipt(ctx, hash)
		if err == nil {
			if receipt.BlockNumber.Uint64() <= head {
				return receipt
			}
		} else if !errors.Is(err, ethereum.NotFound) {
			t.Fatalf("TransactionReceipt(%s): %v", hash, err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("transaction %s not sealed: %v", hash, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// deployToken deploys Token(name, symbol, supply) from `from` and waits until
// it is sealed.
func deployToken(t testing.TB, ctx context.Context, c *ethclient.Client, from account, supply *big.Int) common.Address {
	t.Helper()
	a, code := loadToken(t)
	ctor, err := a.Pack("", "Stock Token", "STK", supply)
	if err != nil {
		t.Fatal(err)
	}
	tx := send(t, ctx, c, from, nil, new(big.Int), append(append([]byte{}, code...), ctor...))
	receipt := waitSealed(t, ctx, c, tx.Hash())
	if receipt.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("deploy failed: %+v", receipt)
	}
	if want := crypto.CreateAddress(from.addr, tx.Nonce()); receipt.ContractAddress != want {
		t.Fatalf("contractAddress %s, want %s", receipt.ContractAddress, want)
	}
	return receipt.ContractAddress
}

// poll calls f every 20 ms until it returns true or the context ends.
func poll(t testing.TB, ctx context.Context, what string, f func() bool) {
	t.Helper()
	for !f() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ethCallMsg is a call message.
func ethCallMsg(from common.Address, to *common.Address, value *big.Int, data []byte) ethereum.CallMsg {
	return ethereum.CallMsg{From: from, To: to, Value: value, Data: data}
}
