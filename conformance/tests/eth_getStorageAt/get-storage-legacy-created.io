>> {"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["0x066dac31791519ba061469c5fc8558028b8ffa01","0x0","latest"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x0000000000000000000000000000000000000000000000000000000000000064"}
