/*
 * A filter box over every list of errors (table.errorkb-list): typing keeps the rows whose
 * text holds every typed word, case aside. The box is made here, not in the page's HTML: it
 * only works with this script, and the page's content passes a sanitizer that keeps no
 * text inputs. Works with the theme's instant navigation (document$) as on a first load.
 */
(function () {
  "use strict";

  function setUp() {
    for (const table of document.querySelectorAll("table.errorkb-list")) {
      if (table.dataset.errorkbFilter) continue;
      table.dataset.errorkbFilter = "1";
      const rows = Array.from(table.tBodies[0] ? table.tBodies[0].rows : []);
      if (rows.length < 10) continue;
      const label = document.createElement("label");
      label.className = "errorkb-filter";
      const box = document.createElement("input");
      box.type = "search";
      box.placeholder = "Filter these " + rows.length.toLocaleString("en") + " errors (words in the title, exception or file)";
      box.setAttribute("aria-label", "Filter the list");
      const count = document.createElement("span");
      count.className = "errorkb-filter-count";
      count.setAttribute("aria-live", "polite");
      label.append(box, count);
      table.parentNode.insertBefore(label, table);
      const texts = rows.map((row) => row.textContent.toLowerCase());
      box.addEventListener("input", () => {
        const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
        let shown = 0;
        rows.forEach((row, i) => {
          const keep = words.every((word) => texts[i].includes(word));
          row.hidden = !keep;
          if (keep) shown++;
        });
        count.textContent = words.length ? shown.toLocaleString("en") + " shown" : "";
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setUp);
})();
