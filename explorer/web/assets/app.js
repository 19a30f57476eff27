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
//   time[data-ts]              unix seconds; the text ("3 s ago") is refreshed every second
//
// Home (body[data-page=home])
//   #head-number[data-number]  the head; set on every newHeads
//   #stat-block-time #stat-tps #stat-gas-rate   re-read from the server every 5 s
//   #stat-gas                  the head's gas used, on every newHeads
//   #stat-base-fee             the block being built's base fee, on every newFlashblocks
//   #pending-number #pending-index #pending-count   the block being built, on every newFlashblocks
//   #preconfirmed-txs[data-block-number][data-index]
//                              rows tr[data-tx-hash][data-preconfirmed="true"][data-block-number]:
//                              the block being built's transactions, newest first; a
//                              newFlashblocks adds the ones not shown yet
//   #latest-blocks             rows tr[data-block-number][data-tx-count], newest first;
//                              newHeads adds one
//   #latest-txs                rows tr[data-tx-hash][data-preconfirmed="false"][data-block-number];
//                              when a block seals (newHeads), its pre-confirmed rows move
//                              here: the same element, data-preconfirmed flips to "false",
//                              its "pre-confirmed" badge ([data-badge]) goes, the block
//                              cell becomes a link
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
//   429's Retry-After); #faucet-balance[data-wei] re-read after a drip
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

  function ago(ts) {
    var d = Math.floor(Date.now() / 1000) - ts;
    if (d < 1) return "just now";
    if (d < 60) return d + " s ago";
    if (d < 3600) return Math.floor(d / 60) + " min ago";
    if (d < 172800) return Math.floor(d / 3600) + " h ago";
    return Math.floor(d / 86400) + " days ago";
  }

  function short(hex) { return hex.length <= 14 ? hex : hex.slice(0, 8) + "…" + hex.slice(-6); }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function link(href, text, cls) {
    var a = el("a", { href: href }, text);
    if (cls) a.className = cls;
    return a;
  }

  function tickAges() {
    document.querySelectorAll("time[data-ts]").forEach(function (t) {
      t.textContent = ago(Number(t.dataset.ts));
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
  // reconnect; call sends any other JSON-RPC request over the same socket.
  function live(kinds) {
    var path = document.body.dataset.ws;
    var status = $("live-status");
    var setState = function (s) { if (status) status.dataset.state = s; };
    var ws, nextID = 1, subs = {}, waiting = {}, delay = 1000;
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
          if (typeof msg.result === "string") { subs[msg.result] = w.kind; setState("live"); }
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

  function home() {
    var limit = function (tbody) { return Number(tbody.dataset.limit) || 12; };
    var seen = {}; // block number -> its transaction hashes, from its last flashblock
    var rpc;

    function trim(tbody) {
      while (tbody.rows.length > limit(tbody)) tbody.deleteRow(-1);
    }

    function txRow(hash, number) {
      var tr = el("tr", { "data-tx-hash": hash, "data-preconfirmed": "true", "data-block-number": String(number) });
      var first = el("td");
      first.append(link("/tx/" + hash, short(hash), "mono"), " ", el("span", { "class": "badge pre", "data-badge": "" }, "pre-confirmed"));
      tr.append(first, el("td", { "data-col": "block" }, String(number)), el("td", { "class": "route" }, "…"), el("td"), el("td", { "class": "num" }, ""));
      tr.className = "fresh";
      return tr;
    }

    // fill completes a row made from a flashblock's hash with the transaction's details.
    function fill(tr, hash) {
      rpc.call("eth_getTransactionByHash", [hash]).then(function (tx) {
        if (!tx) return;
        var route = tr.cells[2];
        route.textContent = "";
        route.append(link("/address/" + tx.from, short(tx.from), "mono addr"), " → ",
          tx.to ? link("/address/" + tx.to, short(tx.to), "mono addr") : el("span", { "class": "muted" }, "contract creation"));
        tr.cells[4].textContent = units(tx.value, 18) + " ETH";
      }, function () {});
    }

    function onFlashblock(f) {
      var number = parseInt(f.number, 16), index = parseInt(f.index, 16);
      seen[number] = f.transactions;
      var tbody = $("preconfirmed-txs");
      if (!tbody) return;
      tbody.dataset.blockNumber = String(number);
      tbody.dataset.index = String(index);
      $("pending-number").textContent = String(number);
      $("pending-index").textContent = String(index);
      $("pending-count").textContent = String(f.transactions.length);
      if (f.baseFeePerGas) $("stat-base-fee").textContent = units(f.baseFeePerGas, 9) + " gwei";
      var filled = 0;
      f.transactions.forEach(function (hash) {
        if (tbody.querySelector('tr[data-tx-hash="' + hash + '"]')) return;
        var tr = txRow(hash, number);
        tbody.insertBefore(tr, tbody.firstChild);
        if (filled++ < 5) fill(tr, hash);
      });
      trim(tbody);
    }

    function onHead(h) {
      var number = parseInt(h.number, 16);
      var head = $("head-number");
      head.textContent = group(String(number));
      head.dataset.number = String(number);
      head.href = "/block/" + number;
      var gasUsed = parseInt(h.gasUsed, 16), gasLimit = parseInt(h.gasLimit, 16);
      $("stat-gas").textContent = group(String(gasUsed));
      addBlock(h, number, gasUsed, gasLimit);
      sealTxs(number);
      Object.keys(seen).forEach(function (n) { if (Number(n) <= number) delete seen[n]; });
    }

    function addBlock(h, number, gasUsed, gasLimit) {
      var tbody = $("latest-blocks");
      if (!tbody || tbody.querySelector('tr[data-block-number="' + number + '"]')) return;
      var txs = seen[number];
      var tr = el("tr", { "data-block-number": String(number), "data-tx-count": txs ? String(txs.length) : "" });
      var ts = parseInt(h.timestamp, 16);
      var time = el("time", { datetime: new Date(ts * 1000).toISOString(), "data-ts": String(ts) }, ago(ts));
      var cell = function (child, cls) { var td = el("td", cls ? { "class": cls } : {}); td.append(child); return td; };
      var gas = el("td", { "class": "num" }, group(String(gasUsed)) + " ");
      gas.append(el("span", { "class": "muted" }, (gasLimit ? (gasUsed * 100 / gasLimit).toFixed(1) : "0.0") + "%"));
      var count = el("td", { "class": "num", "data-col": "txs" }, txs ? String(txs.length) : "…");
      tr.append(cell(link("/block/" + number, String(number))), cell(time), count, gas,
        el("td", { "class": "num" }, h.baseFeePerGas ? units(h.baseFeePerGas, 9) + " gwei" : ""));
      tr.className = "fresh";
      tbody.insertBefore(tr, tbody.firstChild);
      trim(tbody);
      if (!txs) {
        // Subscribed after the block's last pre-confirmation: ask.
        rpc.call("eth_getBlockTransactionCountByNumber", [h.number]).then(function (n) {
          count.textContent = String(parseInt(n, 16));
          tr.dataset.txCount = count.textContent;
        }, function () {});
      }
    }

    // sealTxs moves the sealed block's pre-confirmed rows into the latest transactions.
    function sealTxs(number) {
      var from = $("preconfirmed-txs"), to = $("latest-txs");
      if (!from || !to) return;
      var rows = Array.prototype.slice.call(from.querySelectorAll('tr[data-block-number="' + number + '"]'));
      var known = {};
      rows.forEach(function (tr) { known[tr.dataset.txHash] = true; });
      // Hashes of the block that were never shown (beyond the list's length) are left out: the block's page lists them all.
      rows.reverse().forEach(function (tr) {
        tr.dataset.preconfirmed = "false";
        var badge = tr.querySelector("[data-badge]");
        if (badge) badge.remove();
        var cell = tr.querySelector('[data-col="block"]');
        if (cell) { cell.textContent = ""; cell.append(link("/block/" + number, String(number))); }
        tr.className = "fresh";
        to.insertBefore(tr, to.firstChild);
      });
      // Rows of older blocks still marked pre-confirmed missed their newHeads (a reconnect): drop them.
      from.querySelectorAll("tr[data-block-number]").forEach(function (tr) {
        if (Number(tr.dataset.blockNumber) <= number) tr.remove();
      });
      var empty = $("latest-txs-empty");
      if (empty && to.rows.length) empty.hidden = true;
      trim(to);
    }

    // The minute's rates come from the server's ring of sealed blocks.
    setInterval(function () {
      if (document.hidden) return;
      fetch("/", { cache: "no-store" }).then(function (res) { return res.ok ? res.text() : null; }).then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        ["stat-block-time", "stat-tps", "stat-gas-rate"].forEach(function (id) {
          var fresh = doc.getElementById(id), cur = $(id);
          if (fresh && cur) cur.textContent = fresh.textContent;
        });
      }, function () {});
    }, 5000);

    rpc = live({ newHeads: onHead, newFlashblocks: onFlashblock });
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

    function refreshBalance() {
      var addr = $("faucet").dataset.faucetAddress, out = $("faucet-balance");
      fetch("/", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [addr, "pending"] })
      }).then(function (res) { return res.json(); }).then(function (j) {
        if (!j.result) return;
        out.dataset.wei = BigInt(j.result).toString();
        out.textContent = units(j.result, 18) + " ETH";
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
            $("faucet-sent-amount").textContent = body.amount_wei != null ? units(String(body.amount_wei), 18) + " ETH" : "test ETH";
            $("faucet-sent-to").textContent = body.to || address;
            var tx = $("faucet-tx");
            tx.textContent = body.tx_hash;
            tx.href = "/tx/" + body.tx_hash;
            countdown(Number(form.dataset.cooldown));
            refreshBalance();
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
