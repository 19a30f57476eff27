// stocknode explorer: the little script that keeps pages live. Every page
// reads without it; with it, pages follow the chain over the node's own
// WebSocket (JSON-RPC eth_subscribe: newHeads, newFlashblocks), the wallet
// button adds the network and the faucet form drips.
//
// DOM hooks, stable for the browser tests (the server renders them; this
// script updates them as described):
//
// Every page
//   body[data-page]            home|block|tx|address|tokens|token|search|faucet|error
//   body[data-ws]              the WebSocket path; empty: live updates off
//   #live-status[data-state]   off | connecting | live | offline
//   #wallet-add                button, data-chain-id (hex), data-chain-name; hidden
//                              unless window.ethereum exists, then it calls
//                              wallet_addEthereumChain
//   #wallet-hint[data-wallet]  "none" when no wallet was found (the hint says so),
//                              "present" otherwise, "added" after a success
//   time[data-ts]              unix seconds; the text ("3 s ago", beyond a day the UTC
//                              date "2026-01-01 00:00 UTC") is refreshed every second
//
// Home (body[data-page=home]): after every newHeads or newFlashblocks (and a
// reconnect) the page fetches /fragment/home, the same parts as the server
// renders them, at most one request at a time and one per 100 ms, and
// brings these up to it:
//   #head-number[data-number]  the head; also set at once on every newHeads
//   #stat-block-time #stat-tps #stat-gas-rate #stat-gas #stat-base-fee
//   #pending-number #pending-index #pending-count   the block being built
//   #preconfirmed-txs[data-block-number][data-index]
//                              rows tr[data-tx-hash][data-preconfirmed="true"][data-block-number]:
//                              the block being built's transactions, newest first
//   #latest-blocks             rows tr[data-block-number][data-tx-count], newest first:
//                              every block number, none twice, blocks the socket did
//                              not announce included; new rows get class "fresh"
//   #latest-txs                rows tr[data-tx-hash][data-preconfirmed="false"][data-block-number];
//                              when a block seals, its pre-confirmed rows move here: the
//                              same element, data-preconfirmed flips to "false", its
//                              "pre-confirmed" badge ([data-badge]) goes, the block
//                              cell becomes a link
// Address and token pages (rendered by the server, read by the tests)
//   #history-counts            "n transactions, m token transfers"; on a token
//                              contract also "k transfers of this token" (?view=token)
//   #address-transfers, #token-transfers (/token/{address}?view=transfers)
//                              rows tr[data-tx-hash][data-log-index][data-block-number],
//                              newest first; a#older to the next page (?before=cursor)
// Block and transaction pages
//   #confirmations[data-block-number]   head − number + 1, on every newHeads
// Transaction page
//   #tx-status[data-tx-status][data-tx-hash][data-block-number][data-preconfirmed]
//                              data-tx-status: pool | preconfirmed | sealed. When a
//                              newFlashblocks lists a pooled transaction, or newHeads
//                              reaches a pre-confirmed one's block, main#page is fetched
//                              again and swapped in place
// Faucet
//   #faucet-form[data-drip-url][data-cooldown]  #faucet-address  #faucet-submit
//                              #faucet-captcha: the provider's widget, with --faucet.captcha only
//                              (disabled in the HTML: enabled here)
//   #faucet-result, then #faucet-sent (#faucet-sent-amount, #faucet-sent-to, a#faucet-tx
//   to /tx/{hash}) or #faucet-error (the API's message), and #faucet-wait with
//   #faucet-cooldown[data-seconds] counting down (the cooldown after a drip, or a
//   429's Retry-After); #faucet-balance[data-wei] (readable ETH, the exact amount
//   in its title) and #faucet-drips[data-drips] re-read from the faucet's status
//   endpoint (#faucet-form[data-status-url]) after a drip
//   body[data-now]             the server's clock (unix ms) when it rendered the
//                              page: ages count from it (see ago)
(function () {
  "use strict";

  var $ = function (id) { return document.getElementById(id); };
  var page = document.body.dataset.page;

  // ---- formatting ---------------------------------------------------------

  function group(digits) {
    return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function units(value, decimals) {
    var v = BigInt(value);
    var neg = v < 0n;
    if (neg) v = -v;
    var base = 10n ** BigInt(decimals);
    var frac = (v % base).toString().padStart(decimals, "0").replace(/0+$/, "");
    var s = group((v / base).toString()) + (frac ? "." + frac : "");
    return neg ? "-" + s : s;
  }

  // readable is format.go's readable: at most four decimals from one unit
  // up (rounded half up), four significant digits below.
  function readable(value, decimals) {
    var v = BigInt(value);
    if (v < 0n) return "-" + readable(-v, decimals);
    var one = 10n ** BigInt(decimals), keep = 4;
    if (v > 0n && v < one) keep = Math.min(decimals, decimals - v.toString().length + 4);
    if (keep >= decimals) return units(v, decimals);
    var step = 10n ** BigInt(decimals - keep);
    return units((v + step / 2n) / step * step, decimals);
  }

  // Ages count the server's clock, as the server's own rendering does
  // (format.go's ago): body[data-now] is the server's time when it rendered
  // the page, and the page keeps the difference to its own clock, so the
  // ages the server wrote and those written here agree, whatever the
  // browser's clock says, and a newer block never reads older. One rule on
  // both sides: whole seconds of now (floor) less the timestamp; "just now"
  // below a second (or ahead of the clock), then s, min, h; beyond a day
  // (dateAfter) the UTC date and time.
  var skew = 0;
  if (document.body.dataset.now) skew = Number(document.body.dataset.now) - Date.now();
  function serverNow() { return Date.now() + skew; }

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function ago(ts, nowSecs) {
    var d = nowSecs - ts;
    if (d < 1) return "just now";
    if (d < 60) return d + " s ago";
    if (d < 3600) return Math.floor(d / 60) + " min ago";
    if (d <= 86400) return Math.floor(d / 3600) + " h ago";
    var t = new Date(ts * 1000);
    return t.getUTCFullYear() + "-" + pad(t.getUTCMonth() + 1) + "-" + pad(t.getUTCDate()) + " " +
      pad(t.getUTCHours()) + ":" + pad(t.getUTCMinutes()) + " UTC";
  }

  // tickAges writes every age from one reading of the clock.
  function tickAges() {
    var now = Math.floor(serverNow() / 1000);
    document.querySelectorAll("time[data-ts]").forEach(function (t) {
      var text = ago(Number(t.dataset.ts), now);
      if (t.textContent !== text) t.textContent = text;
    });
  }
  setInterval(tickAges, 1000);

  // ---- wallet -------------------------------------------------------------

  function setupWallet() {
    var btn = $("wallet-add"), hint = $("wallet-hint");
    if (!btn || !hint) return;
    if (!window.ethereum) {
      btn.hidden = true;
      hint.dataset.wallet = "none";
      hint.textContent = "No browser wallet: install one to add this network (chain ID " + parseInt(btn.dataset.chainId, 16) + ")";
      return;
    }
    btn.hidden = false;
    hint.dataset.wallet = "present";
    hint.textContent = "";
    btn.onclick = function () {
      window.ethereum.request({
        method: "wallet_addEthereumChain",
        params: [{
          chainId: btn.dataset.chainId,
          chainName: btn.dataset.chainName,
          nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
          rpcUrls: [location.origin],
          blockExplorerUrls: [location.origin]
        }]
      }).then(function () {
        hint.dataset.wallet = "added";
        hint.textContent = "Added";
      }, function (err) {
        hint.textContent = (err && err.message) || "The wallet declined";
      });
    };
  }
  setupWallet();
  window.addEventListener("ethereum#initialized", setupWallet, { once: true });

  // ---- WebSocket ----------------------------------------------------------

  // live subscribes to kinds (name -> handler) and resubscribes after a
  // reconnect, calling opened (if given) once subscribed: what happened
  // while the socket was down was never announced. call sends any other
  // JSON-RPC request over the same socket.
  function live(kinds, opened) {
    var path = document.body.dataset.ws;
    var status = $("live-status");
    var setState = function (s) { if (status) status.dataset.state = s; };
    var ws, nextID = 1, subs = {}, waiting = {}, delay = 1000, isLive = false;
    if (!path || !window.WebSocket) return { call: function () { return Promise.reject(new Error("live updates off")); } };

    function send(method, params) {
      var id = nextID++;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: id, method: method, params: params }));
      return id;
    }

    function connect() {
      setState("connecting");
      ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
      subs = {};
      isLive = false;
      ws.onopen = function () {
        delay = 1000;
        Object.keys(kinds).forEach(function (kind) {
          waiting[send("eth_subscribe", [kind])] = { kind: kind };
        });
      };
      ws.onmessage = function (ev) {
        var msg;
        try { msg = JSON.parse(ev.data); } catch (e) { return; }
        if (msg.method === "eth_subscription" && msg.params) {
          var kind = subs[msg.params.subscription];
          if (kind) kinds[kind](msg.params.result);
          return;
        }
        var w = waiting[msg.id];
        if (!w) return;
        delete waiting[msg.id];
        if (w.kind) {
          if (typeof msg.result === "string") {
            subs[msg.result] = w.kind;
            if (!isLive) { isLive = true; setState("live"); if (opened) opened(); }
          }
        } else if (msg.error) {
          w.reject(new Error(msg.error.message));
        } else {
          w.resolve(msg.result);
        }
      };
      ws.onclose = function () {
        setState("offline");
        Object.keys(waiting).forEach(function (id) {
          if (waiting[id].reject) waiting[id].reject(new Error("connection closed"));
          delete waiting[id];
        });
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    }
    connect();
    return {
      call: function (method, params) {
        return new Promise(function (resolve, reject) {
          if (!ws || ws.readyState !== 1) { reject(new Error("not connected")); return; }
          waiting[send(method, params)] = { resolve: resolve, reject: reject };
        });
      }
    };
  }

  // refresh fetches this page again and swaps its main element in place.
  function refresh() {
    return fetch(location.href, { cache: "no-store", headers: { Accept: "text/html" } }).then(function (res) {
      if (!res.ok) return null;
      return res.text().then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("page");
        var old = $("page");
        if (fresh && old) old.replaceWith(document.adoptNode(fresh));
        tickAges();
        return fresh;
      });
    });
  }

  function updateConfirmations(head) {
    var c = $("confirmations");
    if (c) c.textContent = String(head - Number(c.dataset.blockNumber) + 1);
  }

  // ---- home ---------------------------------------------------------------

  // The lists follow the chain from the server: whenever the WebSocket
  // says it moved (newHeads, newFlashblocks, a reconnect), the page asks
  // /fragment/home for its live parts as the server renders them, and
  // brings the lists up to them. An answer holds the latest blocks up to
  // its head, so blocks the socket never announced (sealed while the page
  // loaded or the socket reconnected, or while a request was out) are in
  // it too: the list never skips a number, and never shows one twice.
  function home() {
    var shown = Number($("head-number").dataset.number); // the head the lists are at
    var busy = false, again = false, timer = null, last = 0;

    // sync asks for the live parts, one request at a time and at most one
    // every syncGap ms; what happens meanwhile is asked for next.
    var syncGap = 100;
    function sync() {
      if (busy || timer || document.hidden) { again = true; return; }
      var wait = last + syncGap - Date.now();
      if (wait > 0) { timer = setTimeout(function () { timer = null; sync(); }, wait); return; }
      busy = true; again = false; last = Date.now();
      fetch("/fragment/home", { cache: "no-store" }).then(function (res) {
        return res.ok ? res.text() : null;
      }).then(function (html) {
        if (html) apply(new DOMParser().parseFromString(html, "text/html"));
      }, function () {}).then(function () {
        busy = false;
        if (again) sync();
      });
    }
    document.addEventListener("visibilitychange", function () { if (!document.hidden && again) sync(); });

    function apply(doc) {
      var fresh = doc.getElementById("live");
      if (!fresh || Number(fresh.dataset.head) < shown) return; // older than what is shown
      shown = Number(fresh.dataset.head);
      ["head-number", "stat-block-time", "stat-tps", "stat-gas", "stat-gas-rate", "stat-base-fee"].forEach(function (id) {
        var from = doc.getElementById(id), to = $(id);
        if (!from || !to) return;
        if (id === "head-number" && Number(to.dataset.number) > shown) return; // newHeads ran ahead
        to.textContent = from.textContent;
        if (from.dataset.number) { to.dataset.number = from.dataset.number; to.href = from.getAttribute("href"); }
      });
      var pre = $("preconfirmed-txs");
      if (pre) {
        pre.dataset.blockNumber = fresh.dataset.pendingNumber;
        pre.dataset.index = fresh.dataset.pendingIndex;
        $("pending-number").textContent = fresh.dataset.pendingNumber;
        $("pending-index").textContent = fresh.dataset.pendingIndex;
        $("pending-count").textContent = fresh.dataset.pendingCount;
      }
      reconcile("latest-blocks", doc, "blockNumber", []);
      // A pre-confirmed row that sealed moves into the latest transactions.
      reconcile("latest-txs", doc, "txHash", ["preconfirmed-txs"]);
      reconcile("preconfirmed-txs", doc, "txHash", []);
      var empty = $("latest-txs-empty"), txs = $("latest-txs");
      if (empty && txs) empty.hidden = txs.rows.length > 0;
      tickAges();
    }

    // reconcile makes the rows of tbody #id those of the same tbody in doc,
    // in its order. Rows already on the page (in it or in the tbodies of
    // also) are kept, changed in place when they changed (a pre-confirmed
    // transaction sealed); new ones are marked fresh.
    function reconcile(id, doc, key, also) {
      var cur = $(id), src = doc.getElementById(id);
      if (!cur || !src) return;
      var have = {};
      [id].concat(also).forEach(function (other) {
        var tbody = $(other);
        if (tbody) Array.prototype.forEach.call(tbody.rows, function (tr) { have[tr.dataset[key]] = tr; });
      });
      var rows = Array.prototype.slice.call(src.rows).map(function (tr) {
        var old = have[tr.dataset[key]];
        if (old && old.dataset.preconfirmed === tr.dataset.preconfirmed) return old;
        if (old) {
          old.dataset.preconfirmed = tr.dataset.preconfirmed;
          old.dataset.blockNumber = tr.dataset.blockNumber;
          old.replaceChildren.apply(old, Array.prototype.slice.call(tr.childNodes).map(function (n) { return document.adoptNode(n); }));
          old.className = "fresh";
          return old;
        }
        tr = document.adoptNode(tr);
        tr.className = "fresh";
        return tr;
      });
      cur.replaceChildren.apply(cur, rows);
    }

    function onHead(h) {
      var number = parseInt(h.number, 16), head = $("head-number");
      if (number > Number(head.dataset.number)) {
        head.textContent = group(String(number));
        head.dataset.number = String(number);
        head.href = "/block/" + number;
        $("stat-gas").textContent = group(String(parseInt(h.gasUsed, 16)));
      }
      sync();
    }

    function onFlashblock(f) {
      if (f.baseFeePerGas) $("stat-base-fee").textContent = units(f.baseFeePerGas, 9) + " gwei";
      sync();
    }

    live({ newHeads: onHead, newFlashblocks: onFlashblock }, sync);
  }

  // ---- block and transaction pages ----------------------------------------

  function blockPage() {
    live({ newHeads: function (h) { updateConfirmations(parseInt(h.number, 16)); } });
  }

  function txPage() {
    var busy = false;
    function status() { var s = $("tx-status"); return s ? s.dataset : {}; }
    function reload() {
      if (busy) return;
      busy = true;
      refresh().then(function () { busy = false; }, function () { busy = false; });
    }
    live({
      newHeads: function (h) {
        var number = parseInt(h.number, 16), s = status();
        if (s.txStatus === "preconfirmed" && number >= Number(s.blockNumber)) reload();
        else if (s.txStatus === "sealed") updateConfirmations(number);
      },
      newFlashblocks: function (f) {
        var s = status();
        if (s.txStatus === "pool" && f.transactions.indexOf(s.txHash) >= 0) reload();
      }
    });
    // A pooled transaction can seal between two flashblocks this page saw.
    setInterval(function () { if (status().txStatus === "pool" && !document.hidden) reload(); }, 5000);
  }

  // ---- faucet -------------------------------------------------------------

  function faucet() {
    var form = $("faucet-form");
    if (!form) return;
    var input = $("faucet-address"), submit = $("faucet-submit"), timer = null;
    submit.disabled = false;

    function show(id) {
      $("faucet-result").hidden = false;
      ["faucet-sent", "faucet-error"].forEach(function (x) { $(x).hidden = x !== id; });
    }

    function countdown(seconds) {
      var wait = $("faucet-wait"), out = $("faucet-cooldown");
      clearInterval(timer);
      var left = Math.max(0, Math.ceil(seconds));
      var tick = function () {
        out.dataset.seconds = String(left);
        out.textContent = left >= 60 ? Math.floor(left / 60) + " min " + (left % 60) + " s" : left + " s";
        wait.hidden = left <= 0;
        if (left <= 0) { clearInterval(timer); submit.disabled = false; }
        left--;
      };
      $("faucet-result").hidden = false;
      submit.disabled = left > 0;
      tick();
      timer = setInterval(tick, 1000);
    }

    function retryAfter(res) {
      var h = res.headers.get("Retry-After");
      if (!h) return 0;
      if (/^\d+$/.test(h)) return Number(h);
      var at = Date.parse(h);
      return isNaN(at) ? 0 : (at - Date.now()) / 1000;
    }

    // refreshStatus re-reads the faucet's state from its status endpoint
    // after a drip: the balance (pending, so the drip counts once it is
    // pre-confirmed) and the drips of the last hour. The drip's
    // transaction may not be pre-confirmed when the first answer comes, so
    // it asks again, a few times, until the balance moved.
    function refreshStatus(tries) {
      var bal = $("faucet-balance"), drips = $("faucet-drips");
      fetch(form.dataset.statusUrl, { cache: "no-store" }).then(function (res) {
        return res.ok ? res.json() : null;
      }).then(function (st) {
        if (!st) return;
        var moved = st.balance_wei !== bal.dataset.wei;
        bal.dataset.wei = st.balance_wei;
        bal.textContent = readable(st.balance_wei, 18) + " ETH";
        bal.title = units(st.balance_wei, 18) + " ETH";
        drips.textContent = String(st.drips_last_hour);
        drips.dataset.drips = String(st.drips_last_hour);
        if (!moved && tries > 1) setTimeout(function () { refreshStatus(tries - 1); }, 250);
      }, function () {});
    }

    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var address = input.value.trim();
      if (!/^0[xX][0-9a-fA-F]{40}$/.test(address)) {
        show("faucet-error");
        $("faucet-error").textContent = "An address is 0x and 40 hex digits.";
        return;
      }
      submit.disabled = true;
      var headers = { "Content-Type": "application/json" };
      // With --faucet.captcha the provider's widget adds its token to the
      // form; the node verifies it with the provider.
      var token = form.querySelector('[name="cf-turnstile-response"],[name="h-captcha-response"]');
      if (token) headers["X-Captcha-Token"] = token.value;
      fetch(form.dataset.dripUrl, {
        method: "POST", headers: headers, body: JSON.stringify({ address: address })
      }).then(function (res) {
        if (window.turnstile) window.turnstile.reset();
        if (window.hcaptcha) window.hcaptcha.reset();
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (res.ok) {
            show("faucet-sent");
            $("faucet-sent-amount").textContent = body.amount_wei != null ? readable(String(body.amount_wei), 18) + " ETH" : "test ETH";
            $("faucet-sent-to").textContent = body.to || address;
            var tx = $("faucet-tx");
            tx.textContent = body.tx_hash;
            tx.href = "/tx/" + body.tx_hash;
            countdown(Number(form.dataset.cooldown));
            refreshStatus(8);
            return;
          }
          show("faucet-error");
          $("faucet-error").textContent = body.message || ("The faucet answered " + res.status);
          if (res.status === 429) countdown(retryAfter(res));
          else submit.disabled = false;
        });
      }).catch(function () {
        show("faucet-error");
        $("faucet-error").textContent = "The faucet could not be reached.";
        submit.disabled = false;
      });
    });
  }

  switch (page) {
    case "home": home(); break;
    case "block": blockPage(); break;
    case "tx": txPage(); break;
    case "faucet": faucet(); break;
  }
})();
