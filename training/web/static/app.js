// The page: draws what the server sends for one seat (GET/POST /api/...), and nothing else.
// Every rule stays on the server: the legal moves come from the view's "legal" list,
// the table from its "table" parts (one drawing function per kind of part, for every game).
// A legal move that says where it is made on the table (its "reroll" dice, its Invers
// "edge") is made there by clicking; every move is also a button.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let games = [];          // GET /api/games
let current = null;      // {kind: "play"|"watch"|"replay", id, view}
let shown = 0;           // moves already in the log
let running = false;     // watch: playing on
let busy = false;        // a request or an announcement in flight

async function api(method, path, body, raw) {
  const init = {method, headers: {}};
  if (body !== undefined) {
    init.body = raw ? body : JSON.stringify(body);
    init.headers["Content-Type"] = raw ? "application/x-ndjson" : "application/json";
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const delay = () => Number($("speed").value);
function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}
function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

// ---- setup -------------------------------------------------------------------------
function currentGame() { return games.find((g) => g.env === $("game").value); }

// An option's default at the table size chosen: some change with it (Lost Dice's rolls per
// player: 30 solo, 25 for two, 20 for three or four), given then as "defaults" by count.
function optionDefault(option) {
  return option.defaults ? option.defaults[$("players").value] ?? option.default : option.default;
}

function fillSetup() {
  const game = currentGame();
  const players = $("players");
  players.min = game.min_players; players.max = game.max_players;
  if (!(Number(players.value) >= game.min_players && Number(players.value) <= game.max_players)) players.value = game.default_players;
  const options = $("options");
  options.replaceChildren();
  for (const option of game.options) {
    const label = el("label", {}, option.label + " ");
    let input;
    if (option.choices) {
      input = el("select");
      for (const choice of option.choices) input.append(el("option", {value: choice.value}, choice.label));
    } else if (option.type === "bool") {
      input = el("input", {type: "checkbox"});
      input.checked = option.default;
    } else {
      input = el("input", {type: option.type === "int" ? "number" : "text"});
      if (option.type === "int") input.min = 1;
    }
    if (!(option.type === "bool")) input.value = optionDefault(option);
    input.dataset.option = option.name;
    input.dataset.type = option.type;
    input.name = "option-" + option.name;
    label.append(input);
    input.addEventListener("input", () => { input.dataset.edited = "yes"; });  // it no longer follows the players
    input.addEventListener("change", () => { input.dataset.edited = "yes"; fillSeats(); });
    options.append(label);
  }
  return fillSeats();
}

// As the players are typed, options still at their default follow the count's default.
function followPlayers() {
  for (const option of currentGame().options) {
    const input = $("options").querySelector(`[data-option="${option.name}"]`);
    if (option.defaults && !input.dataset.edited) input.value = optionDefault(option);
  }
}

// The seat menus offer what can sit at the table as set up (POST /api/agents): asked again
// whenever the game, the players or an option changes; an answer overtaken by a later
// change is dropped. Start stays enabled while they are asked for: a click on Start that
// leaves an edited box (whose change asks for the seats anew) waits for them and starts
// the game, where a disabled button would swallow the click. An agent still being
// prepared on the server (the exact solver's first solve) is named with a note, and the
// table asked for again until it is ready; the other agents are offered meanwhile.
const PREPARING_POLL_MS = 1500;
let seatingAsked = 0;
let seatsAnswered = Promise.resolve();  // the latest request for the seats, answered or not
function fillSeats(again) {
  seatsAnswered = askSeats(again);
  return seatsAnswered;
}

// The seats as the table stands once every request for them made so far is answered.
async function seatsKnown() {
  let waited;
  do {
    waited = seatsAnswered;
    await waited;
  } while (waited !== seatsAnswered);
  return $("seats").dataset.ready === "yes";
}

// again: true when asked again while an agent is prepared (the seats shown stay valid meanwhile).
async function askSeats(again) {
  const asked = ++seatingAsked;
  const seats = $("seats");
  if (again !== true) {
    seats.dataset.ready = "no";
    $("start").disabled = false;  // a click now waits for this answer (the form's submit)
  }
  const {env, options} = setupRequest();
  let seating;
  try {
    seating = await api("POST", "/api/agents", {env, options});
  } catch (problem) {
    if (asked === seatingAsked) {
      showError(problem.message);
      seats.replaceChildren(el("legend", {}, "Seats"));
      $("start").disabled = true;
    }
    return;
  }
  if (asked !== seatingAsked) return;
  showError("");
  const kept = [...seats.querySelectorAll("select")].map((s) => s.value);
  seats.replaceChildren(el("legend", {}, "Seats"));
  const agents = seating.agents;
  for (let p = 0; p < Number($("players").value); p++) {
    const select = el("select", {name: `seat-${p}`, id: `seat-${p}`});
    for (const agent of agents) select.append(el("option", {value: agent}, agent));
    select.value = kept[p] && agents.includes(kept[p]) ? kept[p] : (p === 0 ? "human" : agents[1]);
    const label = el("label", {}, `P${p} `);
    label.append(select);
    seats.append(label);
  }
  const preparing = Object.values(seating.preparing);
  if (preparing.length) {
    seats.append(el("p", {id: "preparing", class: "preparing", role: "status"},
      preparing.join("; ") + ": offered here once ready"));
  }
  const refused = Object.entries(seating.refused);
  if (refused.length) {
    const note = el("details", {id: "not-offered"});
    note.append(el("summary", {}, `Not offered at this table: ${refused.map(([agent]) => agent).join(", ")}`));
    const reasons = el("ul");
    for (const [agent, why] of refused) {
      // the player's reason; the server's own words behind it in a tooltip and a closed detail
      const item = el("li", {title: why.detail}, `${agent}: ${why.reason}`);
      const detail = el("details", {class: "detail"});
      detail.append(el("summary", {}, "details"), el("code", {}, why.detail));
      item.append(detail);
      reasons.append(item);
    }
    note.append(reasons);
    seats.append(note);
  }
  seats.dataset.ready = "yes";
  seats.dataset.preparing = preparing.length ? "yes" : "no";
  $("start").disabled = false;
  if (preparing.length) setTimeout(() => { if (asked === seatingAsked) fillSeats(true); }, PREPARING_POLL_MS);
}

function setupRequest() {
  const options = {num_players: Number($("players").value)};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    const type = input.dataset.type;
    options[input.dataset.option] = type === "bool" ? input.checked : type === "int" ? Number(input.value) : input.value;
  }
  const request = {env: $("game").value, options, seats: [...$("seats").querySelectorAll("select[id^=seat-]")].map((s) => s.value)};
  if ($("seed").value !== "") request.seed = Number($("seed").value);
  return request;
}

