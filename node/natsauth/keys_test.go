package natsauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nkeys"
)

func newPub(t *testing.T) string {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	return pub
}

func TestParseReplicas(t *testing.T) {
	a, b := newPub(t), newPub(t)
	tests := []struct {
		name, text string
		want       int
		err        string
	}{
		{"empty", "", 0, ""},
		{"two with comments", "# admitted replicas\n" + a + " eu-1\n\n" + b + " us-1 # the second\n", 2, ""},
		{"not a user key", "SUAAAA eu-1\n", 0, ":1: want a user public key"},
		{"a seed instead of a key", strings.Replace(a, "U", "S", 1) + " eu-1\n", 0, ":1: want"},
		{"bad name", a + " eu/1\n", 0, ":1: want"},
		{"three fields", a + " eu 1\n", 0, ":1: want"},
		{"key twice", a + " eu-1\n" + a + " eu-2\n", 0, ":2: " + a + " or eu-2 is listed twice"},
		{"name twice", a + " eu-1\n" + b + " eu-1\n", 0, ":2: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseReplicas("replicas", []byte(tt.text))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil || len(got) != tt.want {
				t.Fatalf("got %v, %v; want %d replicas", got, err, tt.want)
			}
		})
	}
}

// TestLoad: the first load writes the sequencer's seed and a first
// replica's, private to the node; later loads read them back unchanged.
func TestLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), DirName)
	k, created, err := Load(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 2 || len(k.Replicas) != 1 || k.Replicas[0].Name != FirstReplica {
		t.Fatalf("first load: created %v, replicas %v", created, k.Replicas)
	}
	for _, f := range created {
		fi, err := os.Stat(f)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", f, err, fi.Mode())
		}
	}
	again, created, err := Load(dir, true)
	if err != nil || len(created) != 0 {
		t.Fatalf("second load: created %v, %v", created, err)
	}
	pub1, _ := k.Sequencer.PublicKey()
	pub2, _ := again.Sequencer.PublicKey()
	if pub1 != pub2 || again.Replicas[0] != k.Replicas[0] {
		t.Errorf("second load read other keys: %s %v, want %s %v", pub2, again.Replicas, pub1, k.Replicas)
	}
	seed, err := ReadSeed(SeedFile(dir, FirstReplica))
	if err != nil {
		t.Fatal(err)
	}
	if pub, _ := seed.PublicKey(); pub != k.Replicas[0].PublicKey {
		t.Errorf("the replica's seed is %s's, the list admits %s", pub, k.Replicas[0].PublicKey)
	}
	if _, _, err := AddReplica(dir, "../escape"); err == nil {
		t.Error("a replica named ../escape was admitted")
	}
}

func TestClientOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Load(dir, true); err != nil {
		t.Fatal(err)
	}
	seed := SeedFile(dir, FirstReplica)
	tests := []struct {
		name string
		c    Client
		err  string
	}{
		{"nkey and creds", Client{NKeyFile: seed, CredsFile: seed}, "give one"},
		{"missing seed", Client{NKeyFile: filepath.Join(dir, "none.nk")}, "--nats.nkey"},
		{"not a user seed", Client{NKeyFile: filepath.Join(dir, "replicas")}, "--nats.nkey"},
		{"cert without key", Client{TLSCert: seed}, "go together"},
		{"missing CA", Client{TLSCA: filepath.Join(dir, "none.pem")}, "--nats.tls.ca"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := tt.c.Options(); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Options: %v, want an error with %q", err, tt.err)
			}
		})
	}
	_, key, err := Client{NKeyFile: seed}.Options()
	if err != nil || key == nil {
		t.Fatalf("Options with the replica's seed: %v", err)
	}
}
