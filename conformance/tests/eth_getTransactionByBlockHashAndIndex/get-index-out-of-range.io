>> {"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByBlockHashAndIndex","params":["0x9056f343ef200f2ddbfd4a9be2a314ca8953c0acbdab40ca298e63af14760859","0x9"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
