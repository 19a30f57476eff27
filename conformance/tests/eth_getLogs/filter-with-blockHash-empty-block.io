>> {"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"blockHash":"0xfe7cb89b99d8f3235962c4abed1a259b058b6667082a52ac4cb9d79f5d884ad7"}]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
