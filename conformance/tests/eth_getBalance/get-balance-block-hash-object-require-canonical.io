// EIP-1898 object with requireCanonical on a canonical block
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x36b8af1befa5cf9662ac1d569939db652f7b13a4",{"blockHash":"0x9056f343ef200f2ddbfd4a9be2a314ca8953c0acbdab40ca298e63af14760859","requireCanonical":true}]}
<< {"jsonrpc":"2.0","id":1,"result":"0x3635c51735f0d13b83"}
