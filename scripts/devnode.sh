# Sourced by the measurement scripts: builds stocknode and the load
# generator into bin/, starts a fresh in-memory node on a free port (extra
# flags in "$@"), waits until it answers, and stops it when the script
# exits. Sets url (http://127.0.0.1:PORT) and port.
go build -o bin/stocknode ./cmd/stocknode
go build -o bin/loadtest ./loadtest
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
bin/stocknode --dev --http.port "$port" --verbosity 2 "$@" >/dev/null 2>&1 &
devnode_pid=$!
trap 'kill -INT $devnode_pid 2>/dev/null; wait $devnode_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	curl -sf "$url/health" >/dev/null && break
	sleep 0.2
done