// ---- drawing the table -------------------------------------------------------------
const PIPS = {1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [0, 2], [2, 0], [2, 2]],
  5: [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], 6: [[0, 0], [0, 2], [1, 0], [1, 2], [2, 0], [2, 2]]};
const DIE_COLOURS = {R: "#d23c32", Y: "#eec424", B: "#2f6fd0", G: "#2f9a4a", W: "#f4f4f4", K: "#222"};

// A die's face in words: "5", or "3 R" for a coloured Lost Dice face.
function faceWords(face) { return typeof face === "object" && face !== null ? `${face.label} ${face.colour}` : String(face); }

function die(face, locked, size = 44) {
  const box = svg("svg", {viewBox: "0 0 40 40", width: size, height: size, class: "die" + (locked ? " locked" : "")});
  const coloured = typeof face === "object" && face !== null;
  const fill = coloured ? DIE_COLOURS[face.colour] || "#fff" : locked ? "#cdd7eb" : "#fcfcfc";
  box.append(svg("rect", {x: 1, y: 1, width: 38, height: 38, rx: 7, fill, stroke: "#222"}));
  if (coloured) {
    const text = svg("text", {x: 20, y: 27, "text-anchor": "middle", "font-size": 20, "font-weight": "bold",
      fill: ["W", "Y"].includes(face.colour) ? "#222" : "#fff"});
    text.textContent = face.label + (face.bonus ? "*" : "");
    box.append(text);
    box.setAttribute("aria-label", faceWords(face));
  } else if (face >= 1) {
    for (const [row, col] of PIPS[face]) box.append(svg("circle", {cx: 10 * (col + 1), cy: 10 * (row + 1), r: 3.6, fill: "#222"}));
    box.setAttribute("aria-label", `die ${face}`);
  }
  return box;
}

// A die of a "dice" part with its position under it (1 = leftmost), the number the moves name.
function placedDie(face, k, locked) {
  const slot = el("span", {class: "die-slot" + (locked ? " locked" : "")});
  slot.append(die(face, locked), el("span", {class: "position"}, String(k + 1)));
  return slot;
}

