package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedFixtures checks that conformance/tests is exactly what the
// generator computes from conformance/chain.
func TestCommittedFixtures(t *testing.T) {
	g, err := load(filepath.Join("..", "..", "chain"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.bc.Stop()
	if err := g.check(); err != nil {
		t.Fatal(err)
	}
	g.cases()
	want, err := g.render()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "tests")
	seen := map[string]bool{}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		seen[rel] = true
		got, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if w, ok := want[rel]; !ok {
			t.Errorf("conformance/tests/%s is not generated", rel)
		} else if !bytes.Equal(got, w) {
			t.Errorf("conformance/tests/%s differs from the generator's output", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range want {
		if !seen[rel] {
			t.Errorf("conformance/tests/%s is missing", rel)
		}
	}
	if t.Failed() {
		t.Log("regenerate with: go run ./conformance/cmd/genfixtures")
	}
}
