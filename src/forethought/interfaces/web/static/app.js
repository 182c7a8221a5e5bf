// forethought web UI: live updates. The server renders every fragment; a Server-Sent Events
// stream only says "something changed", and htmx fetches the new fragment. One fetch at a time:
// changes that arrive meanwhile are folded into one more fetch.
(function () {
  "use strict";

  function refresher(url, target) {
    let busy = false;
    let again = false;
    function run() {
      if (busy) { again = true; return; }
      busy = true;
      const params = new URLSearchParams(new FormData(document.getElementById("filters") || undefined));
      const full = target.id === "runs-table" ? url + "?" + params.toString() : url;
      htmx.ajax("GET", full, { target: target, swap: "innerHTML" }).finally(function () {
        busy = false;
        document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
        if (again) { again = false; run(); }
      });
    }
    return run;
  }

  function follow(streamUrl, eventName, onChange) {
    const source = new EventSource(streamUrl);
    source.addEventListener(eventName, function () {
      // The first event arrives on connecting: refresh then too, in case something changed
      // between rendering the page and opening the stream.
      document.body.dataset.live = "on";
      onChange();
    });
    window.addEventListener("pagehide", function () { source.close(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const live = document.querySelector("[data-live-run]");
    if (live) {
      follow(live.dataset.liveRun, "state", refresher(live.dataset.liveUrl, live));
    }
    const runs = document.querySelector("[data-live-runs]");
    if (runs) {
      follow(runs.dataset.liveRuns, "runs", refresher("/runs/table", runs));
    }
  });
})();
