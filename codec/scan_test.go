package codec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var validJSON = []string{
	`0`, `-0`, `1`, `-1`, `123`, `0.5`, `-0.5e10`, `1E+2`, `1e-2`, `1.0e0`,
	`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\uD83D\uDE00"`, `"\uDEAD"`,
	`"é"`, "\"\xff\xfe\"", `"0123456789abcdef0123456789abcdef<>&"`,
	`true`, `false`, `null`,
	`[]`, `[ ]`, `[1]`, `[1,2,3]`, ` [ 1 , "a" , null ] `, `[[]]`, `[{}]`,
	`{}`, `{ }`, `{"a":1}`, `{"a":1,"a":2}`, ` { "a" : [ 1 , { "b" : null } ] } `,
	"\t\n\r {\"k\"\n:\r\"v\"}\t",
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
}

var invalidJSON = []string{
	``, ` `, `-`, `01`, `-01`, `1.`, `.1`, `1e`, `1e+`, `+1`, `0x1`, `1.e1`,
	`NaN`, `Infinity`, `tru`, `truex`, `nul`, `True`,
	`"`, `"abc`, `"\"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\x01\"", "\"\t\"", `'a'`,
	`[`, `[1`, `[1,`, `[1,]`, `[,1]`, `[1 2]`, `]`, `[}`,
	`{`, `{"a"`, `{"a":`, `{"a":1,}`, `{a:1}`, `{"a" 1}`, `{"a":1 "b":2}`, `{1:1}`, `{"a":1]`, `{,}`,
	`1 2`, `{} x`, `[] []`, "\x00", "\v1", `1` + "\u00a0",
	strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
}

func TestValid(t *testing.T) {
	for _, in := range validJSON {
		if !Valid([]byte(in)) {
			t.Errorf("Valid(%q) = false, want true", in)
		}
	}
	for _, in := range invalidJSON {
		if Valid([]byte(in)) {
			t.Errorf("Valid(%q) = true, want false", in)
		}
	}
	// Up to MaxDepth, encoding/json must agree.
	for _, in := range append(validJSON, invalidJSON...) {
		if depthOf([]byte(in)) > MaxDepth {
			continue
		}
		if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", in, got, want)
		}
	}
}

func TestSkipValue(t *testing.T) {
	tests := []struct {
		in      string
		i       int
		end     int
		wantErr error
	}{
		{in: `1`, end: 1},
		{in: `  true,`, end: 6},
		{in: `1x`, end: 1}, // what follows is the caller's business
		{in: `[1,{"a":"b"}] tail`, end: 13},
		{in: `x"str"`, i: 1, end: 6},
		{in: `{"a":[1,2]}`, i: 5, end: 10},
		{in: `"\u00zz"`, wantErr: ErrInvalidJSON},
		{in: `[1,2`, wantErr: ErrUnexpectedEnd},
		{in: `"abc`, wantErr: ErrUnexpectedEnd},
		{in: `tr`, wantErr: ErrUnexpectedEnd},
		{in: `   `, wantErr: ErrUnexpectedEnd},
		{in: `1`, i: 5, wantErr: ErrUnexpectedEnd},
		{in: `1`, i: -1, wantErr: ErrUnexpectedEnd},
		{in: strings.Repeat("[", MaxDepth+1), wantErr: ErrTooDeep},
	}
	for _, tt := range tests {
		end, err := SkipValue([]byte(tt.in), tt.i)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("SkipValue(%q, %d) error = %v, want %v", tt.in, tt.i, err, tt.wantErr)
			continue
		}
		if err == nil && end != tt.end {
			t.Errorf("SkipValue(%q, %d) = %d, want %d", tt.in, tt.i, end, tt.end)
		}
	}
}

func TestTooDeepMentionsNesting(t *testing.T) {
	_, err := SkipValue([]byte(strings.Repeat("[", 100)), 0)
	if err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Fatalf("error = %v, want one that mentions nesting", err)
	}
}

// TestSkipStringLanes moves each special byte through every position of the
// eight-byte fast path, where an off-by-one would hide.
func TestSkipStringLanes(t *testing.T) {
	for n := 0; n < 24; n++ {
		for _, special := range []string{`"`, `\n`, "\x1f", "\x00", `\\`, `\u0041`} {
			body := strings.Repeat("a", n) + special + strings.Repeat("b", 9)
			in := `"` + body + `"`
			if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want {
				t.Errorf("Valid(%q) = %v, encoding/json says %v", in, got, want)
			}
		}
		// High bytes are plain: no false positive from the borrow trick.
		in := `"` + strings.Repeat("\x80\xff\x7f\x20\x21\x5b\x5d\x5c", n/8) + strings.Repeat("a", n%8) + `"`
		in = strings.ReplaceAll(in, "\x5c", "/")
		if !Valid([]byte(in)) {
			t.Errorf("Valid(%q) = false", in)
		}
	}
}

// depthOf returns the deepest container nesting of data, counting brackets
// outside strings; meaningful for valid JSON.
func depthOf(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}
