package relay

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

// TestSubmit: a replica that asks hears whether the sequencer can run the
// transaction now, a refusal at its position with the sender's next
// nonce; a sequencer that cannot say answers as it always did.
func TestSubmit(t *testing.T) {
	refusal := "insufficient funds for gas * price + value: balance 10, queued cost 6, tx cost 6, overshot 2"
	cases := []struct {
		name    string
		submit  func(string, *types.Transaction) (Admission, error)
		want    Admission
		blocked *BlockedError
		refused string
	}{
		{name: "runnable", submit: answer(Admission{Next: 7}, nil), want: Admission{Next: 7}},
		{name: "queued", submit: answer(Admission{Queued: true, Next: 3}, nil), want: Admission{Queued: true, Next: 3}},
		{name: "blocked", submit: answer(Admission{}, &BlockedError{Text: refusal, Next: 1}), blocked: &BlockedError{Text: refusal, Next: 1}},
		{name: "refused", submit: answer(Admission{}, errors.New("nonce too low")), refused: "nonce too low"},
		{name: "sequencer without Submit", want: Admission{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := newNetwork(t)
			sent := make(chan string, 1)
			n.serve(Handlers{
				Send:   func(string, *types.Transaction) error { sent <- "Send"; return nil },
				Submit: recordSubmit(sent, c.submit),
			}, 0)
			adm, err := n.client(0).Submit(transfer(t, 0))
			var blocked *BlockedError
			var refused *RefusedError
			switch {
			case c.blocked != nil:
				if !errors.As(err, &blocked) || *blocked != *c.blocked {
					t.Fatalf("Submit = %v (%T), want %+v", err, err, c.blocked)
				}
			case c.refused != "":
				if !errors.As(err, &refused) || refused.Text != c.refused {
					t.Fatalf("Submit = %v (%T), want the refusal %q", err, err, c.refused)
				}
			case err != nil || adm != c.want:
				t.Fatalf("Submit = %+v, %v; want %+v", adm, err, c.want)
			}
			want := "Submit"
			if c.submit == nil {
				want = "Send"
			}
			if got := <-sent; got != want {
				t.Fatalf("the sequencer ran %s, want %s", got, want)
			}
		})
	}
}

// TestSendDoesNotAsk: a plain Send never gets an admission in its reply,
// so a replica's eth_sendRawTransaction costs the sequencer nothing more.
func TestSendDoesNotAsk(t *testing.T) {
	n := newNetwork(t)
	n.serve(Handlers{
		Send: func(string, *types.Transaction) error { return nil },
		Submit: func(string, *types.Transaction) (Admission, error) {
			t.Error("Send's request was answered by Submit")
			return Admission{}, nil
		},
	}, 0)
	if err := n.client(0).Send(transfer(t, 0)); err != nil {
		t.Fatal(err)
	}
}

func answer(adm Admission, err error) func(string, *types.Transaction) (Admission, error) {
	return func(string, *types.Transaction) (Admission, error) { return adm, err }
}

// recordSubmit is submit (nil: none) telling sent that it ran.
func recordSubmit(sent chan<- string, submit func(string, *types.Transaction) (Admission, error)) func(string, *types.Transaction) (Admission, error) {
	if submit == nil {
		return nil
	}
	return func(from string, tx *types.Transaction) (Admission, error) {
		sent <- "Submit"
		return submit(from, tx)
	}
}
