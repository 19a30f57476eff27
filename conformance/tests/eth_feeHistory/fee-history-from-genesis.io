// more blocks than exist: the range starts at genesis
>> {"jsonrpc":"2.0","id":1,"method":"eth_feeHistory","params":["0x40","0x3",[10]]}
<< {"jsonrpc":"2.0","id":1,"result":{"baseFeePerBlobGas":["0x1","0x1","0x1","0x1","0x1"],"baseFeePerGas":["0x3b9aca00","0x342770c0","0x2da7a96d","0x27fff7e4","0x230d62b3"],"blobGasUsedRatio":[0,0,0,0],"gasUsedRatio":[0,0.0015433333333333334,0.004539566666666666,0.0052395666666666665],"oldestBlock":"0x0","reward":[["0x0"],["0xf5de8140"],["0x77359400"],["0x3b9aca00"]]}}
