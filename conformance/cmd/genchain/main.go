// Command genchain writes the conformance test chain: conformance/chain/
// genesis.json (geth format), chain.rlp (geth's export format, written by
// (*core.BlockChain).Export after go-ethereum has inserted and validated
// every block) and info.json. The chain is deterministic; see
// internal/fixturechain.
//
//	go run ./conformance/cmd/genchain [-out conformance/chain]
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/stocknode/stocknode/conformance/internal/fixturechain"
)

func main() {
	out := flag.String("out", "conformance/chain", "output directory")
	flag.Parse()
	files, err := fixturechain.Files()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("wrote %s: %d blocks, chain.rlp %d bytes\n", *out, fixturechain.Blocks, len(files["chain.rlp"]))
}