// A die the person may roll again: a toggle button, pressed while it is picked to reroll.
function pickableDie(face, k, picked, changed) {
  const button = el("button", {type: "button", class: "die-slot pick", "aria-pressed": "false",
    "aria-label": `reroll die ${k + 1} (${faceWords(face)})`});
  button.append(die(face, false), el("span", {class: "position"}, String(k + 1)));
  button.addEventListener("click", () => {
    if (picked.has(k)) picked.delete(k); else picked.add(k);
    button.setAttribute("aria-pressed", String(picked.has(k)));
    changed();
  });
  return button;
}

// The one button that rolls the picked dice again: it sends the legal move whose "reroll"
// dice are exactly those picked, and is disabled, saying why, while none is.
function rerollControl(rerolls, picked) {
  const button = el("button", {type: "button", id: "reroll", "aria-describedby": "reroll-why"}, "Reroll selected");
  const why = el("span", {id: "reroll-why", class: "why", "aria-live": "polite"});
  const node = el("div", {class: "dice-move"});
  node.append(button, why);
  let chosen = null;
  const update = () => {
    chosen = rerolls.find((m) => m.reroll.length === picked.size && m.reroll.every((k) => picked.has(k))) || null;
    button.disabled = !chosen;
    if (chosen) button.dataset.action = chosen.action; else delete button.dataset.action;
    why.textContent = chosen ? chosen.name : picked.size ? "no legal move rolls just these dice" : "click the dice to reroll";
  };
  button.addEventListener("click", () => { if (chosen) play(chosen.action); });
  update();
  return {node, update};
}

// An arrow at the Invers board's edge that makes a push: it points into the line from the
// square off the board the tile enters from (the move's "edge", row and column -1..6), and
// on hover or focus lights the line (drawn next, outside the arrow, so that only the arrow
// takes the clicks) and names the move (show: the move's name, or null). Both, in order.
function pushMarker(move, {size, cell, margin, origin}, show) {
  const [row, column] = move.edge;
  const inward = (k) => (k < 0 ? 1 : k >= size ? -1 : 0);
  const centre = (k) => (k < 0 ? origin - margin / 2 : k >= size ? origin + size * cell + margin / 2 : origin + k * cell + cell / 2);
  const [dx, dy, cx, cy] = [inward(column), inward(row), centre(column), centre(row)];
  const marker = svg("g", {class: "push", tabindex: 0, role: "button", "aria-label": `push: ${move.name}`, "data-action": move.action});
  const title = svg("title");
  title.textContent = move.name;
  const across = dx !== 0;  // a row is pushed
  const line = svg("rect", {class: "line", x: across ? origin : origin + column * cell, y: across ? origin + row * cell : origin,
    width: across ? size * cell : cell, height: across ? cell : size * cell, rx: 4});
  marker.append(
    title,
    svg("circle", {class: "knob", cx, cy, r: margin / 2 - 2}),
    svg("polygon", {class: "arrow", points: [[9 * dx, 9 * dy], [-6 * dx - 7 * dy, -6 * dy + 7 * dx], [-6 * dx + 7 * dy, -6 * dy - 7 * dx]]
      .map(([x, y]) => `${cx + x},${cy + y}`).join(" ")}),
  );
  marker.addEventListener("click", () => play(move.action));
  marker.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); play(move.action); }
  });
  for (const [on, name] of [["mouseenter", move.name], ["focus", move.name], ["mouseleave", null], ["blur", null]]) {
    marker.addEventListener(on, () => show(name));
  }
  return [marker, line];
}

