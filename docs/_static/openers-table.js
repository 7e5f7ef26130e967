// The full opener table (docs/openers-table.md, written when the site builds): each table's rows
// drawn from the page's JSON, filtered by what is typed in its search box. Text reaches the page
// only as textContent, never as HTML.
(function () {
  "use strict";
  var SHOWN = 200; // rows drawn at once; typing narrows the rest
  var source = document.getElementById("opener-data");
  if (!source) return;
  var games = JSON.parse(source.textContent);

  function figures(row, answers, best) {
    var lower = row[2], upper = row[3], fits = row[0] !== "\u2020";
    var fmt = function (x) { return x.toLocaleString("en-US"); };
    if (lower === upper) {
      return [fmt(upper), (upper / answers).toFixed(4),
              best === null || !fits ? "" : ((upper - best) / answers).toFixed(4)];
    }
    return [fmt(lower) + " to " + fmt(upper),
            (lower / answers).toFixed(3) + " to " + (upper / answers).toFixed(3),
            best === null || !fits ? "" :
              ((lower - best) / answers).toFixed(3) + " to " + ((upper - best) / answers).toFixed(3)];
  }

  function draw(box, game) {
    var query = box.querySelector(".opener-search").value.trim().toLowerCase();
    var body = box.querySelector("tbody");
    var matches = game.rows.filter(function (row) { return row[1].toLowerCase().indexOf(query) !== -1; });
    var fragment = document.createDocumentFragment();
    matches.slice(0, SHOWN).forEach(function (row) {
      var tr = document.createElement("tr");
      [row[0], row[1]].concat(figures(row, game.answers, game.best)).forEach(function (text) {
        var td = document.createElement("td");
        td.textContent = text;
        tr.appendChild(td);
      });
      fragment.appendChild(tr);
    });
    body.replaceChildren(fragment);
    var count = box.querySelector(".opener-count");
    count.textContent = matches.length === 0 ? "No opener matches." :
      (matches.length > SHOWN ? "Showing " + SHOWN + " of " + matches.length.toLocaleString("en-US") +
                                " matching openers; type to narrow." :
                                matches.length.toLocaleString("en-US") + " matching openers.");
  }

  document.querySelectorAll(".opener-table").forEach(function (box) {
    var game = games[Number(box.getAttribute("data-index"))];
    if (!game) return;
    box.querySelector(".opener-search").addEventListener("input", function () { draw(box, game); });
    draw(box, game);
  });
})();
