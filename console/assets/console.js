// talon console: live approvals and calls over server-sent events. Every
// page works without this script; it only adds what arrives while a page is
// open. Rows come rendered by the server, in the page's language.
"use strict";
(function () {
  var live = document.getElementById("live");
  var approvals = document.getElementById("approvals");
  var calls = document.getElementById("calls");

  function announce(text) {
    if (!live || !text) return;
    live.textContent = "";
    window.setTimeout(function () { live.textContent = text; }, 50);
  }

  // Waiting times count up while the page is open.
  function fmt(pattern, n, rest, restName) {
    return pattern.replace("{n}", n).replace("{" + restName + "}", rest);
  }
  function waited(ms) {
    var d = approvals.dataset, s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return fmt(d.fmtS, s);
    if (s < 3600) return fmt(d.fmtMin, Math.floor(s / 60), s % 60, "s");
    return fmt(d.fmtH, Math.floor(s / 3600), Math.floor((s % 3600) / 60), "min");
  }
  function tick() {
    var now = Date.now();
    approvals.querySelectorAll(".waited[data-since]").forEach(function (el) {
      el.textContent = waited(now - Number(el.dataset.since));
    });
  }

  function count() {
    var n = approvals.querySelectorAll("article.approval").length;
    var badge = document.getElementById("pending-count");
    if (badge) badge.textContent = String(n);
    var empty = document.getElementById("approvals-empty");
    if (empty) empty.hidden = n > 0;
    document.title = document.title.replace(/^\(\d+\) /, "");
    if (n > 0) document.title = "(" + n + ") " + document.title;
  }

  // Notifications, once the operator allows them.
  var notify = document.getElementById("notify");
  function setupNotify() {
    if (!notify || !("Notification" in window) || Notification.permission !== "default") return;
    notify.hidden = false;
    notify.addEventListener("click", function () {
      Notification.requestPermission().then(function () { notify.hidden = true; });
    });
  }
  function notifyAdded(card) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    try {
      new Notification(approvals.dataset.notifyTitle || "talon", {
        body: card.dataset.tool + (card.dataset.summary ? " — " + card.dataset.summary : ""),
        tag: "talon-" + card.dataset.id
      });
    } catch (e) { /* some browsers allow notifications only from a service worker */ }
  }

  function parse(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t.content.firstElementChild;
  }

  var synced = false;
  function connect(url, handlers) {
    var es = new EventSource(url);
    Object.keys(handlers).forEach(function (name) {
      es.addEventListener(name, function (e) { handlers[name](e.data); });
    });
    return es;
  }

  if (approvals) {
    setupNotify();
    tick();
    window.setInterval(tick, 1000);
    connect("/console/events?page=approvals", {
      "approval-added": function (html) {
        var card = parse(html);
        if (!card || document.getElementById(card.id)) return;
        if (synced) card.classList.add("new");
        approvals.appendChild(card);
        count();
        tick();
        if (synced) {
          announce((approvals.dataset.added || "{tool}").replace("{tool}", card.dataset.tool));
          notifyAdded(card);
        }
      },
      "approval-removed": function (data) {
        var sp = data.indexOf(" ");
        var id = sp < 0 ? data : data.slice(0, sp);
        var card = document.getElementById("approval-" + id);
        if (card) {
          var focused = card.contains(document.activeElement);
          card.remove();
          if (focused) document.getElementById("main").focus();
        }
        count();
        announce(sp < 0 ? "" : data.slice(sp + 1));
      },
      "approval-sync": function (data) {
        var keep = {};
        data.split(" ").forEach(function (id) { if (id) keep["approval-" + id] = true; });
        approvals.querySelectorAll("article.approval").forEach(function (card) {
          if (!keep[card.id]) card.remove();
        });
        count();
        synced = true;
        approvals.dataset.live = "1";
      }
    });
  }

  if (calls) {
    var q = calls.dataset.query ? "&" + calls.dataset.query : "";
    connect("/console/events?page=calls" + q, {
      "call": function (html) {
        var t = document.createElement("tbody");
        t.innerHTML = html;
        var row = t.firstElementChild;
        if (!row) return;
        row.classList.add("new");
        calls.insertBefore(row, calls.firstElementChild);
        while (calls.children.length > 200) calls.removeChild(calls.lastElementChild);
        var empty = document.getElementById("calls-empty");
        if (empty) empty.hidden = true;
      }
    });
  }
})();
