package codec

import "testing"

func TestFoldKey(t *testing.T) {
	tests := []struct {
		key, name string
		want      bool
	}{
		{"blockHash", "blockHash", true},
		{"BLOCKHASH", "blockHash", true},
		{"blockhash", "blockHash", true},
		{"blockHas", "blockHash", false},
		{"blockHashx", "blockHash", false},
		{"bl@ckHash", "blockHash", false},
		{`block\u0048ash`, "blockHash", true},
		{`\u0062lockhash`, "blockHash", true},
		{"bloc\u212aHash", "blockHash", true},   // KELVIN SIGN folds to k
		{"blockHa\u017fh", "blockHash", true},   // LATIN SMALL LETTER LONG S folds to s
		{`bloc\u212aHash`, "blockHash", true},   // the same, escaped
		{"block\u0130ash", "blockHash", false},  // dotted capital I is not h
		{"bl\xffockHash", "blockHash", false},   // invalid UTF-8
		{`block\u0048ash\`, "blockHash", false}, // bad escape
		{`to`, "to", true},
		{`TO`, "to", true},
		{`t`, "to", false},
		{``, "to", false},
	}
	for _, tt := range tests {
		if got := foldKey([]byte(tt.key), tt.name); got != tt.want {
			t.Errorf("foldKey(%q, %q) = %v, want %v", tt.key, tt.name, got, tt.want)
		}
	}
}
