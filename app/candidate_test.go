package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestUntilSettled(t *testing.T) {
	unsettled := fmt.Errorf("%w: it went on from entry 7 to 9 after the lease was taken", errLogUnsettled)
	other := errors.New("the follower stopped")
	for _, tc := range []struct {
		name      string
		results   []error // what each try returns; the last repeats
		giveUp    time.Duration
		wantTries int // at least, when the clock decides
		exact     bool
		wantErr   string // "" for success
	}{
		{"settled at once", []error{nil}, time.Minute, 1, true, ""},
		{"settles on the third try", []error{unsettled, unsettled, nil}, time.Minute, 3, true, ""},
		{"another error ends it at once", []error{other}, time.Minute, 1, true, "the follower stopped"},
		{"never settles", []error{unsettled}, 3 * settleRetry / 2, 2, false, "did not settle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tries := 0
			last, err := untilSettled(context.Background(), time.After(tc.giveUp), func() (uint64, error) {
				err := tc.results[min(tries, len(tc.results)-1)]
				tries++
				if err != nil {
					return 0, err
				}
				return 42, nil
			})
			if tries < tc.wantTries || tc.exact && tries != tc.wantTries {
				t.Errorf("%d tries, want %d", tries, tc.wantTries)
			}
			switch {
			case tc.wantErr == "" && (err != nil || last != 42):
				t.Fatalf("untilSettled = %d, %v; want 42", last, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("untilSettled error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

func TestUntilSettledStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := untilSettled(ctx, nil, func() (uint64, error) { return 0, errLogUnsettled })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("untilSettled with its context ended = %v, want context.Canceled", err)
	}
}
