/*
 * The site search's index is fetched only when the reader turns to the search: the theme
 * asks for search/search_index.json on every page load (megabytes, with thousands of error
 * pages), so that one request is held back until the search box is focused, its button
 * pressed or one of the theme's search keys typed. Loaded before the theme's bundle
 * (templates/overrides/main.html). Every other request goes through untouched. It also
 * lets a flag be searched with its dashes (below).
 */
(function () {
  "use strict";
  var requested = false;
  var waiting = [];
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  var INDEX = /(^|\/)search\/search_index\.json([?#]|$)/;

  function request() {
    if (requested) return;
    requested = true;
    waiting.splice(0).forEach(function (go) { go(); });
  }

  XMLHttpRequest.prototype.open = function (method, url) {
    this.errorkbSearchIndex = INDEX.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var xhr = this;
    var args = arguments;
    if (xhr.errorkbSearchIndex && !requested) {
      waiting.push(function () { send.apply(xhr, args); });
      return undefined;
    }
    return send.apply(xhr, args);
  };

  document.addEventListener("focusin", function (event) {
    var target = event.target;
    if (target && target.matches && target.matches("[data-md-component=search-query], #__search")) request();
  }, true);
  document.addEventListener("click", function (event) {
    var target = event.target;
    if (target && target.closest && target.closest("label[for=__search], [data-md-component=search]")) request();
  }, true);
  document.addEventListener("keydown", function (event) {
    var field = event.target && event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if (!field && (event.key === "f" || event.key === "s" || event.key === "/")) request(); // the theme's search keys
  }, true);

  // A flag typed as people write it ("--max-num-seqs") is searched as its field's name
  // ("max_num_seqs", one word to the theme's search): the query parser (lunr) reads a leading
  // "-" as "without this word" and would find nothing, and the flag's words alone ("max num
  // seqs") would rank any page with "max" first. A page's search text holds each of its
  // flags in both forms (templates/error.md.j2), and vLLM's messages name the field so.
  // The theme sends each query to its search worker as {type: 2, data: "<the query>"}.
  var post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message) {
    if (message && message.type === 2 && typeof message.data === "string") {
      var query = message.data.replace(/(^|\s)-+([A-Za-z0-9][A-Za-z0-9-]*)/g, function (all, before, flag) {
        return before + flag.replace(/-+/g, "_");
      });
      arguments[0] = { type: message.type, data: query };
    }
    return post.apply(this, arguments);
  };

  window.errorkbSearchIndexRequested = function () { return requested; };
})();
