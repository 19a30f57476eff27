// the newest block's blob base fee is followed by the next block's
>> {"jsonrpc":"2.0","id":1,"method":"eth_feeHistory","params":["0x1","latest",[]]}
<< {"jsonrpc":"2.0","id":1,"result":{"baseFeePerBlobGas":["0x1","0x1"],"baseFeePerGas":["0x4286ce9","0x3a3de4c"],"blobGasUsedRatio":[0],"gasUsedRatio":[0.0018642333333333332],"oldestBlock":"0x14"}}
