package rpc

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/stocknode/stocknode/codec"
)

// address parses required argument i as an address.
func (r *request) address(i int) (common.Address, error) {
	raw, err := r.required(i)
	if err != nil {
		return common.Address{}, err
	}
	addr, err := codec.ParseAddress(raw)
	if err != nil {
		return addr, argError(i, err)
	}
	return addr, nil
}

// accountAt reads the account of the (address, block) arguments that
// eth_getBalance, eth_getTransactionCount and eth_getCode share.
func (s *Server) accountAt(r *request) (common.Address, view, *types.StateAccount, error) {
	if err := r.maxParams(2); err != nil {
		return common.Address{}, view{}, nil, err
	}
	addr, err := r.address(0)
	if err != nil {
		return addr, view{}, nil, err
	}
	v, err := s.stateView(r, 1)
	if err != nil {
		return addr, v, nil, err
	}
	acct, err := v.account(addr)
	return addr, v, acct, err
}

func ethGetBalance(s *Server, r *request) error {
	_, _, acct, err := s.accountAt(r)
	if err != nil {
		return err
	}
	r.out = codec.AppendUint256(r.out, acct.Balance)
	return nil
}

func ethGetTransactionCount(s *Server, r *request) error {
	addr, v, acct, err := s.accountAt(r)
	if err != nil {
		return err
	}
	nonce := acct.Nonce
	if v.pending {
		// Wallets ask the pending nonce for their next transaction: count
		// the pooled ones not yet pre-confirmed too, as geth does.
		nonce = s.b.Pool.PendingNonce(addr, nonce)
	}
	r.out = codec.AppendUint64(r.out, nonce)
	return nil
}

func ethGetCode(s *Server, r *request) error {
	addr, v, acct, err := s.accountAt(r)
	if err != nil {
		return err
	}
	var code []byte
	if hash := common.BytesToHash(acct.CodeHash); hash != types.EmptyCodeHash {
		code = v.reader.Code(addr, hash)
	}
	r.out = codec.AppendBytes(r.out, code)
	return nil
}

func ethGetStorageAt(s *Server, r *request) error {
	if err := r.maxParams(3); err != nil {
		return err
	}
	addr, err := r.address(0)
	if err != nil {
		return err
	}
	raw, err := r.required(1)
	if err != nil {
		return err
	}
	slot, err := storageKey(raw)
	if err != nil {
		return argError(1, err)
	}
	v, err := s.stateView(r, 2)
	if err != nil {
		return err
	}
	value, err := v.reader.Storage(addr, slot)
	if err != nil {
		return err
	}
	r.out = codec.AppendHash(r.out, value)
	return nil
}

// storageKey parses a storage slot as geth does: a hex string of at most 32
// bytes, any length, left-padded.
func storageKey(raw []byte) (common.Hash, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return common.Hash{}, errors.New("json: cannot unmarshal non-string into Go value of type string")
	}
	s := string(raw[1 : len(raw)-1])
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return common.Hash{}, fmt.Errorf("unable to decode storage key: %w", err)
	}
	if len(b) > common.HashLength {
		return common.Hash{}, fmt.Errorf("unable to decode storage key: hex string too long, want at most 32 bytes")
	}
	return common.BytesToHash(b), nil
}
