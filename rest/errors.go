package rest

import (
	"bytes"
)

// etagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2):
// any listed tag, weak or strong, that names etag, or "*".
func etagMatches(header []byte, etag string) bool {
	for len(header) > 0 {
		header = bytes.TrimLeft(header, " \t,")
		if len(header) == 0 {
			break
		}
		if header[0] == '*' {
			return true
		}
		header = bytes.TrimPrefix(header, []byte("W/"))
		if len(header) == 0 || header[0] != '"' {
			return false // malformed: no match, a full answer
		}
		end := bytes.IndexByte(header[1:], '"')
		if end < 0 {
			return false
		}
		if string(header[:end+2]) == etag {
			return true
		}
		header = header[end+2:]
	}
	return false
}
