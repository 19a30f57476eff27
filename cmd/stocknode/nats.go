package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/node/lease"
	"github.com/stocknode/stocknode/node/natsauth"
	"github.com/stocknode/stocknode/node/relay"
	"github.com/stocknode/stocknode/node/seqlog"
)

// natsFlags registers the sequencer log's flags (node/seqlog).
func natsFlags(fs *flag.FlagSet, cfg *app.Config) *listenTLS {
	tlsFiles := new(listenTLS)
	natsClientFlags(fs, cfg)
	fs.StringVar(&cfg.SequencerLog.Listen, "nats.listen", "", "expose the embedded NATS JetStream server holding the sequencer's log on this address (host:port) for replicas, who must hold a key it admits (<datadir>/nats-auth); default: no listener")
	fs.IntVar(&cfg.SequencerLog.Replicas, "nats.replicas", 1, "replicas of the log's stream when it is created: 1, 3 or 5 (more than 1 needs --nats.url and a cluster that large)")
	fs.StringVar(&tlsFiles.cert, "nats.listen.tls.cert", "", "with --nats.listen: take TLS connections only, with this certificate (PEM; with --nats.listen.tls.key)")
	fs.StringVar(&tlsFiles.key, "nats.listen.tls.key", "", "with --nats.listen: the listener's certificate key (PEM)")
	fs.Func("faucet.trust-replicas", "replicas (names in the sequencer's <datadir>/nats-auth/replicas, or public keys) whose word on a relayed drip's client address the faucet's cooldowns take; any other replica's drips share one cooldown", func(s string) error {
		cfg.TrustedReplicas = append(cfg.TrustedReplicas, splitList(s)...)
		return nil
	})
	fs.BoolVar(&cfg.Follow, "follow", false, "run as a read replica of the sequencer whose log --nats.url reaches: replay its blocks and pre-confirmations, relay transactions and faucet drips to it")
	fs.DurationVar(&cfg.RelayTimeout, "follow.relay-timeout", relay.DefaultTimeout, "with --follow or --ha: how long a relayed transaction or drip waits for the sequencer's answer (a send during a failover waits for the new leader)")
	haFlags(fs, cfg)
	return tlsFiles
}

// haFlags registers a sequencer candidate's flags (app's --ha, node/lease).
func haFlags(fs *flag.FlagSet, cfg *app.Config) {
	fs.BoolVar(&cfg.HA, "ha", false, "run as a sequencer candidate on the NATS cluster --nats.url reaches: follow the log as a standby, and sequence while holding the leader lease")
	fs.StringVar(&cfg.Lease.Holder, "ha.name", "", "with --ha: this candidate's name in the lease (default: host name and process id)")
	fs.DurationVar(&cfg.Lease.TTL, "ha.lease-ttl", lease.DefaultTTL, "with --ha: how long the lease outlives its holder's last renewal; a standby takes over about this long after the leader dies")
	fs.DurationVar(&cfg.Lease.Renew, "ha.lease-renew", lease.DefaultRenew, "with --ha: how often the leader renews the lease (at most half of --ha.lease-ttl)")
}

