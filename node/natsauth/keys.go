package natsauth

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nats-io/nkeys"
)

// DirName is the directory of a datadir that holds the keys.
const DirName = "nats-auth"

// FirstReplica is the name of the replica whose seed a server that listens
// writes at its first start.
const FirstReplica = "replica"

const (
	sequencerSeedFile = "sequencer.nk"
	replicasFile      = "replicas"
)

// Dir is where the node of dataDir keeps its keys.
func Dir(dataDir string) string { return filepath.Join(dataDir, DirName) }

// SeedFile is the seed of the replica named name in dir.
func SeedFile(dir, name string) string { return filepath.Join(dir, name+".nk") }

// Replica is a replica the server admits.
type Replica struct {
	Name      string
	PublicKey string
}

// Keys are the sequencer's key and the replicas the server admits.
type Keys struct {
	// Sequencer authenticates the sequencer's own connection and signs
	// the log's entries.
	Sequencer nkeys.KeyPair
	Replicas  []Replica
}

// Load reads the keys in dir. It creates the sequencer's seed when there is
// none and, with firstReplica, a replica named FirstReplica when no replica
// is admitted yet: a sequencer that starts listening is ready for its first
// replica without a step of its own. created lists the files written.
func Load(dir string, firstReplica bool) (k *Keys, created []string, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("nats keys: %w", err)
	}
	k = new(Keys)
	seqFile := filepath.Join(dir, sequencerSeedFile)
	var made bool
	if k.Sequencer, made, err = loadOrCreateSeed(seqFile); err != nil {
		return nil, nil, err
	}
	if made {
		created = append(created, seqFile)
	}
	if k.Replicas, err = readReplicas(filepath.Join(dir, replicasFile)); err != nil {
		return nil, nil, err
	}
	if firstReplica && len(k.Replicas) == 0 {
		seed, pub, err := AddReplica(dir, FirstReplica)
		if err != nil {
			return nil, nil, err
		}
		k.Replicas = append(k.Replicas, Replica{Name: FirstReplica, PublicKey: pub})
		created = append(created, seed)
	}
	return k, created, nil
}

// Replica returns the admitted replica whose public key is pub.
func (k *Keys) Replica(pub string) (Replica, bool) {
	for _, r := range k.Replicas {
		if r.PublicKey == pub {
			return r, true
		}
	}
	return Replica{}, false
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// AddReplica creates a seed for a new replica named name in dir and admits
// its public key; a running sequencer admits it within seconds (see
// Watch). It returns the seed's file, which the replica's operator passes
// to --nats.nkey.
func AddReplica(dir, name string) (seedFile, publicKey string, err error) {
	if !nameRe.MatchString(name) {
		return "", "", fmt.Errorf("replica name %q: use 1 to 64 letters, digits, '-' or '_'", name)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("nats keys: %w", err)
	}
	list := filepath.Join(dir, replicasFile)
	known, err := readReplicas(list)
	if err != nil {
		return "", "", err
	}
	for _, r := range known {
		if r.Name == name {
			return "", "", fmt.Errorf("replica %q is admitted already (its seed: %s); choose another name", name, SeedFile(dir, name))
		}
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return "", "", fmt.Errorf("nats keys: %w", err)
	}
	seedFile = SeedFile(dir, name)
	if err := writeSeed(seedFile, kp); err != nil {
		return "", "", err
	}
	pub, _ := kp.PublicKey()
	if err := appendLine(list, pub+" "+name+"\n"); err != nil {
		return "", "", err
	}
	return seedFile, pub, nil
}

// ReadSeed reads an nkey user seed file (as nats-server's tools write it:
// the seed, possibly among other lines).
func ReadSeed(file string) (nkeys.KeyPair, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("nkey seed: %w", err)
	}
	kp, err := nkeys.ParseDecoratedNKey(data)
	if err != nil {
		return nil, fmt.Errorf("nkey seed %s: %w", file, err)
	}
	if pub, err := kp.PublicKey(); err != nil || !nkeys.IsValidPublicUserKey(pub) {
		return nil, fmt.Errorf("nkey seed %s: not a user seed (it starts with SU)", file)
	}
	return kp, nil
}

func loadOrCreateSeed(file string) (kp nkeys.KeyPair, created bool, err error) {
	kp, err = ReadSeed(file)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return kp, false, err
	}
	if kp, err = nkeys.CreateUser(); err != nil {
		return nil, false, fmt.Errorf("nats keys: %w", err)
	}
	if err := writeSeed(file, kp); err != nil {
		return nil, false, err
	}
	return kp, true, nil
}

func writeSeed(file string, kp nkeys.KeyPair) error {
	seed, err := kp.Seed()
	if err != nil {
		return fmt.Errorf("nats keys: %w", err)
	}
	return writeSynced(file, os.O_CREATE|os.O_EXCL, append(seed, '\n'))
}

func appendLine(file, line string) error {
	return writeSynced(file, os.O_CREATE|os.O_APPEND, []byte(line))
}

// writeSynced writes data to file, opened with flag (and O_WRONLY), and
// syncs it: a key the node reported is on disk.
func writeSynced(file string, flag int, data []byte) error {
	f, err := os.OpenFile(file, os.O_WRONLY|flag, 0o600)
	if err != nil {
		return fmt.Errorf("nats keys: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("nats keys: write %s: %w", file, err)
	}
	return nil
}

// readReplicas reads the admitted replicas: a public key and a name a line,
// '#' starting a comment. A missing file admits none.
func readReplicas(file string) ([]Replica, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("nats keys: %w", err)
	}
	return parseReplicas(file, data)
}

func parseReplicas(file string, data []byte) ([]Replica, error) {
	var out []Replica
	keys, names := make(map[string]bool), make(map[string]bool)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 || !nkeys.IsValidPublicUserKey(fields[0]) || !nameRe.MatchString(fields[1]) {
			return nil, fmt.Errorf("%s:%d: want a user public key (U...) and a name (letters, digits, '-', '_')", file, line)
		}
		if keys[fields[0]] || names[fields[1]] {
			return nil, fmt.Errorf("%s:%d: %s or %s is listed twice", file, line, fields[0], fields[1])
		}
		keys[fields[0]], names[fields[1]] = true, true
		out = append(out, Replica{PublicKey: fields[0], Name: fields[1]})
	}
	return out, sc.Err()
}
