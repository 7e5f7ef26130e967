"use strict";
// The guessgym game viewer: reads the JSON in #data and draws it. No network, no libraries.
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const agents = data.agents;
  const PAGE = 100;
  // As the leaderboard: by game, then win rate, then mean guesses.
  const ranked = () => agents.map((a, i) => i).sort((i, j) => {
    const a = agents[i], b = agents[j];
    return (a.game < b.game ? -1 : a.game > b.game ? 1 : 0) || b.win_rate - a.win_rate || a.mean - b.mean;
  });
  // Open on the first ranked agent whose moves were judged (a loss to show), else the first with games.
  let current = ranked().find((i) => agents[i].records.length > 0 && agents[i].analysis !== null &&
    agents[i].analysis !== undefined);
  if (current === undefined) current = ranked().find((i) => agents[i].records.length > 0);
  if (current === undefined) current = 0;
  let shown = PAGE;
  let boardSort = { key: null, descending: false };

  const el = (tag, attrs, children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v; else if (k === "cls") node.className = v; else node.setAttribute(k, v);
    }
    for (const child of children || []) node.appendChild(child);
    return node;
  };
  const fmt = (v, digits) => (v === null || v === undefined ? "-" : Number(v).toFixed(digits));

  function drawLeaderboard() {
    const table = document.getElementById("board-table");
    table.textContent = "";
    const columns = [["#", null], ["agent", "label"], ["game", "game"], ["games", "games"], ["win %", "win_rate"],
      ["mean", "mean"], ["vs optimum", "gap"], ["loss/game", "analysis"]];
    const head = el("tr", {}, columns.map(([name, key]) => {
      const th = el("th", { text: name });
      if (key) th.addEventListener("click", () => {
        boardSort = { key, descending: boardSort.key === key ? !boardSort.descending : false };
        drawLeaderboard();
      });
      return th;
    }));
    table.appendChild(el("thead", {}, [head]));
    const order = ranked();  // a click on a heading re-sorts
    if (boardSort.key) {
      const k = boardSort.key;
      order.sort((i, j) => {
        const a = agents[i][k], b = agents[j][k];
        const c = (a === null) - (b === null) || (a < b ? -1 : a > b ? 1 : 0);
        return boardSort.descending ? -c : c;
      });
    }
    const body = el("tbody");
    const inGame = {};  // ranked as the leaderboard, each game's rows are numbered from 1
    order.forEach((i, rank) => {
      const a = agents[i];
      inGame[a.game] = (inGame[a.game] || 0) + 1;
      const row = el("tr", { cls: i === current ? "selected" : "", "data-agent": String(i) }, [
        el("td", { text: String(boardSort.key ? rank + 1 : inGame[a.game]) }), el("td", { text: a.label }), el("td", { text: a.game }),
        el("td", { text: String(a.games) }), el("td", { text: fmt(100 * a.win_rate, 2) }),
        el("td", { text: fmt(a.mean, 4) }), el("td", { text: a.gap }), el("td", { text: fmt(a.analysis, 4) })]);
      row.addEventListener("click", () => { current = i; shown = PAGE; drawAll(); });
      body.appendChild(row);
    });
    table.appendChild(body);
  }

  // A bar chart: one bar per [label, value, shown text, tooltip], scaled to the largest value.
  function bars(box, entries, extraClass) {
    box.textContent = "";
    const top = Math.max(1e-9, ...entries.map(([, v]) => v));
    for (const [label, value, text, tip] of entries) {
      const bar = el("div", { cls: "bar" + extraClass(label), title: tip }, [el("span", { text })]);
      // a short bar still shows its number; an empty one is a stub, never as tall as a count of 1
      bar.style.height = value > 0 ? `${Math.max(14, Math.round(100 * value / top))}px` : "4px";
      box.appendChild(el("div", {}, [bar, el("div", { cls: "bar-label", text: label })]));
    }
  }

  function drawDistribution(agent) {
    bars(document.getElementById("distribution"),
      Object.entries(agent.distribution).map(([k, n]) => [k, n, String(n), `${n} games in ${k}`]),
      (k) => (k === "X" ? " x" : ""));
    const byMove = document.getElementById("loss-by-move");
    const figure = document.getElementById("loss-figure");
    if (!agent.loss_by_move) { figure.style.display = "none"; return; }
    figure.style.display = "";
    bars(byMove, Object.entries(agent.loss_by_move).map(([k, v]) => [k, v, fmt(v, 3),
      `move ${k}: ${fmt(v, 4)} guesses lost on average`]), () => " loss");
  }

  function judgement(loss, luck) {
    if (loss === undefined || loss === null) return [];
    if (Array.isArray(loss)) {  // judged by bounds: the time budget ran out before it was solved
      const high = loss[1] < 0 ? "?" : fmt(loss[1], 4);
      return [el("span", { cls: "lost", text: `loss ${fmt(loss[0], 4)} to ${high} (bounds)` })];
    }
    return [el("span", { cls: loss > 1e-9 ? "lost" : "", text: `loss ${fmt(loss, 4)}` }),
      el("span", { text: ` luck ${luck >= 0 ? "+" : ""}${fmt(luck, 4)}` })];
  }

  function board(agent, record, title) {
    const rows = record[4].map((row) => {
      const [guess, tiles, loss, luck, invalid, forfeit] = row;
      if (invalid) {  // a refused reply of a text agent: its text, why, and whether it cost a turn
        const why = `refused (${invalid})${forfeit ? ", turn lost" : ", retried"}`;
        return el("div", { cls: "row invalid", "data-invalid": invalid }, [
          el("span", { cls: "reply", title: guess, text: guess }),
          el("span", { cls: "judge" }, [el("span", { cls: "why", text: why }), ...judgement(loss, luck)])]);
      }
      const cells = Array.from(guess).map((ch, i) => el("div", { cls: `tile ${tiles[i]}`, "data-tile": tiles[i],
        text: ch }));
      return el("div", { cls: "row", "data-guess": guess }, [...cells, el("span", { cls: "judge" }, judgement(loss, luck))]);
    });
    return el("div", { cls: `board ${agent.kind || "wordle"}` }, [el("div", { cls: "board-title", text: title }), ...rows]);
  }

  function filtered(agent) {
    const text = document.getElementById("filter").value.trim().toLowerCase();
    const show = document.getElementById("show").value;
    const guesses = document.getElementById("guesses").value;
    const sort = document.getElementById("sort").value;
    let list = agent.records.filter((r) => (!text || r[0].toLowerCase().includes(text))
      && (show !== "failed" || !r[2]) && (!guesses || String(r[1]) === guesses));
    const exact = list.filter((r) => r[0].toLowerCase() === text);
    if (exact.length) list = exact;
    const by = {
      answer: (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
      guesses: (a, b) => b[1] - a[1],
      loss: (a, b) => (b[3] || 0) - (a[3] || 0),
      failed: (a, b) => a[2] - b[2] || b[1] - a[1],
    }[sort];
    return list.slice().sort(by);
  }

  function drawGames() {
    const agent = agents[current];
    const box = document.getElementById("games");
    box.textContent = "";
    const list = filtered(agent);
    const other = document.getElementById("compare").value;
    const rival = other === "" ? null : agents[Number(other)];
    const rivalIndex = rival ? new Map(rival.records.map((r) => [r[0], r])) : null;
    document.getElementById("count").textContent = `${list.length.toLocaleString()} of ${agent.records.length.toLocaleString()} games`;
    const open = list.length <= 3;
    for (const record of list.slice(0, shown)) {
      const status = record[2] ? `${record[1]} guesses` : "not solved";
      const summary = el("summary", {}, [el("strong", { text: record[0] }),
        el("span", { cls: record[2] ? "" : "failed", text: ` — ${status}` }),
        el("span", { text: record[3] === null || record[3] === undefined ? "" : ` — loss ${fmt(record[3], 4)}` })]);
      const details = el("details", { cls: "game", "data-answer": record[0] }, [summary]);
      const fill = () => {
        if (details.querySelector(".boards")) return;
        const boards = [board(agent, record, agent.label)];
        const theirs = rivalIndex && rivalIndex.get(record[0]);
        if (theirs) boards.push(board(rival, theirs, rival.label));
        details.appendChild(el("div", { cls: "boards" }, boards));
      };
      details.addEventListener("toggle", () => { if (details.open) fill(); });
      if (open) { details.open = true; fill(); }
      box.appendChild(details);
    }
    document.getElementById("more").style.display = list.length > shown ? "" : "none";
  }

  function drawAgent() {
    const agent = agents[current];
    document.getElementById("agent-title").textContent =
      `${agent.label} on ${agent.game}: ${fmt(100 * agent.win_rate, 2)}% won, mean ${fmt(agent.mean, 4)}`;
    document.getElementById("conduct").textContent = agent.conduct || "";
    drawDistribution(agent);
    const guesses = document.getElementById("guesses");
    const chosen = guesses.value;
    guesses.textContent = "";
    guesses.appendChild(el("option", { value: "", text: "any" }));
    const counts = [...new Set(agent.records.map((r) => r[1]))].sort((a, b) => a - b);
    for (const n of counts) guesses.appendChild(el("option", { value: String(n), text: String(n) }));
    guesses.value = counts.map(String).includes(chosen) ? chosen : "";
    const compare = document.getElementById("compare");
    const before = compare.value;
    compare.textContent = "";
    compare.appendChild(el("option", { value: "", text: "nobody" }));
    agents.forEach((a, i) => {
      if (i !== current && a.game === agent.game && a.records.length) {
        compare.appendChild(el("option", { value: String(i), text: a.label }));
      }
    });
    compare.value = [...compare.options].some((o) => o.value === before) ? before : "";
  }

  function drawAll() { drawLeaderboard(); drawAgent(); drawGames(); }

  for (const id of ["filter", "show", "guesses", "sort", "compare"]) {
    document.getElementById(id).addEventListener(id === "filter" ? "input" : "change", () => { shown = PAGE; drawGames(); });
  }
  document.getElementById("more").addEventListener("click", () => { shown += PAGE; drawGames(); });
  drawAll();
})();
