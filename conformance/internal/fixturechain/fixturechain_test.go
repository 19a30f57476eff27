package fixturechain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedChain checks that conformance/chain is what the generator
// makes, so that the committed files and the fixtures computed from them
// cannot drift from the code that documents them.
func TestCommittedChain(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", "chain", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("conformance/chain/%s differs from the generator's output: run go run ./conformance/cmd/genchain and go run ./conformance/cmd/genfixtures", name)
		}
	}
}
