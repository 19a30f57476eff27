package natsauth

import (
	"errors"
	"fmt"
	"os"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Client is how this process authenticates to a NATS server it does not
// run (--nats.url): an nkey seed (a replica's key from the sequencer's
// nats-auth directory) or a credentials file (a cluster in operator mode),
// and TLS. A user and password go in the URL, as NATS takes them.
type Client struct {
	NKeyFile  string // --nats.nkey
	CredsFile string // --nats.creds
	TLSCA     string // --nats.tls.ca: verify the server with these roots
	TLSCert   string // --nats.tls.cert and --nats.tls.key: a client certificate
	TLSKey    string
}

// Options are the connection options. key is the client's key pair (nil
// without an nkey or credentials): its public key names the client on the
// relay's subjects and its inbox, and it signs the relay's requests.
func (c Client) Options() (opts []nats.Option, key nkeys.KeyPair, err error) {
	switch {
	case c.NKeyFile != "" && c.CredsFile != "":
		return nil, nil, errors.New("--nats.nkey and --nats.creds: give one")
	case c.NKeyFile != "":
		if key, err = ReadSeed(c.NKeyFile); err != nil {
			return nil, nil, fmt.Errorf("--nats.nkey: %w", err)
		}
		opt, err := nats.NkeyOptionFromSeed(c.NKeyFile)
		if err != nil {
			return nil, nil, fmt.Errorf("--nats.nkey: %w", err)
		}
		opts = append(opts, opt)
	case c.CredsFile != "":
		data, err := os.ReadFile(c.CredsFile)
		if err != nil {
			return nil, nil, fmt.Errorf("--nats.creds: %w", err)
		}
		if key, err = nkeys.ParseDecoratedNKey(data); err != nil {
			return nil, nil, fmt.Errorf("--nats.creds %s: %w", c.CredsFile, err)
		}
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	}
	if key != nil {
		pub, _ := key.PublicKey()
		opts = append(opts, nats.CustomInboxPrefix(InboxPrefix(pub)))
	}
	tlsOpts, err := c.tlsOptions()
	if err != nil {
		return nil, nil, err
	}
	return append(opts, tlsOpts...), key, nil
}

func (c Client) tlsOptions() ([]nats.Option, error) {
	var opts []nats.Option
	if c.TLSCA != "" {
		if _, err := os.Stat(c.TLSCA); err != nil {
			return nil, fmt.Errorf("--nats.tls.ca: %w", err)
		}
		opts = append(opts, nats.RootCAs(c.TLSCA))
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return nil, errors.New("--nats.tls.cert and --nats.tls.key go together")
	}
	if c.TLSCert != "" {
		for _, f := range []string{c.TLSCert, c.TLSKey} {
			if _, err := os.Stat(f); err != nil {
				return nil, fmt.Errorf("--nats.tls.cert/--nats.tls.key: %w", err)
			}
		}
		opts = append(opts, nats.ClientCert(c.TLSCert, c.TLSKey))
	}
	return opts, nil
}
