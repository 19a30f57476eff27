package codec

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestArray(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		openErr bool  // Array itself fails
		err     error // Err after the iteration
	}{
		{in: `[]`, want: nil},
		{in: " \n[ ] \t", want: nil},
		{in: `[1]`, want: []string{`1`}},
		{in: ` [ 1 , "a,b" , [2, 3] , {"k": [4]} , null ] `, want: []string{`1`, `"a,b"`, `[2, 3]`, `{"k": [4]}`, `null`}},
		{in: `["0x70997970c51812dc3a010c7d01b50e0d17dc79c8","latest"]`, want: []string{`"0x70997970c51812dc3a010c7d01b50e0d17dc79c8"`, `"latest"`}},
		{in: `{}`, openErr: true},
		{in: `  `, openErr: true},
		{in: `1`, openErr: true},
		{in: `[1,2`, want: []string{`1`, `2`}, err: ErrUnexpectedEnd},
		{in: `[1,]`, want: []string{`1`}, err: ErrInvalidJSON},
		{in: `[,1]`, err: ErrInvalidJSON},
		{in: `[1 2]`, want: []string{`1`}, err: ErrInvalidJSON},
		{in: `[1,x]`, want: []string{`1`}, err: ErrInvalidJSON},
		{in: `[1] x`, want: []string{`1`}, err: ErrTrailingData},
		{in: `[` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `]`, want: []string{strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1)}},
		{in: `[` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `]`, err: ErrTooDeep},
	}
	for _, tt := range tests {
		it, err := Array([]byte(tt.in))
		if (err != nil) != tt.openErr {
			t.Errorf("Array(%q) error = %v, want error: %v", tt.in, err, tt.openErr)
			continue
		}
		var got []string
		for it.Next() {
			if it.Index() != len(got) {
				t.Errorf("Array(%q): Index() = %d, want %d", tt.in, it.Index(), len(got))
			}
			got = append(got, string(it.Value()))
		}
		if tt.openErr {
			if it.Err() == nil || got != nil {
				t.Errorf("Array(%q): a failed iterator must yield nothing and keep its error", tt.in)
			}
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Array(%q) elements = %q, want %q", tt.in, got, tt.want)
		}
		if !errors.Is(it.Err(), tt.err) {
			t.Errorf("Array(%q) Err() = %v, want %v", tt.in, it.Err(), tt.err)
		}
		if it.Next() {
			t.Errorf("Array(%q): Next after the end returned true", tt.in)
		}
	}
}

func TestObject(t *testing.T) {
	tests := []struct {
		in      string
		want    []string // key=value
		openErr bool
		err     error
	}{
		{in: `{}`},
		{in: ` { } `},
		{in: `{"a":1}`, want: []string{`a=1`}},
		{in: "{ \"a\" :\t1 ,\n\"b\" : [ 2 ] , \"\":{}}", want: []string{`a=1`, `b=[ 2 ]`, `={}`}},
		{in: `{"a":1,"a":2}`, want: []string{`a=1`, `a=2`}},
		{in: `{"m\u0065thod":"x","\"":1}`, want: []string{`m\u0065thod="x"`, `\"=1`}},
		{in: `[]`, openErr: true},
		{in: ``, openErr: true},
		{in: `{"a":1,}`, want: []string{`a=1`}, err: ErrInvalidJSON},
		{in: `{"a" 1}`, err: ErrInvalidJSON},
		{in: `{a:1}`, err: ErrInvalidJSON},
		{in: `{"a":1 "b":2}`, want: []string{`a=1`}, err: ErrInvalidJSON},
		{in: `{"a":`, err: ErrUnexpectedEnd},
		{in: `{"a":1`, want: []string{`a=1`}, err: ErrUnexpectedEnd},
		{in: `{"a":1}}`, want: []string{`a=1`}, err: ErrTrailingData},
	}
	for _, tt := range tests {
		it, err := Object([]byte(tt.in))
		if (err != nil) != tt.openErr {
			t.Errorf("Object(%q) error = %v, want error: %v", tt.in, err, tt.openErr)
			continue
		}
		var got []string
		for it.Next() {
			got = append(got, string(it.Key())+"="+string(it.Value()))
		}
		if tt.openErr {
			if it.Err() == nil || got != nil {
				t.Errorf("Object(%q): a failed iterator must yield nothing and keep its error", tt.in)
			}
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Object(%q) members = %q, want %q", tt.in, got, tt.want)
		}
		if !errors.Is(it.Err(), tt.err) {
			t.Errorf("Object(%q) Err() = %v, want %v", tt.in, it.Err(), tt.err)
		}
	}
}

func TestIteratorsAlias(t *testing.T) {
	in := []byte(`[{"k":"v"}]`)
	it, _ := Array(in)
	it.Next()
	obj, _ := Object(it.Value())
	obj.Next()
	in[3] = 'K'
	if string(obj.Key()) != "K" {
		t.Fatalf("Key() = %q: iterators must alias their input", obj.Key())
	}
}