const DRAW = {
  status(part) { return el("p", {class: "status", id: "status"}, part.text); },

  // moves: the person's legal moves now; those with "reroll" dice make the dice clickable.
  dice(part, moves) {
    const row = el("div", {class: "dice"});
    const rerolls = moves.filter((m) => m.reroll);
    const pickable = new Set(rerolls.flatMap((m) => m.reroll));
    const picked = new Set();
    const control = rerolls.length ? rerollControl(rerolls, picked) : null;
    part.faces.forEach((face, k) => row.append(pickable.has(k) ? pickableDie(face, k, picked, control.update) : placedDie(face, k, k < part.locked)));
    if (part.note) row.append(el("span", {class: "note"}, part.note));
    if (control) row.append(control.node);
    return row;
  },

  sheet(part) {
    const wrap = el("div", {class: "sheet-wrap"});
    const table = el("table", {class: "sheet"});
    const head = el("tr");
    head.append(el("th"));
    part.players.forEach((name, p) => head.append(el("th", p === part.to_act ? {class: "to-act"} : {}, name + (p === viewer() ? " (you)" : ""))));
    table.append(head);
    part.rows.forEach(([label, ...cells], r) => {
      const tr = el("tr", r === part.marked ? {class: "marked"} : {});
      tr.append(el("th", {scope: "row"}, label));
      cells.forEach((cell, p) => tr.append(el("td", p === part.to_act ? {class: "to-act"} : {}, cell)));
      table.append(tr);
    });
    wrap.append(table);
    if (part.legend) wrap.append(el("p", {class: "legend"}, part.legend));
    return wrap;
  },

  // The 6 x 6 tiles; row numbers left and column numbers above them, in a margin that also
  // holds, at the edge, an arrow for each legal push of the person's ("edge": the square off
  // the board its tile enters from); the tiles in hand below.
  board(part, moves) {
    const size = 6, cell = 40, numbers = 16, margin = 32;
    const origin = numbers + margin, width = origin + size * cell + margin;
    const fill = {Y: "#eec424", y: "#eec424", R: "#cc2c28", r: "#cc2c28"};
    const tile = (parent, letter, x, y) => {
      parent.append(svg("rect", {x: x + 2, y: y + 2, width: cell - 4, height: cell - 4, rx: 4, fill: fill[letter], stroke: "#3a2a1a"}));
      if (letter === letter.toLowerCase()) parent.append(svg("circle", {cx: x + cell / 2, cy: y + cell / 2, r: 8, fill: "#fff"}));
    };
    const wrap = el("div", {class: "board-wrap"});
    const board = svg("svg", {viewBox: `0 0 ${width} ${width + 2 * cell + 2 * numbers}`, class: "board", role: "group", "aria-label": "Invers board"});
    board.append(svg("rect", {x: 0, y: 0, width, height: width, fill: "#604028", rx: 6}));
    [...part.tiles].forEach((letter, k) => tile(board, letter, origin + (k % size) * cell, origin + Math.floor(k / size) * cell));
    for (let k = 0; k < size; k++) {
      const middle = origin + k * cell + cell / 2;
      const column = svg("text", {x: middle, y: 12, "text-anchor": "middle", "font-size": 12, fill: "#f6f1e2"});
      column.textContent = k + 1;
      const row = svg("text", {x: numbers / 2, y: middle + 4, "text-anchor": "middle", "font-size": 12, fill: "#f6f1e2"});
      row.textContent = k + 1;
      board.append(column, row);
    }
    const pushes = moves.filter((m) => m.edge);
    const rest = "Click an arrow at the edge to push your tile in.";
    const hint = el("p", {class: "board-hint", id: "push-hint"}, rest);
    const geometry = {size, cell, margin, origin};
    for (const move of pushes) board.append(...pushMarker(move, geometry, (name) => { hint.textContent = name || rest; }));
    part.hands.forEach((letter, p) => {
      const x = origin, y = width + numbers + p * (cell + numbers);
      tile(board, letter, x, y);
      const text = svg("text", {x: x + cell + 6, y: y + cell / 2 + 5, "font-size": 13, "font-weight": p === part.to_move ? "bold" : "normal"});
      text.textContent = part.players[p] + (p === viewer() ? " (you)" : "") + " holds";
      board.append(text);
    });
    if (pushes.length) wrap.append(hint);
    wrap.append(board);
    return wrap;
  },

  cards(part) {
    const wrap = el("div", {class: "card-rows"});
    for (const row of part.rows) {
      const line = el("div", {class: "card-row" + (row.player === part.viewer ? " own" : "")});
      line.append(el("span", {class: "who"}, `P${row.player}` + (row.player === part.viewer ? " (you)" : "")));
      const slots = el("div", {class: "slots"});
      row.cards.forEach((card, c) => {
        const slot = el("div", {class: "slot"});
        slot.append(el("div", {class: "card" + (card === null ? " down" : "")}, card === null ? "?" : String(card)));
        slot.append(row.dice[c] ? die(row.dice[c], false, 34) : el("div", {class: "no-die"}, `card ${c + 1}`));
        slots.append(slot);
      });
      line.append(slots);
      const facts = [];
      if (row.roll && row.roll.length) {
        const roll = el("div", {class: "roll"});
        roll.append(el("span", {}, "roll "));
        row.roll.forEach((face) => roll.append(die(face, false, 30)));
        line.append(roll);
      }
      if (row.committed) facts.push("committed");
      if (row.bid) facts.push(`bid ${row.bid}, keeps ${row.kept}`);
      if (facts.length) line.append(el("span", {class: "facts"}, facts.join("; ")));
      wrap.append(line);
    }
    return wrap;
  },
};

