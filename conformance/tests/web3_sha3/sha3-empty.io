>> {"jsonrpc":"2.0","id":1,"method":"web3_sha3","params":["0x"]}
<< {"jsonrpc":"2.0","id":1,"result":"0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"}
