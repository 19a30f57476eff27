//go:build race

package httpserver

// raceEnabled: the race detector takes a read through internal/poll as
// happening after every earlier write anywhere, as data through a socket
// does; rawConn's system calls bypass internal/poll and would hide those
// edges, so race builds serve plain connections (rawConn's own tests still
// use it).
const raceEnabled = true
