// code that reverts when BASEFEE is 0, estimated without fees: it reverts
>> {"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gas":"0xf4240","input":"0x486007575f5ffd5b00"},"latest"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted"}}
