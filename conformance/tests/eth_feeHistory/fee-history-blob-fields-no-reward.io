// no percentiles: no reward, blob base fees and blob gas ratios still there (block 8 carries blobs)
>> {"jsonrpc":"2.0","id":1,"method":"eth_feeHistory","params":["0x3","0x9",[]]}
<< {"jsonrpc":"2.0","id":1,"result":{"baseFeePerBlobGas":["0x1","0x1","0x1","0x1"],"baseFeePerGas":["0x1782524b","0x1496031c","0x12051aea","0xfc782c6"],"blobGasUsedRatio":[0,0.2222222222222222,0],"gasUsedRatio":[0.0026458333333333334,0.0014,0.0026393],"oldestBlock":"0x7"}}
