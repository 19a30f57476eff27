package rpc

import (
	"strconv"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/stocknode/stocknode/codec"
)

func methodTable() map[string]handler {
	return map[string]handler{
		"web3_clientVersion":                      web3ClientVersion,
		"web3_sha3":                               web3Sha3,
		"net_version":                             netVersion,
		"net_listening":                           netListening,
		"net_peerCount":                           netPeerCount,
		"eth_chainId":                             ethChainID,
		"eth_blockNumber":                         ethBlockNumber,
		"eth_syncing":                             ethSyncing,
		"eth_accounts":                            ethAccounts,
		"eth_gasPrice":                            ethGasPrice,
		"eth_maxPriorityFeePerGas":                ethMaxPriorityFeePerGas,
		"eth_feeHistory":                          ethFeeHistory,
		"eth_getBalance":                          ethGetBalance,
		"eth_getTransactionCount":                 ethGetTransactionCount,
		"eth_getCode":                             ethGetCode,
		"eth_getStorageAt":                        ethGetStorageAt,
		"eth_call":                                ethCall,
		"eth_estimateGas":                         ethEstimateGas,
		"eth_createAccessList":                    ethCreateAccessList,
		"eth_sendRawTransaction":                  ethSendRawTransaction,
		"eth_sendRawTransactionSync":              ethSendRawTransactionSync,
		"eth_getBlockByNumber":                    ethGetBlockByNumber,
		"eth_getBlockByHash":                      ethGetBlockByHash,
		"eth_getBlockTransactionCountByNumber":    ethGetBlockTransactionCountByNumber,
		"eth_getBlockTransactionCountByHash":      ethGetBlockTransactionCountByHash,
		"eth_getTransactionByHash":                ethGetTransactionByHash,
		"eth_getTransactionByBlockNumberAndIndex": ethGetTransactionByBlockNumberAndIndex,
		"eth_getTransactionByBlockHashAndIndex":   ethGetTransactionByBlockHashAndIndex,
		"eth_getTransactionReceipt":               ethGetTransactionReceipt,
		"eth_getBlockReceipts":                    ethGetBlockReceipts,
		"eth_getLogs":                             ethGetLogs,
		"eth_newFilter":                           ethNewFilter,
		"eth_newBlockFilter":                      ethNewBlockFilter,
		"eth_getFilterChanges":                    ethGetFilterChanges,
		"eth_getFilterLogs":                       ethGetFilterLogs,
		"eth_uninstallFilter":                     ethUninstallFilter,
		"debug_traceTransaction":                  debugTraceTransaction,
		"debug_traceBlockByNumber":                debugTraceBlockByNumber,
		"debug_traceBlockByHash":                  debugTraceBlockByHash,
		"debug_traceCall":                         debugTraceCall,
		"eth_getProof":                            ethGetProof,
		"eth_getStorageValues":                    ethGetStorageValues,
		"eth_blobBaseFee":                         ethBlobBaseFee,
		"eth_config":                              ethConfig,
		"txpool_status":                           txpoolStatus,
		"txpool_content":                          txpoolContent,
		"txpool_contentFrom":                      txpoolContentFrom,
		"txpool_inspect":                          txpoolInspect,
		"debug_getRawHeader":                      debugGetRawHeader,
		"debug_getRawBlock":                       debugGetRawBlock,
		"debug_getRawReceipts":                    debugGetRawReceipts,
		"debug_getRawTransaction":                 debugGetRawTransaction,
		"eth_simulateV1":                          ethSimulateV1,
		"base_transactionStatus":                  baseTransactionStatus,
	}
}

func web3ClientVersion(s *Server, r *request) error {
	r.out = codec.AppendString(r.out, s.cfg.ClientVersion)
	return nil
}

func web3Sha3(s *Server, r *request) error {
	if err := r.maxParams(1); err != nil {
		return err
	}
	raw, err := r.required(0)
	if err != nil {
		return err
	}
	data, err := codec.AppendData(nil, raw)
	if err != nil {
		return argError(0, err)
	}
	r.out = codec.AppendBytes(r.out, crypto.Keccak256(data))
	return nil
}

// netVersion answers the chain ID in decimal, as geth does for networks
// whose network ID is their chain ID.
func netVersion(s *Server, r *request) error {
	r.out = codec.AppendString(r.out, strconv.FormatUint(s.b.Chain.Config().ChainID.Uint64(), 10))
	return nil
}

func netListening(s *Server, r *request) error {
	r.out = codec.AppendBool(r.out, true)
	return nil
}

// netPeerCount is zero: a single sequencer has no peers.
func netPeerCount(s *Server, r *request) error {
	r.out = codec.AppendUint64(r.out, 0)
	return nil
}

func ethChainID(s *Server, r *request) error {
	r.out = codec.AppendBig(r.out, s.b.Chain.Config().ChainID)
	return nil
}

// ethSyncing is false: the node produces its chain, it never syncs.
func ethSyncing(s *Server, r *request) error {
	r.out = codec.AppendBool(r.out, false)
	return nil
}

// ethAccounts is empty: the node holds no user keys.
func ethAccounts(s *Server, r *request) error {
	r.out = append(r.out, "[]"...)
	return nil
}
