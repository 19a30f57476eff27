// block 8 carries two blobs
>> {"jsonrpc":"2.0","id":1,"method":"eth_feeHistory","params":["0x1","0x8",[50]]}
<< {"jsonrpc":"2.0","id":1,"result":{"baseFeePerBlobGas":["0x1","0x1"],"baseFeePerGas":["0x1496031c","0x12051aea"],"blobGasUsedRatio":[0.2222222222222222],"gasUsedRatio":[0.0014],"oldestBlock":"0x8","reward":[["0x3b9aca00"]]}}
