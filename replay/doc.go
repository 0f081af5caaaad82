// Package replay serves a recorded MCP conversation (package fixtures) back
// to any MCP client, over Streamable HTTP (Replay, an http.Handler) or over
// stdio (ServeStdio). It stands on the recording alone: it never imports the
// reference pool.
//
// # Matching
//
// Each client message is matched to a recorded one by its JSON-RPC method
// and its params compared as JSON (key order and spacing do not matter;
// absent params, null and {} are equal, and so are a tools/call's absent,
// null and {} arguments), after removing the ignore paths
// (Options.IgnorePaths, default params._meta and params.clientInfo: an
// implementation's own name is not behaviour). A request of the
// 2026-07-28 revision keeps its _meta whatever the ignore paths, but for
// the values of clientInfo's name and version (revisionMeta).
// Ids are not compared: the answer carries the client's id. An HTTP POST
// is also matched on its Host and Origin when they do not name the replay
// (fixtures.OwnHost) and the recording kept them (a DNS-rebinding probe). Identical
// messages are replayed in recorded order (one queue per match key); past
// the end of a queue the last recorded answer repeats (Report.Repeated
// counts it). The client's answers to server requests (pings, roots/list)
// are matched by the id the replay sent, not by content.
//
// # Answers
//
// HTTP: the recorded form (application/json body, or text/event-stream
// events, or a status with text), with the recorded headers and framing
// (Content-Length, or chunks). initialize gets a fresh Mcp-Session-Id
// when the fixture's did; later requests must carry a live one (unknown:
// 404 text/plain "session not found"; missing: 400, unless the recording
// probed it). Notifications and client answers get their recorded status
// (202). GET opens the standalone stream (its recorded comments once,
// ": ok", then the recorded server messages at their point); DELETE ends
// the session (204). An unrecorded server/discover gets -32601 "Method not
// found" so clients fall back to initialize; an unrecorded GET gets 405.
//
// # Probes
//
// A request with a fault the recorder probed (probekind.All: a wrong
// Accept or Content-Type, a batch, a missing or unknown session) is
// answered as the server answered the probe when it refused it, and
// reported in Report.Refused ("POST without text/event-stream in Accept");
// a fault the server accepted is served as any request. A session this
// replay ended gets the unknown-session answer unreported. A request that
// made the server write a request of its own to the standalone GET stream,
// in a session without one, gets the server's answer at once (its
// no-standalone-stream probe). See docs/fixtures.md.
//
// Server messages are placed on the timeline by the recording (Event.After,
// or the order of stdio lines): a message is sent when the client message
// it followed is matched, on the stream it was recorded on. A server
// request's answer is awaited (Options.AnswerTimeout, default 5 s, the
// session, and the context of the request that sent it, unless it went on
// the GET stream: its answer comes on a POST of its own, which may follow
// the end of that request's connection, and the GET stream's later events
// are the session's too) before the steps recorded after that answer; a
// missing answer or an error answer is reported in Report.MissingAnswers.
//
// # Errors
//
//   - CodeUnmatched (-32600): no recorded interaction matches. The message
//     reads `replay: unmatched tools/call "x": closest recorded interaction
//     is #6 tools/call "y", differing at params.name, params.arguments.z`,
//     or `replay: no recorded M request (recorded: ...)`.
//   - CodeMethodNotFound (-32601): unrecorded server/discover.
//   - CodeParseError (-32700): not a JSON-RPC message (HTTP status 400).
//   - CodeHeaderMismatch (-32001): a header of Options.RequireHeaders is
//     missing or different (HTTP status 400; GET and DELETE get a 400 text).
//   - A refused probe's answer: whatever the server answered (go-sdk: 400
//     or 415 text/plain; the TypeScript SDK: 406 or 415 with a JSON-RPC
//     error).
//
// Every problem is listed in the Report; recorded interactions never used
// are listed as Unused.
//
// # Limits and lifetime
//
//   - A stdio line from the client is at most Options.MaxLineBytes (8 MiB,
//     --max-line), as an HTTP body: a longer one is read to its newline
//     without being kept, answered with CodeParseError (id null) naming the
//     limit, and reported as unmatched; the replay goes on.
//   - At most Options.MaxSessions HTTP sessions live at once (1000,
//     --max-sessions): a new one evicts the least recently used, whose GET
//     stream ends and whose next request gets 404 "session not found", as
//     from a restarted server; Report.Evicted counts them.
//   - `replay --stdio` ends at the end of its stdin, even while a fault
//     holds an answer, and when its parent dies (Linux: PR_SET_PDEATHSIG,
//     SIGTERM; not with a linger fault, deaf to SIGTERM by design and ended
//     by its own bound); the report file (--report, --report-dir) is written before
//     the report goes to stderr, and a closed stdout or stderr is a write
//     error, never a SIGPIPE.
package replay
