// a call to an EOA returns nothing
>> {"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","input":"0x","to":"0x00000000000000000000000000000000000a11ce"},"latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x"}
