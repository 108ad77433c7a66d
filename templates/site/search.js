/* The archive's search (speakerbot/site/search.py writes its index): reads ?q=, loads the
   shard of each word's first two characters and the titles of what matched, all as
   scripts, so that it works from a folder as well as from a server. Included in
   search.html by the template engine: never two braces in a row here. */
(function () {
  "use strict";
  var KINDS = { r: "rule", o: "rule, earlier text", p: "proposal", c: "CFJ", j: "judgement" };
  var ORDER = "rpcjo";
  var SHOWN = 50;
  var shards = {};
  var buckets = {};
  window.speakerbotTerms = function (name, terms) { shards[name] = terms; };
  window.speakerbotDocs = function (name, docs) { buckets[name] = docs; };

  function load(path) {
    return new Promise(function (done) {
      var script = document.createElement("script");
      script.src = path;
      // A missing shard means no word begins so: nothing to wait for.
      script.onload = script.onerror = function () { done(); };
      document.head.appendChild(script);
    });
  }

  function words(text) {
    return text.normalize("NFC").toLowerCase().match(/[\p{L}\p{N}]+/gu) || [];
  }

  function shardName(term) {
    return Array.from(term).slice(0, 2).map(function (c) {
      return /^[a-z0-9]$/.test(c) ? c : "_" + c.codePointAt(0).toString(16);
    }).join("");
  }

  function number(id) { return parseInt(id.slice(1), 10) || 0; }

  function bucketOf(id) {
    return (id[0] === "o" ? "r" : id[0]) + "-" + Math.floor(number(id) / 100);
  }

  // The documents holding a word that begins with ``term`` (a one-letter word: exactly it).
  function holding(term) {
    var shard = shards[shardName(term)] || {};
    var found = new Set();
    Object.keys(shard).forEach(function (word) {
      if (word === term || (term.length > 1 && word.startsWith(term))) {
        shard[word].forEach(function (id) { found.add(id); });
      }
    });
    return found;
  }

  function compare(a, b) {
    var kind = ORDER.indexOf(a[0]) - ORDER.indexOf(b[0]);
    if (kind !== 0) { return kind; }
    // Rules in the ruleset's order; proposals, CFJs and judgements newest first.
    var sign = (a[0] === "r" || a[0] === "o") ? 1 : -1;
    return sign * (number(a) - number(b)) || (a < b ? -1 : a > b ? 1 : 0);
  }

  function show(status, list, query, ids) {
    list.textContent = "";
    if (ids.length === 0) {
      status.textContent = "Nothing found for “" + query + "”.";
      return;
    }
    var seen = new Set();
    ids.slice(0, SHOWN).forEach(function (id) {
      var doc = (buckets[bucketOf(id)] || {})[id];
      if (!doc || seen.has(doc[1])) { return; }  // a rule found in both its texts: once
      seen.add(doc[1]);
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = doc[1];
      link.textContent = doc[0];
      var tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = KINDS[id[0]] || "";
      item.appendChild(link);
      item.appendChild(document.createTextNode(" "));
      item.appendChild(tag);
      list.appendChild(item);
    });
    var count = list.children.length;
    status.textContent = (count === 1 ? "1 found" : count + " found") + " for “" + query + "”" +
      (ids.length > SHOWN ? ", the first " + SHOWN + " shown." : ".");
  }

  function run() {
    var query = (new URLSearchParams(window.location.search).get("q") || "").trim();
    var status = document.getElementById("search-status");
    var list = document.getElementById("search-results");
    document.getElementById("search-query").value = query;
    var wanted = Array.from(new Set(words(query)));
    if (wanted.length === 0) { return; }
    status.textContent = "Searching…";
    var names = Array.from(new Set(wanted.map(shardName)));
    Promise.all(names.map(function (name) { return load("search/terms/" + name + ".js"); }))
      .then(function () {
        var ids = null;
        wanted.forEach(function (term) {
          var found = holding(term);
          ids = ids === null ? found : new Set(Array.from(ids).filter(function (id) {
            return found.has(id);
          }));
        });
        var sorted = Array.from(ids).sort(compare);
        var needed = Array.from(new Set(sorted.slice(0, SHOWN).map(bucketOf)));
        return Promise.all(needed.map(function (name) {
          return load("search/docs/" + name + ".js");
        })).then(function () { show(status, list, query, sorted); });
      });
  }

  run();
}());