function viewer() { return current && current.view ? current.view.viewer : null; }

function seatName(p) {
  const seats = current.view.seats;
  if (p === current.view.viewer) return `P${p} (you)`;
  return `P${p} (${seats[p]})`;
}

// The moves made on the table, by the field that says where: what a list of them is called.
const TABLE_MOVES = {reroll: "rerolls", edge: "pushes"};
const onTable = (move) => Object.keys(TABLE_MOVES).some((field) => field in move);
let tableMovesOpen = false;  // the person opened the list of them: it stays open from move to move

function moveButton(move) {
  const button = el("button", {type: "button", "data-action": move.action}, move.name);
  button.addEventListener("click", () => play(move.action));
  return button;
}

// The person's moves as buttons: those made on the table (the dice, the board's edge) in a
// list closed by default, the keyboard's and screen reader's way to them; the rest shown.
function drawMoves(moves) {
  const legal = $("legal");
  legal.replaceChildren(...moves.filter((m) => !onTable(m)).map(moveButton));
  const made = moves.filter(onTable);
  if (!made.length) return;
  const kind = TABLE_MOVES[Object.keys(TABLE_MOVES).find((field) => field in made[0])];
  const list = el("details", {id: "table-moves"});
  list.open = tableMovesOpen;
  list.addEventListener("toggle", () => { tableMovesOpen = list.open; });
  const buttons = el("div", {class: "buttons"});
  buttons.append(...made.map(moveButton));
  list.append(el("summary", {}, `All ${made.length} ${kind} as buttons`), buttons);
  legal.append(list);
}

function draw(view) {
  current.view = view;
  const mine = current.kind === "play" && view.next === "human" && !view.over;
  const moves = mine ? view.legal : [];
  $("table").replaceChildren(...view.table.map((part) => DRAW[part.type](part, moves)));
  const game = games.find((g) => g.env === view.env);
  $("seats-line").textContent = `${game ? game.title : view.env}: ` + view.seats.map((s, p) => seatName(p)).join(", ");
  drawMoves(moves);
  $("legal-box").hidden = !mine;
  $("result").hidden = !view.over;
  $("result").textContent = view.over ? view.result : "";
  $("result").dataset.outcome = view.over ? view.outcome : "";
  $("after").hidden = !(view.over && current.kind !== "replay");
  if (view.over && current.kind !== "replay") $("download").href = `/api/sessions/${current.id}/record`;
  if (current.kind === "replay") {
    $("step-count").textContent = `${view.step} / ${view.length}`;
    $("scrub").max = view.length;
    $("scrub").value = view.step;
  }
  document.body.dataset.state = view.over ? "over" : current.kind === "replay" ? "replay" : view.next;
}

// A move in the log: who made it, what it was, and what it brought (a throw, a roll spent).
const logLine = (move) => `${seatName(move.player)}: ${move.name}${move.outcome ? ` → ${move.outcome}` : ""}`;

// The moves the last answer added, one at a time (another seat's move, a round's reveal).
async function announce(view) {
  const log = $("log");
  if (current.kind === "replay") {
    log.replaceChildren(...view.moves.map((m) => el("li", {}, logLine(m))));
    return;
  }
  const fresh = view.moves.slice(shown);
  for (const [k, move] of fresh.entries()) {
    const item = el("li", {class: "fresh"}, logLine(move));
    log.querySelectorAll(".fresh").forEach((node) => node.classList.remove("fresh"));
    log.append(item);
    item.scrollIntoView({block: "nearest"});
    if (k < fresh.length - 1 && move.player !== view.viewer) await sleep(delay());
  }
  shown = view.moves.length;
}

async function show(view) {
  await announce(view);
  draw(view);
}

