// block given as a plain block hash
>> {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x00000000000000000000000000000000000a11ce","0xfe7cb89b99d8f3235962c4abed1a259b058b6667082a52ac4cb9d79f5d884ad7"]}
<< {"jsonrpc":"2.0","id":1,"result":"0x2ba7def3006"}
