// a plain value transfer costs exactly 21000
>> {"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","to":"0x00000000000000000000000000000000000a11ce","value":"0x1"}]}
<< {"jsonrpc":"2.0","id":1,"result":"0x5208"}
