//go:build race

package rawconn

// raceEnabled: the race detector takes a read through internal/poll as
// happening after every earlier write anywhere, as data through a socket
// does; rawConn's system calls bypass internal/poll and would hide those
// edges, so Wrap leaves connections plain in race builds (rawConn's own tests
// still use it, through wrap).
const raceEnabled = true
