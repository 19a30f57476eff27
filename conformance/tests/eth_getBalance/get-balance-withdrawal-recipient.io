// R after block 6, whose withdrawal credited it
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x00000000000000000000000000000000000a11ce","0x6"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x2ba7def3006"}
