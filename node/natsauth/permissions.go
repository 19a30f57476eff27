package natsauth

import (
	"github.com/nats-io/nats-server/v2/server"
)

// Scope names what the roles act on: the log's stream and the relay's
// subjects.
type Scope struct {
	// Stream is the log's JetStream stream.
	Stream string
	// RelayRequests is the subject (a wildcard) on which the replica with
	// public key id sends its requests to the sequencer.
	RelayRequests func(id string) string
}

// InboxPrefix is the prefix of the subjects on which the client with
// public key id receives replies; a replica must connect with it
// (nats.CustomInboxPrefix), as it may subscribe nowhere else.
func InboxPrefix(id string) string { return "_INBOX." + id }

// Users are the embedded server's users: the sequencer and the admitted
// replicas. Nobody else can connect.
func (k *Keys) Users(s Scope) []*server.NkeyUser {
	pub, _ := k.Sequencer.PublicKey()
	users := []*server.NkeyUser{{Nkey: pub, Permissions: sequencerPermissions()}}
	for _, r := range k.Replicas {
		users = append(users, &server.NkeyUser{Nkey: r.PublicKey, Permissions: replicaPermissions(s, r.PublicKey)})
	}
	return users
}

// sequencerPermissions let the sequencer do everything but lose the log:
// deleting or purging its stream, deleting an entry (the stream denies the
// last two as well; this holds for a stream created elsewhere too).
func sequencerPermissions() *server.Permissions {
	return &server.Permissions{
		Publish: &server.SubjectPermission{
			Allow: []string{">"},
			Deny:  []string{"$JS.API.STREAM.DELETE.>", "$JS.API.STREAM.PURGE.>", "$JS.API.STREAM.MSG.DELETE.>"},
		},
		Subscribe: &server.SubjectPermission{Allow: []string{">"}},
	}
}

// replicaPermissions are a replica's: what seqlog's reader and the relay's
// client send, and its own inbox. JetStream's API is reached by publishing
// requests, so its management calls (stream create, update, delete, purge,
// message delete) are closed by not being listed.
func replicaPermissions(s Scope, id string) *server.Permissions {
	api := "$JS.API."
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			api + "INFO",
			api + "STREAM.INFO." + s.Stream,
			api + "STREAM.MSG.GET." + s.Stream,
			api + "DIRECT.GET." + s.Stream,
			api + "DIRECT.GET." + s.Stream + ".>",
			api + "CONSUMER.CREATE." + s.Stream,
			api + "CONSUMER.CREATE." + s.Stream + ".>",
			api + "CONSUMER.INFO." + s.Stream + ".*",
			api + "CONSUMER.DELETE." + s.Stream + ".*",
			api + "CONSUMER.MSG.NEXT." + s.Stream + ".*",
			s.RelayRequests(id),
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{InboxPrefix(id) + ".>"}},
	}
}

// AdminUser may do everything; a repair (stocknode log-repair) connects
// with it to an embedded server no other client can reach.
func AdminUser(pub string) *server.NkeyUser { return &server.NkeyUser{Nkey: pub} }
