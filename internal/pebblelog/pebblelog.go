// Package pebblelog sends a pebble database's messages to the node's log.
package pebblelog

import (
	"fmt"
	"log/slog"
	"strings"
)

// Logger implements pebble's Logger for the database named what.
type Logger struct {
	log  *slog.Logger
	what string // lower case, as in errors: "address index"
}

// New returns the logger of the database named what ("address index"):
// its messages are prefixed with the name, capitalised as log messages are.
func New(log *slog.Logger, what string) Logger { return Logger{log: log, what: what} }

// Infof logs at debug level: pebble's progress is of no interest to an
// operator unless something is wrong.
func (l Logger) Infof(format string, args ...any) {
	l.log.Debug(l.title() + ": " + fmt.Sprintf(format, args...))
}

// Fatalf reports what pebble cannot go on after; it must not return, so it
// panics once the message is logged.
func (l Logger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.log.Error(l.title() + ": " + msg)
	panic(l.what + ": " + msg)
}

func (l Logger) title() string {
	if l.what == "" {
		return ""
	}
	return strings.ToUpper(l.what[:1]) + l.what[1:]
}
