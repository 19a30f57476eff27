package rpc

// baseTransactionStatus is Base's base_transactionStatus (docs.base.org,
// Flashblocks API): {"status":"Known"} for a transaction this node has
// seen, {"status":"Unknown"} for one it has not. Base names no other
// status. Known here is pooled (on a replica: forwarded to the sequencer
// lately), pre-confirmed, or in a sealed block: Base documents Known as
// "in the mempool or confirmed", and its sequencer keeps a pre-confirmed
// transaction in its pool until the block is canonical; a sealed one
// stays Known because on 200 ms blocks a client that asks right after
// sending would otherwise often read Unknown, which apps take to mean the
// sequencer dropped it. A dropped or replaced transaction is Unknown.
func baseTransactionStatus(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	hash, err := r.hashArg(0)
	if err != nil {
		return err
	}
	_, known, err := s.findTx(r, hash)
	switch {
	case known:
		r.out = append(r.out, `{"status":"Known"}`...)
	case err != nil:
		return err // the transaction index is being built: nobody knows yet
	default:
		r.out = append(r.out, `{"status":"Unknown"}`...)
	}
	return nil
}
