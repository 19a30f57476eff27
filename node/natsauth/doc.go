// Package natsauth decides who may connect to the NATS server that carries
// the sequencer's log, and what each may do there.
//
// The log is the chain's authority: a replica applies what it reads, and
// the sequencer resumes from it after a crash. So the embedded server never
// admits an anonymous client, and each role gets only the subjects its job
// needs:
//
//   - the sequencer (its in-process connection) may do everything but
//     throw the log away: no stream delete or purge, no message delete;
//   - a replica may read the log (stream info, message get, a consumer of
//     its own), send requests on its own relay subjects (which name it, so
//     the sequencer knows who asks), and receive on its own inbox; it may
//     not publish to the log, manage the stream, or subscribe to anything
//     else, so it can neither answer another replica's requests nor read
//     them.
//
// Identities are nkeys (ed25519): a client proves it holds a seed by
// signing the server's nonce, so no secret crosses the wire. Keys lives in
// <datadir>/nats-auth: the sequencer's seed (sequencer.nk, which also signs
// the log's entries), a first replica's seed (replica.nk, written when the
// server first listens) and the replicas the server admits (replicas: one
// public key and name a line). AddReplica adds one.
package natsauth