// ---- play and watch ----------------------------------------------------------------
async function begin(kind, id, view) {
  // target: the replay step the last click asked for (clicks may come faster than the answers)
  current = {kind, id, view, target: view.step || 0};
  shown = 0;
  running = false;
  $("log").replaceChildren();
  $("setup").hidden = true;
  $("replay-open").hidden = true;
  $("play").hidden = false;
  $("watch-controls").hidden = kind !== "watch";
  $("replay-controls").hidden = kind !== "replay";
  await show(view);
  if (kind === "play") await agentsMove();
}

// Play the agents' moves one request at a time until the person is to act or the game ends.
async function agentsMove() {
  while (current && current.kind === "play" && current.view.next === "agent") {
    await sleep(delay());
    await step();
  }
}

async function step() {
  const view = await api("POST", `/api/sessions/${current.id}/advance`);
  await show(view);
}

async function play(action) {
  if (busy) return;
  busy = true;
  document.body.dataset.state = "busy";
  document.querySelectorAll("#table button, #legal button").forEach((b) => { b.disabled = true; });
  try {
    showError("");
    await show(await api("POST", `/api/sessions/${current.id}/move`, {action}));
    await agentsMove();
  } catch (problem) {
    showError(problem.message);
    draw(current.view);
  } finally {
    busy = false;
  }
}

async function watch() {
  running = true;
  try {
    while (running && current.kind === "watch" && current.view.next === "agent") {
      await step();
      await sleep(delay());
    }
  } catch (problem) {
    showError(problem.message);
  }
  running = false;
}

async function replayAt(step) {
  if (!current || current.kind !== "replay") return;
  const target = Math.max(0, Math.min(step, current.view.length));
  current.target = target;
  try {
    const view = await api("GET", `/api/replays/${current.id}?step=${target}`);
    if (target === current.target) await show(view);  // a later click asked for another step: its answer shows
  } catch (problem) {
    showError(problem.message);
  }
}

async function openReplay(text) {
  showError("");
  try {
    const view = await api("POST", "/api/replays", text, true);
    await begin("replay", view.id, view);
  } catch (problem) {
    showError(problem.message);
  }
}

// ---- wiring ------------------------------------------------------------------------
function wire() {
  $("game").addEventListener("change", fillSetup);
  $("players").addEventListener("input", followPlayers);
  $("players").addEventListener("change", fillSeats);
  $("setup-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    showError("");
    $("start").disabled = true;
    try {
      if (!(await seatsKnown())) return;  // the seats' error is shown; Start stays disabled until a change
      const view = await api("POST", "/api/sessions", setupRequest());
      await begin(view.kind, view.id, view);
    } catch (problem) {
      showError(problem.message);
    } finally {
      $("start").disabled = $("seats").dataset.ready !== "yes";
    }
  });
  $("show-setup").addEventListener("click", () => { running = false; current = null; $("play").hidden = true; $("replay-open").hidden = true; $("setup").hidden = false; document.body.dataset.state = "setup"; });
  $("show-replay").addEventListener("click", () => { running = false; current = null; $("play").hidden = true; $("setup").hidden = true; $("replay-open").hidden = false; document.body.dataset.state = "setup"; });
  $("open-record").addEventListener("click", async () => {
    const file = $("record-file").files[0];
    if (!file) { showError("choose a record file first"); return; }
    await openReplay(await file.text());
  });
  $("replay-this").addEventListener("click", async () => {
    const response = await fetch(`/api/sessions/${current.id}/record`);
    await openReplay(await response.text());
  });
  $("step").addEventListener("click", async () => { if (!running && current.view.next === "agent") { try { await step(); } catch (p) { showError(p.message); } } });
  $("run").addEventListener("click", () => { if (!running) watch(); });
  $("pause").addEventListener("click", () => { running = false; });
  $("first").addEventListener("click", () => replayAt(0));
  $("back").addEventListener("click", () => replayAt(current.target - 1));
  $("forward").addEventListener("click", () => replayAt(current.target + 1));
  $("last").addEventListener("click", () => replayAt(current.view.length));
  $("scrub").addEventListener("input", () => replayAt(Number($("scrub").value)));
}

async function main() {
  wire();
  try {
    games = (await api("GET", "/api/games")).games;
  } catch (problem) {
    showError(problem.message);
    return;
  }
  for (const game of games) $("game").append(el("option", {value: game.env}, game.title));
  await fillSetup();
  document.body.dataset.ready = "yes";
}

main();
