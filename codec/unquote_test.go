package codec

import (
	"encoding/json"
	"testing"
)

func TestAppendUnquoted(t *testing.T) {
	tests := []string{
		`""`, `"plain"`, `"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u65e5"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`,
		"\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", `"é"`, `"lat\u0065st"`,
		// invalid
		`"\x"`, `"\u12"`, `"\u12zz"`, `"a"b"`, "\"\x01\"", `"\"`,
	}
	for _, in := range tests {
		var want string
		werr := json.Unmarshal([]byte(in), &want)
		got, ok := appendUnquoted(nil, []byte(in[1:len(in)-1]))
		if ok != (werr == nil) || (ok && string(got) != want) {
			t.Errorf("appendUnquoted(%s) = %q, %v; encoding/json says %q, %v", in, got, ok, want, werr)
		}
	}
}

func TestAppendUnquotedAliases(t *testing.T) {
	in := []byte("plain")
	if got, _ := appendUnquoted(nil, in); &got[0] != &in[0] {
		t.Error("content without escapes must be returned as is")
	}
}
