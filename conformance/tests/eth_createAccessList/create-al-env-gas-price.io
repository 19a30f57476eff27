// the same with a gas price: BASEFEE is the block's, nothing is listed
>> {"jsonrpc":"2.0","id":1,"method":"eth_createAccessList","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gas":"0xf4240","gasPrice":"0x77359400","input":"0x48601b5773000000000000000000000000000000000000beef31505b00"},"latest"]}
<< {"jsonrpc":"2.0","id":1,"result":{"accessList":[],"gasUsed":"0xd006"}}
