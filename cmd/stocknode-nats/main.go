// Command stocknode-nats is nats-server, with the Raft timers of the
// sequencer log's cluster (internal/natsraft): when the server that leads
// the log's stream crashes, the others elect a new leader in under a
// second, where a stock nats-server takes 4 to 9 s and blocks stop for as
// long. Every nats-server flag and configuration file works as it does
// there; make nats-server builds it as bin/stocknode-nats.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/stocknode/stocknode/internal/natsraft"
)

const exe = "stocknode-nats"

func main() {
	fs := flag.NewFlagSet(exe, flag.ExitOnError)
	fs.Usage = func() { usage(fs) }
	timers := raftFlags(fs)
	opts, err := server.ConfigureOptions(fs, os.Args[1:], server.PrintServerAndExit, fs.Usage, server.PrintTLSHelpAndDie)
	if err != nil {
		server.PrintAndDie(fmt.Sprintf("%s: %s", exe, err))
	}
	if opts.CheckConfig {
		fmt.Fprintf(os.Stderr, "%s: configuration file %s is valid (%s)\n", exe, opts.ConfigFile, opts.ConfigDigest())
		os.Exit(0)
	}
	// Before the server starts: its Raft groups read the timers unsynchronised.
	if err := natsraft.Apply(*timers); err != nil {
		server.PrintAndDie(fmt.Sprintf("%s: %s", exe, err))
	}
	server.RedactArgs(os.Args) // before expvar reads them
	s, err := server.NewServer(opts)
	if err != nil {
		server.PrintAndDie(fmt.Sprintf("%s: %s", exe, err))
	}
	s.ConfigureLogger()
	if err := server.Run(s); err != nil {
		server.PrintAndDie(err.Error())
	}
	s.WaitForShutdown()
}

// raftFlags registers the Raft timers' flags, in nats-server's style,
// beside the flags nats-server registers on fs.
func raftFlags(fs *flag.FlagSet) *natsraft.Timers {
	t := natsraft.Fast()
	fs.DurationVar(&t.Heartbeat, "raft_heartbeat", t.Heartbeat, "how often an idle Raft leader tells its followers it lives")
	fs.DurationVar(&t.MinElection, "raft_election_min", t.MinElection, "a follower calls an election between this and raft_election_max after its leader's last message")
	fs.DurationVar(&t.MaxElection, "raft_election_max", t.MaxElection, "see raft_election_min")
	fs.DurationVar(&t.MinCampaign, "raft_campaign_min", t.MinCampaign, "a follower that refused its vote to a candidate less up to date stands itself between this and raft_campaign_max later")
	fs.DurationVar(&t.MaxCampaign, "raft_campaign_max", t.MaxCampaign, "see raft_campaign_min")
	return &t
}

func usage(fs *flag.FlagSet) {
	fmt.Fprintf(os.Stderr, "Usage: %s [nats-server options]\n\n"+
		"nats-server %s, whose Raft groups elect a new leader within raft_election_max\n"+
		"of the old one's crash (a stock nats-server: 4-9 s). Options:\n\n", exe, server.VERSION)
	fs.PrintDefaults()
	os.Exit(0)
}