// checkHA rejects flags a candidate cannot honour, and names it.
func checkHA(cfg *app.Config) error {
	switch {
	case !cfg.HA:
		return nil
	case len(cfg.SequencerLog.URLs) == 0:
		return errors.New("--ha needs --nats.url: the log and the lease must outlive any one candidate, so they live on a NATS cluster of their own (see the README's failover section)")
	case cfg.Follow:
		return errors.New("--ha and --follow do not go together: a candidate is a standby until it leads; a replica never leads")
	case cfg.SequencerLog.Listen != "":
		return errors.New("--ha and --nats.listen do not go together: candidates share --nats.url, and serve no NATS of their own")
	case cfg.Sequencer.BlockTime == 0:
		return errors.New("--ha needs block production (--block-time above 0)")
	case cfg.RelayTimeout <= 0:
		return fmt.Errorf("--follow.relay-timeout %v must be positive: it bounds a standby's wait for the leader's answer", cfg.RelayTimeout)
	}
	if cfg.Lease.Holder == "" {
		host, err := os.Hostname()
		if err != nil {
			host = "candidate"
		}
		cfg.Lease.Holder = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	return nil
}

// natsClientFlags registers how the node reaches a NATS server it does not
// run: --nats.url and its credentials and TLS.
func natsClientFlags(fs *flag.FlagSet, cfg *app.Config) {
	cfg.SequencerLog = seqlog.Config{Replicas: 1}
	fs.Func("nats.url", "use the external NATS cluster at these URLs (comma-separated) for the sequencer's log instead of the embedded server", func(s string) error {
		for _, u := range strings.Split(s, ",") {
			if u = strings.TrimSpace(u); u != "" {
				cfg.SequencerLog.URLs = append(cfg.SequencerLog.URLs, u)
			}
		}
		return nil
	})
	fs.StringVar(&cfg.NATS.NKeyFile, "nats.nkey", "", "with --nats.url: authenticate with this nkey seed file (a replica: the seed the sequencer wrote in its <datadir>/nats-auth)")
	fs.StringVar(&cfg.NATS.CredsFile, "nats.creds", "", "with --nats.url: authenticate with this NATS credentials file (a JWT and its seed)")
	fs.StringVar(&cfg.NATS.TLSCA, "nats.tls.ca", "", "with --nats.url: verify the NATS server's certificate with these CA certificates (PEM)")
	fs.StringVar(&cfg.NATS.TLSCert, "nats.tls.cert", "", "with --nats.url: present this client certificate (PEM; with --nats.tls.key)")
	fs.StringVar(&cfg.NATS.TLSKey, "nats.tls.key", "", "with --nats.url: the client certificate's key (PEM)")
}

// listenTLS are the embedded NATS listener's certificate files.
type listenTLS struct{ cert, key string }

// apply loads the certificate into the log's configuration.
func (f *listenTLS) apply(cfg *app.Config) error {
	if f.cert == "" && f.key == "" {
		return nil
	}
	if f.cert == "" || f.key == "" {
		return errors.New("--nats.listen.tls.cert and --nats.listen.tls.key go together")
	}
	if cfg.SequencerLog.Listen == "" {
		return errors.New("--nats.listen.tls.cert needs --nats.listen: without a listener there is nothing to secure")
	}
	cert, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return fmt.Errorf("--nats.listen.tls.cert/--nats.listen.tls.key: %w", err)
	}
	cfg.SequencerLog.ListenTLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return nil
}

// checkFollow rejects flags a read replica cannot honour, and the NATS
// client's flags without a server to use them on.
func checkFollow(cfg *app.Config) error {
	if cfg.NATS != (natsauth.Client{}) && len(cfg.SequencerLog.URLs) == 0 {
		return errors.New("--nats.nkey, --nats.creds and --nats.tls.* authenticate to --nats.url: give it (the embedded server authenticates its own connection)")
	}
	switch {
	case !cfg.Follow:
		return nil
	case len(cfg.SequencerLog.URLs) == 0:
		return errors.New("--follow needs --nats.url: the NATS server or cluster holding the sequencer's log (the sequencer's --nats.listen address, or the cluster's URLs)")
	case cfg.SequencerLog.Listen != "":
		return errors.New("--follow and --nats.listen do not go together: a replica reads the sequencer's log where --nats.url says and serves none")
	case len(cfg.TrustedReplicas) > 0:
		return errors.New("--faucet.trust-replicas is the sequencer's (with --nats.listen or --nats.url, without --follow): a replica relays drips, the sequencer decides whose word it takes")
	case cfg.RelayTimeout <= 0:
		return fmt.Errorf("--follow.relay-timeout %v must be positive: it bounds the wait for the sequencer's answer over --nats.url", cfg.RelayTimeout)
	}
	return nil
}
