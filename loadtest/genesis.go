package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/loadtest/workload"
)

type genesisConfig struct {
	Accounts int
	Out      string
}

func genesisFlags(fs *flag.FlagSet) *genesisConfig {
	c := new(genesisConfig)
	fs.IntVar(&c.Accounts, "accounts", 1_000_000, "funded accounts: the development accounts, then the 1,024 the workloads read, then derived ones")
	fs.StringVar(&c.Out, "out", "genesis.json", "where to write the geth-format genesis")
	return c
}

// runGenesis writes a genesis for the state-size measurement: the preview
// network's forks, the development accounts, the workload's 1,024 read
// addresses and then enough further accounts (derived, 1 wei each) to
// reach -accounts.
func runGenesis(cfg genesisConfig) (string, error) {
	f, err := os.Create(cfg.Out)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, `{"config":{"chainId":84538453,"homesteadBlock":0,"eip150Block":0,"eip155Block":0,"eip158Block":0,`+
		`"byzantiumBlock":0,"constantinopleBlock":0,"petersburgBlock":0,"istanbulBlock":0,"muirGlacierBlock":0,"berlinBlock":0,`+
		`"londonBlock":0,"arrowGlacierBlock":0,"grayGlacierBlock":0,"mergeNetsplitBlock":0,"terminalTotalDifficulty":0,`+
		`"shanghaiTime":0,"cancunTime":0,"pragueTime":0,"blobSchedule":{"cancun":{"target":3,"max":6,"baseFeeUpdateFraction":3338477},`+
		`"prague":{"target":6,"max":9,"baseFeeUpdateFraction":5007716}}},`+
		`"difficulty":"0x0","gasLimit":"0x1c9c380","baseFeePerGas":"0x3b9aca00","timestamp":"0x0","alloc":{`)
	n := 0
	add := func(addr common.Address, balance string) {
		if n > 0 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, `"%s":{"balance":"%s"}`, addr.Hex(), balance)
		n++
	}
	for i := 0; i < len(workload.DevKeys); i++ {
		add(workload.DevAddress(i), "0x21e19e0c9bab2400000")
	}
	for i := 0; i < workload.NumAddresses && n < cfg.Accounts; i++ {
		add(workload.Address(i), "0xde0b6b3a7640000")
	}
	var seed [8]byte
	for i := 0; n < cfg.Accounts; i++ {
		binary.BigEndian.PutUint64(seed[:], uint64(i))
		add(common.BytesToAddress(crypto.Keccak256(seed[:])), "0x1")
	}
	fmt.Fprint(w, "}}\n")
	if err := w.Flush(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s: %d funded accounts", cfg.Out, n), nil
}
