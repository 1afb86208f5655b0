// The light phone page (amteach/serving/phones.py): one websocket to the server, which holds
// the game; this script sends the student's choices and swaps in the parts of the seat's
// view the server sends (escaped HTML). It applies no rule. Protocol: docs/class-play.md.
(function () {
  "use strict";
  var main = document.querySelector("main.am-light");
  var join = document.getElementById("am-join");
  var seatView = document.getElementById("am-seat");
  var messageLine = document.getElementById("am-message");
  var announce = document.getElementById("am-announce");
  var roomBox = document.getElementById("am-room");
  // the page's one heading: what the join form is for, then the game's name once seated
  var title = document.getElementById("am-title");
  var joinTitle = title.textContent;
  var socket = null;
  var retry = 500;
  var stopped = false;
  var room = (main.getAttribute("data-room") || "").toUpperCase();
  // a move code from the teacher's QR code (`&move=...`): tried once, as if typed and sent
  var moveCode = (new URLSearchParams(location.search).get("move") || "").slice(0, 12);

  function tokenKey(code) { return "amteach-seat-" + code; }
  function tokenFor(code) {
    try { return code ? window.localStorage.getItem(tokenKey(code)) : null; } catch (e) { return null; }
  }
  function remember(code, token) {
    try { window.localStorage.setItem(tokenKey(code), token); } catch (e) { /* private mode */ }
  }
  function forget(code) {
    try { window.localStorage.removeItem(tokenKey(code)); } catch (e) { /* private mode */ }
  }
  function wsAddress() {
    var path = main.getAttribute("data-ws");
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  }
  function send(message) {
    if (socket && socket.readyState === 1) {
      message.v = 1;
      socket.send(JSON.stringify(message));
    } else {
      say("warning", "Reconnecting to the class; try again in a moment.");
    }
  }
  function say(level, text) {
    messageLine.textContent = text;
    messageLine.className = "am-message am-" + level;
  }
  // the element that has the focus, named so that its replacement can take it back
  function focusName() {
    var el = document.activeElement;
    if (!el || el === document.body || !seatView.contains(el)) return null;
    return el.getAttribute("data-choice") || el.id || el.getAttribute("data-action") || null;
  }
  function refocus(name) {
    if (!name) return;
    var found = null;
    seatView.querySelectorAll("[data-choice],[id],[data-action]").forEach(function (el) {
      if (!found && (el.getAttribute("data-choice") === name || el.id === name ||
          el.getAttribute("data-action") === name)) found = el;
    });
    if (found) found.focus();
    else {  // the button is gone (the decision was taken): the first choice, or the status
      var next = seatView.querySelector(".am-choice") || document.getElementById("am-part-status");
      if (next) { next.setAttribute("tabindex", "-1"); next.focus(); }
    }
  }
  function showView(parts) {
    var focused = focusName();
    var openPanels = {};
    seatView.querySelectorAll("details[open]").forEach(function (d) { openPanels[d.className] = true; });
    Object.keys(parts).forEach(function (name) {
      var holder = document.getElementById("am-part-" + name);
      if (holder) holder.innerHTML = parts[name];
    });
    seatView.querySelectorAll("details").forEach(function (d) {
      if (openPanels[d.className]) d.open = true;
    });
    if (parts.happened !== undefined) {
      var newest = seatView.querySelector(".am-happened li");
      if (newest) announce.textContent = newest.textContent;
    }
    refocus(focused);
  }
  function handle(message) {
    if (message.type === "form") {
      // the room the server knows the page by; "" for a link whose code is no room's (the
      // box is emptied for the code from the projector; a code typed since is kept)
      if (message.room || room) { room = message.room || ""; roomBox.value = room; }
      document.getElementById("am-prefers").hidden = !message.asks_role;
      // the gradebook's student ID box, only when the room asks for one
      document.getElementById("am-student-id-box").hidden = !message.asks_id;
      seatView.hidden = true;
      join.hidden = false;
      title.textContent = joinTitle;
      if (moveCode && room) {
        document.getElementById("am-move-code").value = moveCode;
        document.querySelector(".am-moved").open = true;
        send({ type: "claim", room: room, code: moveCode });
        moveCode = "";
      }
    } else if (message.type === "seated") {
      room = message.room;
      if (message.token) remember(message.room, message.token);
      join.hidden = true;
      seatView.hidden = false;
      title.textContent = title.getAttribute("data-seated");
      say("success", message.text);
    } else if (message.type === "forget") {
      forget(message.room);
    } else if (message.type === "view") {
      showView(message.parts || {});
    } else if (message.type === "message") {
      say(message.level || "info", message.text || "");
      if (message.ok === false) {  // a choice refused: the buttons on screen may be pressed again
        seatView.querySelectorAll(".am-choice[aria-disabled]").forEach(function (b) {
          b.removeAttribute("aria-disabled");
        });
      }
    }
  }
  function connect() {
    socket = new WebSocket(wsAddress());
    socket.onopen = function () {
      retry = 500;
      send({ type: "hello", room: room, token: tokenFor(room) });
    };
    socket.onmessage = function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      handle(message);
    };
    socket.onclose = function (event) {
      if (event.code === 1008) { stopped = true; return; }  // a limit: the line says which
      if (stopped) return;
      say("info", "Connection lost; reconnecting…");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    };
  }
  join.addEventListener("submit", function (event) {
    event.preventDefault();
    var picked = join.querySelector("input[name=prefers]:checked");
    var code = roomBox.value.trim().toUpperCase();
    send({ type: "join", room: code, name: document.getElementById("am-name").value,
      prefers: picked ? picked.value : null, token: tokenFor(code),
      student_id: document.getElementById("am-student-id-box").hidden ? null
        : document.getElementById("am-student-id").value });
  });
  document.getElementById("am-claim").addEventListener("click", function () {
    send({ type: "claim", room: roomBox.value.trim().toUpperCase(),
      code: document.getElementById("am-move-code").value.trim() });
  });
  seatView.addEventListener("click", function (event) {
    var target = event.target.closest("button");
    if (!target) return;
    if (target.classList.contains("am-choice")) {
      if (target.getAttribute("aria-disabled") === "true") return;  // sent already
      var choice;
      try { choice = JSON.parse(target.getAttribute("data-choice")); } catch (e) { return; }
      // aria-disabled, not disabled: a disabled button loses the focus (to the page's body),
      // and a keyboard or screen reader user would start again from the top after each choice
      seatView.querySelectorAll(".am-choice").forEach(function (b) {
        b.setAttribute("aria-disabled", "true");
      });
      send({ type: "choose", choice: choice, at: Number(target.getAttribute("data-at")) });
    } else if (target.getAttribute("data-action") === "take_back") {
      send({ type: "take_back" });
    }
  });
  seatView.addEventListener("change", function (event) {
    if (event.target.name === "with") {  // the trade's partner: show their titles to get
      seatView.querySelectorAll(".am-get").forEach(function (box) {
        box.hidden = box.getAttribute("data-partner") !== event.target.value;
      });
    }
  });
  seatView.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList.contains("am-trade-form")) return;
    event.preventDefault();
    var partner = Number(form.elements["with"].value);
    var ticked = function (name) {
      return Array.prototype.filter.call(form.querySelectorAll("input[name=" + name + "]:checked"),
        function (box) { return name === "give" || Number(box.getAttribute("data-owner")) === partner; })
        .map(function (box) { return Number(box.value); });
    };
    send({ type: "choose", at: Number(form.getAttribute("data-at")),
      choice: { trade: { "with": partner, give: ticked("give"), get: ticked("get"),
        pay: Math.trunc(Number(form.elements.pay.value) || 0) } } });
  });
  // the teacher's question (the `question` part): the chosen answer's index, or the number
  seatView.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList.contains("am-question-form")) return;
    event.preventDefault();
    var value;
    if (form.getAttribute("data-kind") === "choice") {
      var picked = form.querySelector("input[name=answer]:checked");
      if (!picked) { say("warning", "Choose one of the answers first."); return; }
      value = Number(picked.value);
    } else {
      var typed = form.elements.answer.value.trim().replace(",", ".");
      if (typed === "") { say("warning", "Type a number first."); return; }
      value = Number(typed);
    }
    send({ type: "answer", question: Number(form.getAttribute("data-question")), answer: value });
  });
  connect();
})();
