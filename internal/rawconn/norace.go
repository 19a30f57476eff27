//go:build !race

package rawconn

const raceEnabled = false
