package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
)

// traceChain is a chain the trace workloads run on. Every server that
// can import a chain in geth's export format (stocknode and geth; anvil
// cannot) imports it into a fresh datadir and serves it without growing
// it, so each traces the same blocks from the same states.
type traceChain struct {
	name    string // the workloads' tag in the tables
	genesis string // geth-format genesis.json
	blocks  string // the chain in geth's export format
	// hashes is the file of the chain's transaction hashes (loadtest
	// -hashes); numbers are the blocks that hold transactions.
	hashes  string
	numbers []uint64
}

// traceWorkloads run on every trace chain, tagged by its name.
var traceWorkloads = []string{"traceTransaction", "traceBlockByNumber"}

// traceChains names the trace chains: transfers (block 1 holds the
// -transfers token transfers of tracetxs.go, 256 by default: a heavy
// block, where tracing a transaction replays the ones before it) and
// execution-apis (the execution-apis test chain: 249 transactions of
// every type over 54 blocks, under every fork from Homestead's rules to
// Osaka's).
var traceChains = []string{"transfers", "execution-apis"}

// prepareTraceChains writes the transfers chain into the work directory
// and lists both chains' transactions and blocks.
func prepareTraceChains(cfg *config) error {
	txs, err := traceTxs(cfg.transfers)
	if err != nil {
		return err
	}
	transfers := traceChain{name: "transfers", genesis: filepath.Join(cfg.work, "genesis.json"),
		blocks: filepath.Join(cfg.work, "transfers.rlp")}
	if err := writeTraceChain(transfers.blocks, txs); err != nil {
		return err
	}
	apis := traceChain{name: "execution-apis", genesis: filepath.Join(cfg.chains, "execution-apis", "genesis.json"),
		blocks: filepath.Join(cfg.chains, "execution-apis", "chain.rlp")}
	for _, c := range []*traceChain{&transfers, &apis} {
		c.hashes = filepath.Join(cfg.work, c.name+"-hashes.txt")
		if c.numbers, err = listChain(c.blocks, c.hashes); err != nil {
			return fmt.Errorf("trace chain %s: %w", c.name, err)
		}
		cfg.traceChains = append(cfg.traceChains, *c)
	}
	return nil
}

// listChain writes the hashes of the transactions in the chain file
// blocks to hashes, one per line, and returns the numbers of the blocks
// that hold any.
func listChain(blocks, hashes string) ([]uint64, error) {
	f, err := os.Open(blocks)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	stream := rlp.NewStream(f, 0)
	var numbers []uint64
	var lines strings.Builder
	for {
		var b types.Block
		if err := stream.Decode(&b); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", blocks, err)
		}
		if b.Transactions().Len() > 0 {
			numbers = append(numbers, b.NumberU64())
		}
		for _, tx := range b.Transactions() {
			lines.WriteString(tx.Hash().Hex() + "\n")
		}
	}
	if len(numbers) == 0 {
		return nil, fmt.Errorf("%s holds no transactions", blocks)
	}
	return numbers, os.WriteFile(hashes, []byte(lines.String()), 0o644)
}

// importsChains reports whether a server can serve the trace chains.
func importsChains(name string) bool {
	return name == "stocknode" || name == baseName || name == "geth"
}

// measureTraceChains runs the trace workloads on each trace chain for
// one server, a fresh server per chain, and records a digest of its
// callTracer traces of every block for the cross-check (checkTraces).
func measureTraceChains(ctx context.Context, cfg config, sr *serverResult, round int) {
	for _, chain := range cfg.traceChains {
		if ctx.Err() != nil {
			return
		}
		if err := measureTraceChain(ctx, cfg, sr, chain, round); err != nil {
			logf("%s: trace chain %s: %v", sr.Name, chain.name, err)
			sr.Checks["trace "+chain.name] = err.Error()
		}
	}
}

