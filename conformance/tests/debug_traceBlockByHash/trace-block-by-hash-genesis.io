>> {"jsonrpc":"2.0","id":1,"method":"debug_traceBlockByHash","params":["0xd39710fc9281a3b431493ef9b3b849aedcddf78e524c027904973dfbee3a95ff"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"genesis is not traceable"}}
