// code that reads 0x..beef only when BASEFEE is 0, without fees: 0x..beef is listed
// (geth v1.17 leaves the fees at zero when every fee field is omitted; v1.16.7 filled in suggested fees)
>> {"jsonrpc":"2.0","id":1,"method":"eth_createAccessList","params":[{"from":"0x36b8af1befa5cf9662ac1d569939db652f7b13a4","gas":"0xf4240","input":"0x48601b5773000000000000000000000000000000000000beef31505b00"},"latest"]}
<< {"jsonrpc":"2.0","id":1,"result":{"accessList":[{"address":"0x000000000000000000000000000000000000beef","storageKeys":[]}],"gasUsed":"0xd9cf"}}