func measureTraceChain(ctx context.Context, cfg config, sr *serverResult, chain traceChain, round int) error {
	data := filepath.Join(cfg.work, sr.Name+"-"+chain.name)
	defer os.RemoveAll(data)
	srv, err := startChainServer(ctx, cfg, sr.Name, chain, data)
	if err != nil {
		return err
	}
	defer srv.stop()
	digest, err := traceDigest(srv.url, chain.numbers)
	if err != nil {
		return err
	}
	if sr.TraceDigests == nil {
		sr.TraceDigests = map[string]string{}
	}
	sr.TraceDigests[chain.name] = digest
	for _, method := range traceWorkloads {
		extra := []string{"-hashes", chain.hashes}
		if method == "traceBlockByNumber" {
			extra = []string{"-blocks", joinNumbers(chain.numbers)}
		}
		r, err := measureRead(ctx, cfg, srv.url, srv.cmd.Process.Pid, method, "latest", extra...)
		if err != nil {
			return err
		}
		r.Tag, r.Round = chain.name, round
		logf("%s %s %s: %.0f req/s, p99 %v, errors %d", sr.Name, method, chain.name, r.RPS, r.P99, r.Errors)
		sr.Reads = append(sr.Reads, *r)
	}
	return nil
}

// startChainServer starts name on data, a fresh datadir that imports
// chain, serving it without adding blocks: stocknode with --block-time 0,
// geth without a consensus client.
func startChainServer(ctx context.Context, cfg config, name string, chain traceChain, data string) (*server, error) {
	if err := os.RemoveAll(data); err != nil {
		return nil, err
	}
	spec := serverSpec{name: name, label: name + " " + chain.name, datadir: data}
	switch name {
	case "geth":
		common := gethCommon(data)
		for _, step := range [][]string{{"init", chain.genesis}, {"import", chain.blocks}} {
			if out, err := exec.CommandContext(ctx, cfg.geth, append(append([]string{}, common...), step...)...).CombinedOutput(); err != nil {
				return nil, fmt.Errorf("geth %s: %v: %s", strings.Join(step, " "), err, out)
			}
		}
	default:
		bin := cfg.stocknode
		if name == baseName {
			bin = cfg.baseline
		}
		imp := exec.CommandContext(ctx, bin, "import", "--datadir", data, "--genesis", chain.genesis, chain.blocks)
		if out, err := imp.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s import: %v: %s", name, err, out)
		}
		spec.args = []string{"--datadir", data, "--block-time", "0"}
	}
	return startSpec(ctx, cfg, spec)
}

func joinNumbers(numbers []uint64) string {
	parts := make([]string, len(numbers))
	for i, n := range numbers {
		parts[i] = strconv.FormatUint(n, 10)
	}
	return strings.Join(parts, ",")
}

// traceDigest traces every block in numbers with callTracer and returns
// a digest of the answers, each decoded and encoded again so that the
// order of an object's members does not count.
func traceDigest(url string, numbers []uint64) (string, error) {
	h := sha256.New()
	for _, n := range numbers {
		var raw json.RawMessage
		if err := rpcCall(url, &raw, "debug_traceBlockByNumber", hexutil.Uint64(n), map[string]any{"tracer": "callTracer"}); err != nil {
			return "", fmt.Errorf("debug_traceBlockByNumber %d: %w", n, err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("debug_traceBlockByNumber %d: %w", n, err)
		}
		canonical, _ := json.Marshal(v)
		h.Write(canonical)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkTraces compares each server's trace digests with geth's: every
// callTracer trace of every traced block must be geth's.
func checkTraces(res *results) {
	geth := res.server("geth")
	if geth == nil {
		return
	}
	for i := range res.Servers {
		s := &res.Servers[i]
		if s.Name == "geth" {
			continue
		}
		for chain, digest := range s.TraceDigests {
			want, ok := geth.TraceDigests[chain]
			switch {
			case !ok:
				continue
			case digest != want:
				s.Checks["trace "+chain] = "callTracer traces of the chain's blocks differ from geth's"
			default:
				s.Checks["trace "+chain] = "ok"
			}
		}
	}
}
