package natsauth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ServerConfig is the authorization block of a nats-server configuration
// that gives the users of an external cluster the permissions the embedded
// server gives them (Users): the sequencer's key (its seed is the
// sequencer's --nats.nkey) and each admitted replica's. Every server of
// the cluster includes it.
func (k *Keys) ServerConfig(s Scope) (string, error) {
	type perm struct {
		Allow []string `json:"allow,omitempty"`
		Deny  []string `json:"deny,omitempty"`
	}
	type user struct {
		Nkey        string          `json:"nkey"`
		Permissions map[string]perm `json:"permissions"`
	}
	var users []user
	for _, u := range k.Users(s) {
		users = append(users, user{Nkey: u.Nkey, Permissions: map[string]perm{
			"publish":   perm(*u.Permissions.Publish),
			"subscribe": perm(*u.Permissions.Subscribe),
		}})
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false) // nats-server's parser takes no \u escapes, and ">" is a wildcard
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{"users": users}); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The users of the NATS servers that hold stream %s (stocknode nats-users).\n", s.Stream)
	pub, _ := k.Sequencer.PublicKey()
	fmt.Fprintf(&b, "# %s: the sequencer (--nats.nkey <datadir>/%s/%s)\n", pub, DirName, sequencerSeedFile)
	for _, r := range k.Replicas {
		fmt.Fprintf(&b, "# %s: replica %q\n", r.PublicKey, r.Name)
	}
	b.WriteString("authorization: ")
	b.Write(body.Bytes())
	return b.String(), nil
}
